// Input casts of autocast scopes.
#include "autocast.h"

#include "exadnn/backend/precision_policy.h"

namespace exadnn {

namespace {
bool sixteen_bit(DType t) {
  return t == DType::f16 || t == DType::bf16;
}
}  // namespace

Tensor autocast_to_16bit(const Tensor& t) {
  const DType dt = precision::autocast_dtype();
  if (dt == DType::f32 || !t.defined() || t.dtype() == dt) return t;
  return t.dtype() == DType::f32 || sixteen_bit(t.dtype()) ? t.to(dt) : t;
}

Tensor autocast_to_f32(const Tensor& t) {
  if (precision::autocast_dtype() == DType::f32 || !t.defined() || !sixteen_bit(t.dtype()))
    return t;
  return t.to(DType::f32);
}

}  // namespace exadnn
