// CPU fused linear forward (f32): y = act(x·Wᵀ + b) in one oneDNN matmul primitive whose bias
// argument and ReLU post-op are applied while each tile of y is still in cache, instead of a GEMM
// followed by a bias pass and a ReLU pass over y. With EXADNN_GEMM=blas the GEMM runs through BLAS
// and the bias and ReLU in one pass after it.
#include <algorithm>

#include "exadnn/backend/nn_kernels.h"
#include "gemm_impl.h"
#include "gemm_provider.h"
#include "loops.h"
#include "onednn_matmul.h"

namespace exadnn::cpu {

namespace {

// y [m, n] += bias (when given), then max(0, ·) (when asked), row by row.
void apply_epilogue(float* y, const float* bias, int64_t m, int64_t n, bool relu) {
#pragma omp parallel for if (m * n >= kParallelGrain)
  for (int64_t i = 0; i < m; ++i) {
    float* row = y + i * n;
    if (bias != nullptr)
      for (int64_t j = 0; j < n; ++j) row[j] += bias[j];
    if (relu)
      for (int64_t j = 0; j < n; ++j) row[j] = std::max(row[j], 0.0f);
  }
}

void linear_forward_f32(const Tensor& y, const Tensor& x, const Tensor& weight, const Tensor& bias,
                        LinearActivation act) {
  GemmArgs g;  // y [m, n] = x [m, k] · weight [n, k]ᵀ
  g.trans_b = true;
  g.m = x.size(0);
  g.n = weight.size(0);
  g.k = x.size(1);
  g.a = x.data<float>();
  g.lda = g.k;
  g.b = weight.data<float>();
  g.ldb = g.k;
  g.c = y.data<float>();
  g.ldc = g.n;
  if (g.m == 0 || g.n == 0) return;
  const float* b = bias.defined() ? bias.data<float>() : nullptr;
  const bool relu = act == LinearActivation::relu;
  if (g.k > 0 && gemm_provider() == GemmProvider::onednn) {
    using dt = dnnl::memory::data_type;
    return onednn_matmul(g, dt::f32, dt::f32, MatmulEpilogue{b, relu});
  }
  if (g.k > 0) {
    sgemm(g);
  } else {
    std::fill_n(static_cast<float*>(g.c), g.m * g.n, 0.0f);  // an empty sum
  }
  apply_epilogue(static_cast<float*>(g.c), b, g.m, g.n, relu);
}

}  // namespace

void register_linear_kernels(KernelRegistry& r) {
  put<LinearForwardKernel>(r, OpId::linear_forward, DType::f32, &linear_forward_f32);
}

}  // namespace exadnn::cpu
