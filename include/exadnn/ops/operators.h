// Arithmetic operators on tensors and scalars.
#pragma once

#include "exadnn/core/tensor.h"
#include "exadnn/ops/elementwise.h"

namespace exadnn {

inline Tensor operator+(const Tensor& a, const Tensor& b) {
  return add(a, b);
}
inline Tensor operator-(const Tensor& a, const Tensor& b) {
  return sub(a, b);
}
inline Tensor operator*(const Tensor& a, const Tensor& b) {
  return mul(a, b);
}
inline Tensor operator/(const Tensor& a, const Tensor& b) {
  return div(a, b);
}
inline Tensor operator-(const Tensor& a) {
  return neg(a);
}

inline Tensor operator+(const Tensor& a, double s) {
  return add(a, scalar_like(s, a));
}
inline Tensor operator-(const Tensor& a, double s) {
  return sub(a, scalar_like(s, a));
}
inline Tensor operator*(const Tensor& a, double s) {
  return mul(a, scalar_like(s, a));
}
inline Tensor operator/(const Tensor& a, double s) {
  return div(a, scalar_like(s, a));
}
inline Tensor operator+(double s, const Tensor& a) {
  return add(scalar_like(s, a), a);
}
inline Tensor operator-(double s, const Tensor& a) {
  return sub(scalar_like(s, a), a);
}
inline Tensor operator*(double s, const Tensor& a) {
  return mul(scalar_like(s, a), a);
}
inline Tensor operator/(double s, const Tensor& a) {
  return div(scalar_like(s, a), a);
}

}  // namespace exadnn
