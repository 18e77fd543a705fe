// nn::Conv2d: 2-D convolution over NCHW inputs.
#pragma once

#include "exadnn/nn/module.h"
#include "exadnn/ops/conv.h"

namespace exadnn::nn {

/// Options of Conv2d: Conv2dOptions(in, out, kernel).stride(1).padding(2).dilation(1).groups(1).
class Conv2dOptions {
 public:
  Conv2dOptions(int64_t in_channels, int64_t out_channels, Size2 kernel)
      : in_(in_channels), out_(out_channels), kernel_(kernel) {}
  Conv2dOptions& stride(Size2 s) {
    params_.stride = s;
    return *this;
  }
  Conv2dOptions& padding(Size2 p) {
    params_.padding = p;
    return *this;
  }
  Conv2dOptions& dilation(Size2 d) {
    params_.dilation = d;
    return *this;
  }
  Conv2dOptions& groups(int64_t g) {
    params_.groups = g;
    return *this;
  }
  Conv2dOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  int64_t in_channels() const { return in_; }
  int64_t out_channels() const { return out_; }
  Size2 kernel() const { return kernel_; }
  const Conv2dParams& params() const { return params_; }
  bool bias() const { return bias_; }

 private:
  int64_t in_, out_;
  Size2 kernel_;
  Conv2dParams params_;
  bool bias_ = true;
};

/// x: [N, in, H, W] -> [N, out, H', W']; weight [out, in/groups, kh, kw], bias [out].
/// Initialised as PyTorch does: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in/groups·kh·kw.
class Conv2d : public Module {
 public:
  explicit Conv2d(const Conv2dOptions& options);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Conv2d"; }
  std::string extra_repr() const override;
  const Conv2dOptions& options() const { return options_; }

  Tensor weight;
  Tensor bias;  ///< undefined without bias

 private:
  Conv2dOptions options_;
};

}  // namespace exadnn::nn
