#include "exadnn/async/param_slab.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "exadnn/core/error.h"
#include "exadnn/nn/module.h"
#include "exadnn/ops/factories.h"

namespace exadnn::async {

namespace {
constexpr int64_t kAlign = 16;  // floats: one 64-byte cache line
}  // namespace

ParameterSlab::ParameterSlab(const nn::Module& module) {
  std::unordered_set<const TensorImpl*> seen;
  int64_t total = 0;
  for (const auto& [name, p] : module.named_parameters()) {
    EXADNN_CHECK(p.dtype() == DType::f32 && p.device().is_cpu(), "ParameterSlab", "parameter '",
                 name, "' is ", dtype_name(p.dtype()), " on ", p.device().str(),
                 "; a slab holds f32 host parameters only");
    if (!seen.insert(&p.impl()).second) continue;
    params_.push_back(p);
    offsets_.push_back(total);
    total += (p.numel() + kAlign - 1) / kAlign * kAlign;
  }
  flat_ = zeros({std::max<int64_t>(total, 1)}, DType::f32);
  float* base = data();
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    const Tensor dense = p.contiguous();
    std::memcpy(base + offsets_[i], dense.data_ptr(), dense.nbytes());
    TensorImpl& impl = p.impl();
    impl.storage = flat_.storage();
    impl.offset = offsets_[i];
    impl.strides = contiguous_strides(impl.shape);
  }
}

void ParameterSlab::gather_grads(float* out) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor g = params_[i].grad();
    float* dst = out + offsets_[i];
    if (!g.defined()) {
      std::fill(dst, dst + params_[i].numel(), 0.0f);
      continue;
    }
    const Tensor dense = g.contiguous();
    std::memcpy(dst, dense.data_ptr(), dense.nbytes());
  }
}

}  // namespace exadnn::async
