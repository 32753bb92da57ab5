/* model: the analytic model of data-parallel ResNet-50 training.
 *
 * This header starts with the ResNet-50 v1.5 layer table (shapes, parameters, FLOPs, bytes) that
 * exec/ trains from and sim/ replays; keep that part stable (API agreed in team.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_MODEL_H
#define SCALEPLAN_MODEL_H

#include <stdbool.h>

/* ---- ResNet-50 layer table (agreed API; exec/ and sim/ depend on it) ---- */

typedef enum model_op { MODEL_OP_CONV, MODEL_OP_BN, MODEL_OP_RELU, MODEL_OP_MAXPOOL, MODEL_OP_AVGPOOL,
                        MODEL_OP_FC, MODEL_OP_ADD } model_op;

typedef struct model_layer {
	char name[48];      /* torchvision parameter prefix: "conv1", "layer1.0.conv2", "layer1.0.downsample.0", "fc" */
	model_op op;
	int input;          /* index of the layer whose output feeds this one; -1 = the input image */
	int input2;         /* MODEL_OP_ADD only: the residual (shortcut) input; else -1 */
	int in_c, in_h, in_w;
	int out_c, out_h, out_w;
	int kernel, stride, pad;   /* conv and pooling; 0 otherwise */
	long params;        /* trainable parameters (conv weight, bn gamma+beta, fc weight+bias); no conv bias */
	double fwd_flop;    /* per image, 2 x multiply-adds for conv/fc; elementwise ops count 1 per element */
	double bwd_flop;    /* per image: data grad + weight grad (about 2x fwd for conv/fc) */
	long in_elems, out_elems, weight_elems;  /* per image (weights: total) - callers multiply by bytes/element */
} model_layer;

typedef struct model_net {
	int nlayers;
	model_layer *layers;   /* [nlayers], forward topological order */
	int classes;
	int image_hw;
	long params;           /* sum of layers[].params */
	double fwd_flop;       /* per image, sum of layers[].fwd_flop */
	double bwd_flop;       /* per image, sum of layers[].bwd_flop */
} model_net;

/* Builds the ResNet-50 v1.5 layer table (torchvision resnet50) for `classes` outputs and square
 * input images of image_hw pixels. Layers are in forward topological order; those with parameters
 * appear in the exact order of torchvision's resnet50().parameters() (conv1, bn1, layer1.0.conv1,
 * layer1.0.bn1, ..., layer1.0.downsample.0, layer1.0.downsample.1, ..., fc). Layers without
 * parameters (relu, maxpool, add, avgpool) are interleaved where the forward pass runs them and
 * are named after their place ("relu", "maxpool", "layer1.0.relu1", "layer1.0.add", "avgpool").
 * v1.5: stride 2 sits on the 3x3 conv (conv2) of the first bottleneck of layer2-4.
 * FLOP conventions: conv/fc 2 per multiply-add; bn forward 2 per element (scale and shift after
 * the statistics), backward 4; relu 1 forward, 1 backward; add 1 forward, 0 backward; max pool
 * k*k per output forward, 1 per input backward; avg pool 1 per input forward and backward.
 * Conv/fc backward = data gradient (= forward) + weight gradient (= forward), except the stem
 * conv, whose input (the image) needs no gradient. fc has a bias, convs have none.
 * Returns 0, or ERR_INPUT (err set) when classes < 1 or image_hw < 32; *net is then empty. */
int model_net_resnet50(model_net *net, int classes, int image_hw); /* 0 or ERR_INPUT */
void model_net_free(model_net *net);

/* Multiply-adds of the conv and fc layers per image (the "4.1 GMAC" usually quoted). */
double model_net_macs(const model_net *net);

/* Human-readable name of an op ("conv", "bn", ...). */
const char *model_op_name(model_op op);

#endif
