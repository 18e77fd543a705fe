// solve: linear systems through the registered LAPACK kernel, and the gradient.
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/linalg.h"
#include "internal.h"

namespace exadnn {

namespace {

// X = A⁻¹B for a: [..., n, n], b: [..., n, k] with broadcast batch dims.
Tensor solve_nd(const Tensor& a, const Tensor& b) {
  const int64_t n = a.shape()[a.dim() - 1];
  EXADNN_CHECK(a.shape()[a.dim() - 2] == n, "solve", "the matrix must be square, got shape ",
               a.shape());
  EXADNN_CHECK(b.shape()[b.dim() - 2] == n, "solve", "right-hand side of shape ", b.shape(),
               " does not match the matrix of shape ", a.shape());
  const int64_t k = b.shape()[b.dim() - 1];
  Shape a_batch, b_batch;
  for (int64_t i = 0; i + 2 < a.dim(); ++i) a_batch.push_back(a.shape()[i]);
  for (int64_t i = 0; i + 2 < b.dim(); ++i) b_batch.push_back(b.shape()[i]);
  const Shape batch = ops::broadcast_shapes(a_batch, b_batch, "solve");
  Shape a_full = batch, x_full = batch;
  a_full.push_back(n);
  a_full.push_back(n);
  x_full.push_back(n);
  x_full.push_back(k);

  // LAPACK overwrites both operands: work on dense copies.
  const Tensor lu = ops::broadcast_view(a.detach(), a_full).clone();
  Tensor x = ops::broadcast_view(b.detach(), x_full).clone();
  auto kernel = lookup<SolveKernel>(OpId::solve, a.device().kind, a.dtype());
  const int64_t batches = batch.numel(), esize = static_cast<int64_t>(a.element_size());
  for (int64_t i = 0; i < batches && n > 0; ++i) {
    const int64_t info = kernel(static_cast<char*>(lu.data_ptr()) + i * n * n * esize,
                                static_cast<char*>(x.data_ptr()) + i * n * k * esize, n, k);
    EXADNN_CHECK(info == 0, "solve", "matrix ", i, " of the batch (shape [", n, ", ", n,
                 "]) is singular: pivot U[", info - 1, ", ", info - 1, "] is zero");
  }
  ops::record("solve", {a, b}, x, [a, b, x = x.detach()](const std::vector<Tensor>& g) {
    const Tensor gb = solve(a.transpose(-1, -2), g[0]);  // Aᵀ·gB = G
    return std::vector<Tensor>{
        a.requires_grad() ? ops::sum_to(neg(matmul(gb, x.transpose(-1, -2))), a.shape()) : Tensor(),
        b.requires_grad() ? ops::sum_to(gb, b.shape()) : Tensor()};
  });
  return x;
}

}  // namespace

Tensor solve(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "solve", "matrix");
  ops::check_defined(b, "solve", "right-hand side");
  ops::check_same_device(a, b, "solve");
  EXADNN_CHECK(a.dtype() == b.dtype(), "solve", "dtype mismatch: ", dtype_name(a.dtype()), " and ",
               dtype_name(b.dtype()));
  EXADNN_CHECK(a.dtype() == DType::f32 || a.dtype() == DType::f64, "solve",
               "needs f32 or f64 operands, got ", dtype_name(a.dtype()));
  EXADNN_CHECK(a.dim() >= 2 && b.dim() >= 1, "solve",
               "expects a matrix [..., n, n] and a "
               "right-hand side [..., n, k] or [n], got shapes ",
               a.shape(), " and ", b.shape());
  if (b.dim() == 1) return solve_nd(a, b.unsqueeze(1)).squeeze(-1);
  return solve_nd(a, b);
}

}  // namespace exadnn
