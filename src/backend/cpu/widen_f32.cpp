#include "widen_f32.h"

#include "exadnn/core/error.h"
#include "exadnn/core/half.h"
#include "exadnn/core/half_convert.h"
#include "nn_impl.h"

namespace exadnn::cpu {

bool is_16bit(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16;
}

Tensor widen(const Tensor& t) {
  if (!t.defined() || t.dtype() == DType::f32) return t;
  EXADNN_CHECK(is_16bit(t.dtype()), "widen", "expects an f16 or bf16 tensor, got ",
               dtype_name(t.dtype()));
  Tensor wide = scratch_tensor(t.shape(), DType::f32);
  float* w = static_cast<float*>(wide.data_ptr());
  if (t.dtype() == DType::f16)
    convert(static_cast<const Half*>(t.data_ptr()), w, t.numel());
  else
    convert(static_cast<const BFloat16*>(t.data_ptr()), w, t.numel());
  return wide;
}

Tensor f32_output(const Tensor& t) {
  return t.defined() ? scratch_tensor(t.shape(), DType::f32) : Tensor();
}

void narrow_into(const Tensor& wide, const Tensor& out) {
  if (!out.defined()) return;
  const float* w = static_cast<const float*>(wide.data_ptr());
  if (out.dtype() == DType::f16)
    convert(w, static_cast<Half*>(out.data_ptr()), out.numel());
  else
    convert(w, static_cast<BFloat16*>(out.data_ptr()), out.numel());
}

}  // namespace exadnn::cpu
