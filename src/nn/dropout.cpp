#include "exadnn/nn/container.h"
#include "exadnn/ops/comparison.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/operators.h"

namespace exadnn::nn {

Dropout::Dropout(double p) : p_(p) {
  EXADNN_CHECK(p >= 0.0 && p < 1.0, "Dropout", "probability must be in [0, 1), got ", p);
}

Tensor Dropout::forward(const Tensor& x) {
  if (!is_training() || p_ == 0.0) return x;
  const Tensor keep = ge(rand(x.shape(), TensorOptions(DType::f32).device(x.device())),
                         scalar_tensor(p_, DType::f32));
  return x * keep.to(x.dtype()) * (1.0 / (1.0 - p_));
}

std::string Dropout::extra_repr() const {
  return detail::cat("p=", p_);
}

}  // namespace exadnn::nn
