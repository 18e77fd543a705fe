// The log scale of CBED patterns (pattern_scale.h).
#include "cbed/pattern_scale.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>

namespace cbed {

float pattern_max(const float* pattern, int64_t pixels) {
  return std::max(*std::max_element(pattern, pattern + pixels), 1e-30f);
}

void log_scale_pixels(float* I, int64_t pixels, float top, int decades) {
  EXADNN_CHECK(decades >= 1 && decades <= 12, "cbed::log_scale_patterns",
               "decades must be in [1, 12], got ", decades);
  const double floor = std::pow(10.0, -decades);
  top = std::max(top, 1e-30f);
  for (int64_t i = 0; i < pixels; ++i)
    I[i] =
        float(std::log10(double(std::max(I[i], 0.0f)) / top * (1 - floor) + floor) / decades + 1);
}

void log_scale_patterns(float* data, int64_t patterns, int64_t pixels, int decades) {
  for (int64_t p = 0; p < patterns; ++p) {
    float* I = data + p * pixels;
    log_scale_pixels(I, pixels, pattern_max(I, pixels), decades);
  }
}

exadnn::Tensor LogPatternScale::apply(const exadnn::Tensor& x, exadnn::Generator&) const {
  EXADNN_CHECK(x.dim() == 4 && x.dtype() == exadnn::DType::f32, "cbed::LogPatternScale",
               "expects stacks [B, C, H, W] f32, got ", x.shape(), " ",
               exadnn::dtype_name(x.dtype()));
  exadnn::Tensor y = x.contiguous().clone();
  log_scale_patterns(y.data<float>(), x.size(0) * x.size(1), x.size(2) * x.size(3));
  return y;
}

}  // namespace cbed
