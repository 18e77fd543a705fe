// Turns exadnn Tensors into the plain kernel arguments of kernel_args.h.
#pragma once

#include <initializer_list>

#include "exadnn/core/tensor.h"
#include "kernel_args.h"

namespace exadnn::cuda {

/// The element type code of a dtype.
ElemType elem_type(DType dtype) noexcept;

/// The iteration space of `operands` over `shape` (every operand has that shape, broadcast axes
/// with stride 0): size-1 axes dropped, axes dense for every operand merged. Fills `out[i]` with
/// operand i's address and element strides. Throws when more than kMaxKernelDims axes remain.
IterShape make_iter(const Shape& shape, std::initializer_list<const Tensor*> operands,
                    Operand* out);

/// The iteration space of axes [begin, end) of `t` alone (size-1 axes dropped, dense axes
/// merged); `out` gets t's address and the merged strides. Used for the kept and the reduced
/// axes of reductions.
IterShape make_iter_axes(const Tensor& t, int64_t begin, int64_t end, Operand& out);

/// The CUDA device index of `t`; throws (naming `op`) when t is not a CUDA tensor.
int cuda_device_of(const Tensor& t, const char* op);

}  // namespace exadnn::cuda
