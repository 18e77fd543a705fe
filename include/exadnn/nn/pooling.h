// Pooling layers over NCHW inputs.
#pragma once

#include "exadnn/nn/module.h"
#include "exadnn/ops/size2.h"

namespace exadnn::nn {

/// Max over kernel windows; stride defaults to the kernel.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(Size2 kernel, Size2 stride = 0, Size2 padding = 0);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "MaxPool2d"; }
  std::string extra_repr() const override;
  Size2 kernel() const { return kernel_; }
  Size2 stride() const { return stride_; }
  Size2 padding() const { return padding_; }

 private:
  Size2 kernel_, stride_, padding_;
};

/// Mean over kernel windows (padding counted); stride defaults to the kernel.
class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(Size2 kernel, Size2 stride = 0, Size2 padding = 0);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "AvgPool2d"; }
  std::string extra_repr() const override;

 private:
  Size2 kernel_, stride_, padding_;
};

/// Mean pooling to a fixed output size [N, C, out_h, out_w].
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(Size2 output) : output_(output) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "AdaptiveAvgPool2d"; }
  std::string extra_repr() const override;

 private:
  Size2 output_;
};

}  // namespace exadnn::nn
