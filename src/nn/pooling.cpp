#include "exadnn/nn/pooling.h"

#include "exadnn/ops/pool.h"

namespace exadnn::nn {

namespace {
Size2 or_kernel(Size2 stride, Size2 kernel) {
  return stride == Size2(0) ? kernel : stride;
}
}  // namespace

MaxPool2d::MaxPool2d(Size2 kernel, Size2 stride, Size2 padding)
    : kernel_(kernel), stride_(or_kernel(stride, kernel)), padding_(padding) {}
Tensor MaxPool2d::forward(const Tensor& x) {
  return max_pool2d(x, kernel_, stride_, padding_);
}
std::string MaxPool2d::extra_repr() const {
  return detail::cat("kernel=", kernel_, ", stride=", stride_, ", padding=", padding_);
}

AvgPool2d::AvgPool2d(Size2 kernel, Size2 stride, Size2 padding)
    : kernel_(kernel), stride_(or_kernel(stride, kernel)), padding_(padding) {}
Tensor AvgPool2d::forward(const Tensor& x) {
  return avg_pool2d(x, kernel_, stride_, padding_);
}
std::string AvgPool2d::extra_repr() const {
  return detail::cat("kernel=", kernel_, ", stride=", stride_, ", padding=", padding_);
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& x) {
  return adaptive_avg_pool2d(x, output_.h, output_.w);
}
std::string AdaptiveAvgPool2d::extra_repr() const {
  return detail::cat("output=", output_);
}

}  // namespace exadnn::nn
