/* tests/test_model_net.c: the ResNet-50 v1.5 layer table against published figures.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "common/common.h"
#include "model/model.h"
#include "model/model_internal.h" /* tests of model/'s parts */
#include "tests/test.h"

static const model_layer *find(const model_net *net, const char *name)
{
	for (int i = 0; i < net->nlayers; i++)
		if (strcmp(net->layers[i].name, name) == 0)
			return &net->layers[i];
	return NULL;
}

/* torchvision resnet50: 25,557,032 parameters (torchvision model docs). */
static void test_params(test_ctx *t)
{
	model_net net;
	TEST_CHECK(t, model_net_resnet50(&net, 1000, 224) == 0, "%s", err_msg());
	TEST_CHECK(t, net.params == 25557032L, "params %ld", net.params);
	long sum = 0;
	for (int i = 0; i < net.nlayers; i++)
		sum += net.layers[i].params;
	TEST_CHECK(t, sum == net.params, "sum %ld", sum);
	/* 53 convs (49 + 4 downsample) + fc + 53 bn = 107 parameterised layers... count convs */
	int conv = 0, bn = 0, fc = 0, add = 0;
	for (int i = 0; i < net.nlayers; i++) {
		conv += net.layers[i].op == MODEL_OP_CONV;
		bn += net.layers[i].op == MODEL_OP_BN;
		fc += net.layers[i].op == MODEL_OP_FC;
		add += net.layers[i].op == MODEL_OP_ADD;
	}
	TEST_CHECK(t, conv == 53 && bn == 53 && fc == 1 && add == 16, "conv %d bn %d fc %d add %d", conv, bn, fc,
		   add);
	model_net_free(&net);
	TEST_CHECK(t, model_net_resnet50(&net, 10, 224) == 0, "%s", err_msg());
	/* 10 classes: fc 2048*10+10 instead of 2048*1000+1000 */
	TEST_CHECK(t, net.params == 25557032L - 2049000L + 20490L, "params10 %ld", net.params);
	model_net_free(&net);
	TEST_CHECK(t, model_net_resnet50(&net, 0, 224) == ERR_INPUT, "classes 0 accepted");
	TEST_CHECK(t, model_net_resnet50(&net, 1000, 8) == ERR_INPUT, "image 8 accepted");
	model_net_free(&net);
}

/* About 4.1 G multiply-adds per 224x224 image forward (v1.5: 4.11 GMAC; torchvision docs list
 * 4.09 GFLOPS counting MACs). */
static void test_flops(test_ctx *t)
{
	model_net net;
	model_net_resnet50(&net, 1000, 224);
	double macs = model_net_macs(&net);
	TEST_CHECK(t, macs > 4.05e9 && macs < 4.15e9, "macs %.4g", macs);
	TEST_NEAR(t, net.fwd_flop / 2.0, macs, 0.02); /* elementwise ops add < 2% */
	TEST_CHECK(t, net.bwd_flop > 1.9 * net.fwd_flop && net.bwd_flop < 2.1 * net.fwd_flop, "bwd %.4g fwd %.4g",
		   net.bwd_flop, net.fwd_flop);
	model_net_free(&net);
}

/* Shapes and v1.5 stride placement; parameter order as torchvision's parameters(). */
static void test_shapes(test_ctx *t)
{
	model_net net;
	model_net_resnet50(&net, 1000, 224);
	const model_layer *l = find(&net, "conv1");
	TEST_CHECK(t, l && l->out_h == 112 && l->out_c == 64 && l->input == -1, "conv1");
	l = find(&net, "maxpool");
	TEST_CHECK(t, l && l->out_h == 56, "maxpool");
	l = find(&net, "layer2.0.conv2");
	TEST_CHECK(t, l && l->stride == 2 && l->in_h == 56 && l->out_h == 28, "v1.5 stride on conv2");
	l = find(&net, "layer2.0.conv1");
	TEST_CHECK(t, l && l->stride == 1, "v1.5 conv1 stride 1");
	l = find(&net, "layer4.2.conv3");
	TEST_CHECK(t, l && l->out_h == 7 && l->out_c == 2048, "layer4 out");
	l = find(&net, "layer1.0.downsample.0");
	TEST_CHECK(t, l && l->stride == 1 && l->out_c == 256 && l->params == 64 * 256, "layer1 downsample");
	l = find(&net, "layer1.1.downsample.0");
	TEST_CHECK(t, l == NULL, "no downsample in layer1.1");
	l = find(&net, "fc");
	TEST_CHECK(t, l && l->params == 2049000 && l == &net.layers[net.nlayers - 1], "fc last");
	/* every add has a residual input that precedes it and matches its shape */
	int ok = 1;
	for (int i = 0; i < net.nlayers; i++) {
		const model_layer *a = &net.layers[i];
		if (a->input >= i)
			ok = 0;
		if (a->input >= 0) {
			const model_layer *in = &net.layers[a->input];
			if (in->out_c != a->in_c || in->out_h != a->in_h)
				ok = 0;
		}
		if (a->op == MODEL_OP_ADD) {
			const model_layer *s = &net.layers[a->input2];
			if (a->input2 < 0 || a->input2 >= i || s->out_c != a->in_c || s->out_h != a->in_h)
				ok = 0;
		} else if (a->input2 != -1) {
			ok = 0;
		}
	}
	TEST_CHECK(t, ok, "topology");
	/* torchvision parameters() order: first parameterised layers */
	const char *want[] = {"conv1", "bn1", "layer1.0.conv1", "layer1.0.bn1", "layer1.0.conv2", "layer1.0.bn2",
			      "layer1.0.conv3", "layer1.0.bn3", "layer1.0.downsample.0", "layer1.0.downsample.1",
			      "layer1.1.conv1"};
	int k = 0;
	for (int i = 0; i < net.nlayers && k < 11; i++)
		if (net.layers[i].params > 0) {
			TEST_CHECK(t, strcmp(net.layers[i].name, want[k]) == 0, "param order %d: %s vs %s", k,
				   net.layers[i].name, want[k]);
			k++;
		}
	model_net_free(&net);
}

int main(void)
{
	test_ctx t = {0};
	test_params(&t);
	test_flops(&t);
	test_shapes(&t);
	return test_report(&t);
}
