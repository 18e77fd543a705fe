#include "exadnn/nn/linear.h"

#include <cmath>

#include "exadnn/nn/init.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/linalg.h"
#include "exadnn/ops/operators.h"

namespace exadnn::nn {

Linear::Linear(const LinearOptions& options) : options_(options) {
  EXADNN_CHECK(options.in_features() > 0 && options.out_features() > 0, "Linear",
               "features must be positive, got in=", options.in_features(),
               " out=", options.out_features());
  weight = empty({options.out_features(), options.in_features()});
  init::kaiming_uniform_(weight, std::sqrt(5.0));  // = U(-1/sqrt(in), 1/sqrt(in))
  register_parameter("weight", &weight);
  if (options.bias()) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(options.in_features()));
    bias = empty({options.out_features()});
    init::uniform_(bias, -bound, bound);
    register_parameter("bias", &bias);
  }
}

void Linear::check_input(const Tensor& x) const {
  EXADNN_CHECK(x.dim() >= 1 && x.size(-1) == options_.in_features(), "Linear", "input of shape ",
               x.shape(), " does not end in in_features=", options_.in_features());
}

Tensor Linear::forward(const Tensor& x) {
  check_input(x);
  return linear(x, weight, bias);
}

Tensor Linear::forward_relu(const Tensor& x) {
  check_input(x);
  return linear_relu(x, weight, bias);
}

std::string Linear::extra_repr() const {
  return detail::cat("in=", options_.in_features(), ", out=", options_.out_features(),
                     options_.bias() ? "" : ", bias=false");
}

}  // namespace exadnn::nn
