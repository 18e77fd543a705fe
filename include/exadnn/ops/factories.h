// Functions that make new tensors: filled, ranges, random, and wrappers of existing memory.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn {

class Generator;

/// Uninitialised tensor.
Tensor empty(const Shape& shape, const TensorOptions& options = {});
Tensor zeros(const Shape& shape, const TensorOptions& options = {});
Tensor ones(const Shape& shape, const TensorOptions& options = {});
Tensor full(const Shape& shape, double value, const TensorOptions& options = {});
/// A tensor with the layout-independent properties (shape, dtype, device) of `like`.
Tensor empty_like(const Tensor& like);
Tensor zeros_like(const Tensor& like);
Tensor ones_like(const Tensor& like);
/// A zero-dimensional tensor holding `value`.
Tensor scalar_tensor(double value, const TensorOptions& options = {});
/// start, start+step, ... (< end); 1-D.
Tensor arange(double start, double end, double step = 1.0, const TensorOptions& options = {});
Tensor arange(int64_t end, const TensorOptions& options = {});
/// Uniform in [0, 1) from `gen` (the default generator if null).
Tensor rand(const Shape& shape, const TensorOptions& options = {}, Generator* gen = nullptr);
/// Standard normal from `gen` (the default generator if null).
Tensor randn(const Shape& shape, const TensorOptions& options = {}, Generator* gen = nullptr);
/// Uniform integers in [low, high); i64 unless the options set a dtype.
Tensor randint(int64_t low, int64_t high, const Shape& shape, const TensorOptions& options = {},
               Generator* gen = nullptr);

/// Wraps memory the caller owns, without copying. `strides` empty means row-major;
/// `on_release`, if given, runs when the last view of the memory dies.
Tensor from_blob(void* data, const Shape& shape, DType dtype, const Strides& strides = {},
                 Device device = Device::cpu(), std::function<void(void*)> on_release = {});

/// Copies values into a new tensor of `shape` (1-D of values.size() if shape is empty); the dtype
/// is T's unless the options set one.
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape = {},
                   const TensorOptions& options = {});
/// Copies the elements of a tensor into a vector of T (converting).
template <class T>
std::vector<T> to_vector(const Tensor& t);

}  // namespace exadnn
