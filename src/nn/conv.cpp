#include "exadnn/nn/conv.h"

#include <cmath>

#include "exadnn/nn/init.h"
#include "exadnn/ops/factories.h"

namespace exadnn::nn {

Conv2d::Conv2d(const Conv2dOptions& o) : options_(o) {
  const int64_t groups = o.params().groups;
  EXADNN_CHECK(o.in_channels() > 0 && o.out_channels() > 0 && groups > 0 &&
                   o.in_channels() % groups == 0 && o.out_channels() % groups == 0,
               "Conv2d", "channels in=", o.in_channels(), " out=", o.out_channels(),
               " must be positive multiples of groups=", groups);
  weight = empty({o.out_channels(), o.in_channels() / groups, o.kernel().h, o.kernel().w});
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  register_parameter("weight", &weight);
  if (o.bias()) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(init::fans(weight).in));
    bias = empty({o.out_channels()});
    init::uniform_(bias, -bound, bound);
    register_parameter("bias", &bias);
  }
}

Tensor Conv2d::forward(const Tensor& x) {
  return conv2d(x, weight, bias, options_.params());
}

std::string Conv2d::extra_repr() const {
  const auto& p = options_.params();
  return detail::cat("in=", options_.in_channels(), ", out=", options_.out_channels(),
                     ", kernel=", options_.kernel(), ", stride=", p.stride, ", padding=", p.padding,
                     p.groups != 1 ? detail::cat(", groups=", p.groups) : std::string());
}

}  // namespace exadnn::nn
