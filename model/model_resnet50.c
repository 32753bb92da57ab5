/* model_resnet50.c: the ResNet-50 v1.5 layer table.
 *
 * Architecture: He et al., "Deep Residual Learning for Image Recognition" (2015), table 1, with the
 * v1.5 change (stride 2 on the 3x3 conv of a downsampling bottleneck) as in torchvision
 * models/resnet.py (Bottleneck: conv1 1x1, conv2 3x3 stride s, conv3 1x1 expansion 4; downsample =
 * conv 1x1 stride s + bn). 25,557,032 parameters at 1000 classes (torchvision docs).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

enum { RN50_MAX_LAYERS = 256 };

/* Builder state: the table being filled. */
typedef struct rn_builder {
	model_net *net;
	int cap;
} rn_builder;

static model_layer *rn_add(rn_builder *b, const char *name, model_op op, int input, int in_c, int in_h,
			   int in_w)
{
	model_net *net = b->net;
	model_layer *l = &net->layers[net->nlayers++];

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->op = op;
	l->input = input;
	l->input2 = -1;
	l->in_c = in_c;
	l->in_h = in_h;
	l->in_w = in_w;
	l->out_c = in_c;
	l->out_h = in_h;
	l->out_w = in_w;
	l->in_elems = (long)in_c * in_h * in_w;
	l->out_elems = l->in_elems;
	return l;
}

/* Output size of a conv/pool: floor((in + 2 pad - k) / stride) + 1 (PyTorch Conv2d docs). */
static int rn_out(int in, int k, int stride, int pad)
{
	return (in + 2 * pad - k) / stride + 1;
}

/* Appends a conv (no bias) reading layer `input` (shape c,h,w). Returns its index. */
static int rn_conv(rn_builder *b, const char *name, int input, int c, int h, int w, int out_c, int k,
		   int stride, int pad, bool first)
{
	model_layer *l = rn_add(b, name, MODEL_OP_CONV, input, c, h, w);
	double macs;

	l->kernel = k;
	l->stride = stride;
	l->pad = pad;
	l->out_c = out_c;
	l->out_h = rn_out(h, k, stride, pad);
	l->out_w = rn_out(w, k, stride, pad);
	l->out_elems = (long)l->out_c * l->out_h * l->out_w;
	l->weight_elems = (long)out_c * c * k * k;
	l->params = l->weight_elems;
	macs = (double)l->weight_elems * l->out_h * l->out_w;
	l->fwd_flop = 2.0 * macs;
	/* data grad (transposed conv, same MACs) + weight grad (same MACs); the stem has no data grad */
	l->bwd_flop = first ? 2.0 * macs : 4.0 * macs;
	return b->net->nlayers - 1;
}

static int rn_bn(rn_builder *b, const char *name, int input)
{
	const model_layer *in = &b->net->layers[input];
	model_layer *l = rn_add(b, name, MODEL_OP_BN, input, in->out_c, in->out_h, in->out_w);

	l->weight_elems = 2L * l->in_c;
	l->params = l->weight_elems;
	l->fwd_flop = 2.0 * (double)l->in_elems;
	l->bwd_flop = 4.0 * (double)l->in_elems;
	return b->net->nlayers - 1;
}

static int rn_relu(rn_builder *b, const char *name, int input)
{
	const model_layer *in = &b->net->layers[input];
	model_layer *l = rn_add(b, name, MODEL_OP_RELU, input, in->out_c, in->out_h, in->out_w);

	l->fwd_flop = (double)l->in_elems;
	l->bwd_flop = (double)l->in_elems;
	return b->net->nlayers - 1;
}

static int rn_add_res(rn_builder *b, const char *name, int input, int shortcut)
{
	const model_layer *in = &b->net->layers[input];
	model_layer *l = rn_add(b, name, MODEL_OP_ADD, input, in->out_c, in->out_h, in->out_w);

	l->input2 = shortcut;
	l->fwd_flop = (double)l->in_elems;
	l->bwd_flop = 0.0; /* the gradient passes through to both inputs unchanged */
	return b->net->nlayers - 1;
}

/* One bottleneck block "layerS.I": returns the index of its final relu. */
static int rn_bottleneck(rn_builder *b, int stage, int idx, int input, int width, int stride)
{
	char nm[48];
	const model_layer *x = &b->net->layers[input];
	int c = x->out_c, h = x->out_h, w = x->out_w;
	int out_c = width * 4;
	int t, shortcut = input, h2, w2;

#define NM(suffix) (snprintf(nm, sizeof(nm), "layer%d.%d.%s", stage, idx, suffix), nm)
	t = rn_conv(b, NM("conv1"), input, c, h, w, width, 1, 1, 0, false);
	t = rn_bn(b, NM("bn1"), t);
	t = rn_relu(b, NM("relu1"), t);
	t = rn_conv(b, NM("conv2"), t, width, h, w, width, 3, stride, 1, false);
	h2 = b->net->layers[t].out_h;
	w2 = b->net->layers[t].out_w;
	t = rn_bn(b, NM("bn2"), t);
	t = rn_relu(b, NM("relu2"), t);
	t = rn_conv(b, NM("conv3"), t, width, h2, w2, out_c, 1, 1, 0, false);
	t = rn_bn(b, NM("bn3"), t);
	if (stride != 1 || c != out_c) {
		shortcut = rn_conv(b, NM("downsample.0"), input, c, h, w, out_c, 1, stride, 0, false);
		shortcut = rn_bn(b, NM("downsample.1"), shortcut);
	}
	t = rn_add_res(b, NM("add"), t, shortcut);
	t = rn_relu(b, NM("relu3"), t);
#undef NM
	return t;
}

int model_net_resnet50(model_net *net, int classes, int image_hw)
{
	static const int blocks[4] = {3, 4, 6, 3};   /* He et al. table 1, 50-layer */
	static const int widths[4] = {64, 128, 256, 512};
	rn_builder b = {net, RN50_MAX_LAYERS};
	model_layer *l;
	int t, s, i, hw;

	memset(net, 0, sizeof(*net));
	if (classes < 1)
		return err_set("resnet50: classes must be >= 1 (got %d)", classes);
	if (image_hw < 32 || image_hw > 4096)
		return err_set("resnet50: image size must be 32..4096 pixels (got %d)", image_hw);
	net->layers = xcalloc(b.cap, sizeof(model_layer));
	net->classes = classes;
	net->image_hw = image_hw;

	t = rn_conv(&b, "conv1", -1, 3, image_hw, image_hw, 64, 7, 2, 3, true);
	t = rn_bn(&b, "bn1", t);
	t = rn_relu(&b, "relu", t);
	hw = b.net->layers[t].out_h;
	l = rn_add(&b, "maxpool", MODEL_OP_MAXPOOL, t, 64, hw, hw);
	l->kernel = 3;
	l->stride = 2;
	l->pad = 1;
	l->out_h = rn_out(hw, 3, 2, 1);
	l->out_w = l->out_h;
	l->out_elems = 64L * l->out_h * l->out_w;
	l->fwd_flop = 9.0 * (double)l->out_elems;
	l->bwd_flop = (double)l->in_elems;
	t = net->nlayers - 1;
	for (s = 0; s < 4; s++)
		for (i = 0; i < blocks[s]; i++)
			t = rn_bottleneck(&b, s + 1, i, t, widths[s], (i == 0 && s > 0) ? 2 : 1);
	{
		const model_layer *x = &net->layers[t];
		l = rn_add(&b, "avgpool", MODEL_OP_AVGPOOL, t, x->out_c, x->out_h, x->out_w);
		l->kernel = x->out_h;
		l->stride = 1;
		l->out_h = 1;
		l->out_w = 1;
		l->out_elems = l->out_c;
		l->fwd_flop = (double)l->in_elems;
		l->bwd_flop = (double)l->in_elems;
		t = net->nlayers - 1;
	}
	l = rn_add(&b, "fc", MODEL_OP_FC, t, 2048, 1, 1);
	l->out_c = classes;
	l->out_elems = classes;
	l->weight_elems = 2048L * classes + classes;
	l->params = l->weight_elems;
	l->fwd_flop = 2.0 * 2048.0 * classes;
	l->bwd_flop = 2.0 * l->fwd_flop;

	for (i = 0; i < net->nlayers; i++) {
		net->params += net->layers[i].params;
		net->fwd_flop += net->layers[i].fwd_flop;
		net->bwd_flop += net->layers[i].bwd_flop;
	}
	return 0;
}

void model_net_free(model_net *net)
{
	if (!net)
		return;
	free(net->layers);
	memset(net, 0, sizeof(*net));
}

double model_net_macs(const model_net *net)
{
	double macs = 0.0;
	int i;

	for (i = 0; i < net->nlayers; i++)
		if (net->layers[i].op == MODEL_OP_CONV || net->layers[i].op == MODEL_OP_FC)
			macs += net->layers[i].fwd_flop / 2.0;
	return macs;
}
