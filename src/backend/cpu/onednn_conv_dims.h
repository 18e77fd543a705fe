// A convolution's sizes in oneDNN's terms (internal to the CPU backend), shared by the
// convolution primitives (onednn_conv.cpp) and the fused convolution + pooling
// (onednn_conv_pool.cpp).
#pragma once

#include "exadnn/backend/nn_kernels.h"
#include "onednn_context.h"

namespace exadnn::cpu::onednn {

// The problem in oneDNN's terms; every tensor has data type dt.
struct Dims {
  memory::dims src, weights, bias, dst, strides, dilates, padding;
  tag weights_tag;
  memory::data_type dt;
  Dims(const Conv2dGeometry& g, memory::data_type type) : dt(type) {
    src = {g.n, g.c, g.h, g.w};
    dst = {g.n, g.o, g.oh, g.ow};
    bias = {g.o};
    if (g.groups == 1) {
      weights = {g.o, g.c, g.kh, g.kw};
      weights_tag = tag::oihw;
    } else {
      weights = {g.groups, g.o / g.groups, g.c / g.groups, g.kh, g.kw};
      weights_tag = tag::goihw;
    }
    strides = {g.stride_h, g.stride_w};
    dilates = {g.dilation_h - 1, g.dilation_w - 1};  // oneDNN counts dilation from 0
    padding = {g.pad_h, g.pad_w};  // the same on the far side: oneDNN rounds down like exadnn
  }
  memory::desc md(const memory::dims& dims, tag layout) const {
    return make_desc(dims, dt, layout);
  }
};

}  // namespace exadnn::cpu::onednn
