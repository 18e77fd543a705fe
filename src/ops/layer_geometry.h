// The geometry of a convolution and of a fixed-window pooling from their operands' shapes, checked
// (errors name `op`); shared by the layer ops (conv.cpp, pool.cpp, conv_pool.cpp). Internal.
#pragma once

#include "exadnn/backend/nn_kernels.h"
#include "exadnn/ops/conv.h"
#include "exadnn/ops/size2.h"

namespace exadnn::ops {

/// x [N, C, H, W] ⋆ weight [O, C / groups, KH, KW] with params.
Conv2dGeometry conv2d_geometry(const Shape& x, const Shape& weight, const Conv2dParams& params);

/// A pooling of `kind` (max or average) over x [N, C, H, W] or [C, H, W] (a batch of one).
Pool2dGeometry pool2d_geometry(const Shape& x, PoolKind kind, Size2 kernel, Size2 stride,
                               Size2 padding, const char* op);

}  // namespace exadnn::ops
