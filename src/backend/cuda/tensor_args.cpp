#include "tensor_args.h"

#include "exadnn/core/error.h"

namespace exadnn::cuda {

static_assert(static_cast<int>(ElemType::boolean) == static_cast<int>(DType::boolean) &&
                  static_cast<int>(ElemType::bf16) == static_cast<int>(DType::bf16) &&
                  static_cast<int>(ElemType::u8) == static_cast<int>(DType::u8),
              "ElemType must number the element types as DType does");

ElemType elem_type(DType dtype) noexcept {
  return static_cast<ElemType>(dtype);
}

IterShape make_iter(const Shape& shape, std::initializer_list<const Tensor*> operands,
                    Operand* out) {
  const int n = static_cast<int>(operands.size());
  // Kept axes (size > 1) with each operand's strides, before merging.
  int64_t sizes[kMaxDims];
  int64_t strides[4][kMaxDims];
  EXADNN_CHECK(n <= 4, "cuda", "at most 4 operands per elementwise kernel, got ", n);
  int kept = 0;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    sizes[kept] = shape[d];
    int i = 0;
    for (const Tensor* t : operands) strides[i++][kept] = t->strides()[d];
    ++kept;
  }
  IterShape s;
  s.numel = shape.numel();
  int nd = 0;
  for (int d = 0; d < kept; ++d) {  // merge axis d into the previous one when dense for all
    bool mergeable = nd > 0;
    for (int i = 0; i < n && mergeable; ++i)
      mergeable = strides[i][nd - 1] == strides[i][d] * sizes[d];
    if (mergeable) {
      sizes[nd - 1] *= sizes[d];
      for (int i = 0; i < n; ++i) strides[i][nd - 1] = strides[i][d];
    } else {
      sizes[nd] = sizes[d];
      for (int i = 0; i < n; ++i) strides[i][nd] = strides[i][d];
      ++nd;
    }
  }
  EXADNN_CHECK(nd <= kMaxKernelDims, "cuda", "a strided operand of shape ", shape, " needs ", nd,
               " axes after merging; CUDA kernels take at most ", kMaxKernelDims,
               " (make it contiguous first)");
  s.ndim = nd;
  for (int d = 0; d < nd; ++d) s.size[d] = sizes[d];
  const Tensor* const* tensors = operands.begin();
  for (int i = 0; i < n && i < 4; ++i) {
    out[i].data = tensors[i]->data_ptr();
    for (int d = 0; d < nd && d < kMaxKernelDims; ++d) out[i].stride[d] = strides[i][d];
  }
  return s;
}

IterShape make_iter_axes(const Tensor& t, int64_t begin, int64_t end, Operand& out) {
  Shape sizes;
  Strides strides;
  for (int64_t d = begin; d < end; ++d) {
    sizes.push_back(t.shape()[d]);
    strides.push_back(t.strides()[d]);
  }
  // A header over t's storage with just these axes, so make_iter's merging applies.
  const Tensor part = make_view(t.storage(), sizes, strides, t.offset(), t.dtype());
  Operand ops[1];
  const IterShape s = make_iter(sizes, {&part}, ops);
  out = ops[0];
  return s;
}

int cuda_device_of(const Tensor& t, const char* op) {
  EXADNN_CHECK(t.device().kind == DeviceKind::cuda, op, "the CUDA kernel got a tensor on ",
               t.device().str());
  return t.device().index;
}

}  // namespace exadnn::cuda
