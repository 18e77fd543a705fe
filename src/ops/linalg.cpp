// matmul: NumPy semantics over the registered GEMM kernel, and its gradient.
#include "exadnn/ops/linalg.h"

#include <optional>

#include "autocast.h"
#include "internal.h"

namespace exadnn {

namespace {

// How a [rows, cols] matrix with element strides (row_stride, col_stride) is handed to GEMM.
struct GemmOperand {
  bool trans = false;
  int64_t ld = 1;
};

std::optional<GemmOperand> gemm_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                       int64_t col_stride) {
  const int64_t c = std::max<int64_t>(cols, 1), r = std::max<int64_t>(rows, 1);
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= c))
    return GemmOperand{false, rows == 1 ? c : std::max(row_stride, c)};
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= r))
    return GemmOperand{true, cols == 1 ? r : std::max(col_stride, r)};
  return std::nullopt;
}

// A matrix operand: the tensor (made dense if its layout does not fit GEMM) and its layout.
struct Matrix {
  Tensor t;
  GemmOperand layout;
};

Matrix as_matrix(const Tensor& x) {
  const int64_t n = x.dim();
  const auto layout =
      gemm_layout(x.shape()[n - 2], x.shape()[n - 1], x.strides()[n - 2], x.strides()[n - 1]);
  if (layout) return {x, *layout};
  Tensor dense = x.detach().contiguous();
  return {dense, *gemm_layout(x.shape()[n - 2], x.shape()[n - 1], dense.strides()[n - 2],
                              dense.strides()[n - 1])};
}

// out[batch..., m, n] = a[batch..., m, k] · b[batch..., k, n]; a and b already broadcast to the
// batch shape (stride 0 on broadcast axes). No autograd.
void batched_gemm(const Tensor& out, const Tensor& a0, const Tensor& b0,
                  MatmulPrecision precision) {
  const int64_t nd = out.dim();
  const int64_t m = out.shape()[nd - 2], n = out.shape()[nd - 1], k = a0.shape()[nd - 1];
  const Matrix a = as_matrix(a0), b = as_matrix(b0);
  auto gemm = lookup<GemmKernel>(OpId::gemm, out.device().kind, out.dtype());
  const int64_t esize = static_cast<int64_t>(out.element_size());
  const int64_t batches = out.numel() / std::max<int64_t>(m * n, 1);
  if (m == 0 || n == 0 || batches == 0) return;

  GemmArgs g;
  g.trans_a = a.layout.trans;
  g.trans_b = b.layout.trans;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = a.layout.ld;
  g.ldb = b.layout.ld;
  g.ldc = std::max<int64_t>(n, 1);
  g.precision = precision;

  // One tall GEMM when b is shared by every batch and a's batches stack densely into rows.
  bool b_shared = true, a_stacks = !a.layout.trans;
  int64_t expected = m * a.layout.ld;
  for (int64_t d = nd - 3; d >= 0; --d) {
    if (out.shape()[d] == 1) continue;
    b_shared = b_shared && b.t.strides()[d] == 0;
    a_stacks = a_stacks && a.t.strides()[d] == expected;
    expected *= out.shape()[d];
  }
  if (batches == 1 || (b_shared && a_stacks)) {
    g.m = m * batches;
    g.a = a.t.data_ptr();
    g.b = b.t.data_ptr();
    g.c = out.data_ptr();
    gemm(g);
    return;
  }
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rest = i, a_off = 0, b_off = 0;
    for (int64_t d = nd - 3; d >= 0; --d) {
      const int64_t idx = rest % out.shape()[d];
      rest /= out.shape()[d];
      a_off += idx * a.t.strides()[d];
      b_off += idx * b.t.strides()[d];
    }
    g.a = static_cast<const char*>(a.t.data_ptr()) + a_off * esize;
    g.b = static_cast<const char*>(b.t.data_ptr()) + b_off * esize;
    g.c = static_cast<char*>(out.data_ptr()) + i * m * n * esize;
    gemm(g);
  }
}

// Checks that operands of the user's shapes (before vectors became matrices) can be multiplied:
// inner dims agree and batch dims broadcast.
void check_matmul_shapes(const Shape& a, const Shape& b) {
  const int64_t k = a[a.size() - 1];
  const int64_t k2 = b.size() == 1 ? b[0] : b[b.size() - 2];
  EXADNN_CHECK(k == k2, "matmul", "shapes ", a, " and ", b, " are not aligned: ", k,
               " (last dim of the first) != ", k2,
               b.size() == 1 ? " (length of the second)" : " (second-to-last dim of the second)");
  for (int64_t i = 3; i <= std::min(a.size(), b.size()); ++i) {
    const int64_t da = a[a.size() - i], db = b[b.size() - i];
    EXADNN_CHECK(da == db || da == 1 || db == 1, "matmul", "batch dimensions of shapes ", a,
                 " and ", b, " cannot be broadcast together (", da, " vs ", db, ")");
  }
}

// matmul of operands with at least 2 dims.
Tensor matmul_nd(const Tensor& a, const Tensor& b, MatmulPrecision precision) {
  const int64_t m = a.shape()[a.dim() - 2], k = a.shape()[a.dim() - 1];
  const int64_t n = b.shape()[b.dim() - 1];
  Shape a_batch, b_batch;
  for (int64_t i = 0; i + 2 < a.dim(); ++i) a_batch.push_back(a.shape()[i]);
  for (int64_t i = 0; i + 2 < b.dim(); ++i) b_batch.push_back(b.shape()[i]);
  Shape batch = ops::broadcast_shapes(a_batch, b_batch, "matmul");
  Shape a_full = batch, b_full = batch, out_shape = batch;
  a_full.push_back(m);
  a_full.push_back(k);
  b_full.push_back(k);
  b_full.push_back(n);
  out_shape.push_back(m);
  out_shape.push_back(n);

  Tensor out = ops::empty_on(out_shape, a.dtype(), a.device());
  if (k == 0) {
    lookup<FillKernel>(OpId::fill, out.device().kind, out.dtype())(out, 0.0);
  } else {
    batched_gemm(out, ops::broadcast_view(a, a_full), ops::broadcast_view(b, b_full), precision);
  }
  ops::record("matmul", {a, b}, out, [a, b, precision](const std::vector<Tensor>& g) {
    return std::vector<Tensor>{
        a.requires_grad() ? ops::sum_to(matmul(g[0], b.transpose(-1, -2), precision), a.shape())
                          : Tensor(),
        b.requires_grad() ? ops::sum_to(matmul(a.transpose(-1, -2), g[0], precision), b.shape())
                          : Tensor()};
  });
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  return matmul(a, b, matmul_precision());
}

Tensor matmul(const Tensor& a0, const Tensor& b0, MatmulPrecision precision) {
  ops::check_defined(a0, "matmul", "first operand");
  ops::check_defined(b0, "matmul", "second operand");
  const Tensor a = autocast_to_16bit(a0), b = autocast_to_16bit(b0);  // autocast: 16-bit products
  ops::check_same_device(a, b, "matmul");
  EXADNN_CHECK(a.dtype() == b.dtype(), "matmul", "dtype mismatch: ", dtype_name(a.dtype()), " and ",
               dtype_name(b.dtype()), " (convert one with to())");
  EXADNN_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul",
               "operands must have at least 1 dimension, "
               "got shapes ",
               a.shape(), " and ", b.shape());
  check_matmul_shapes(a.shape(), b.shape());
  const bool a_vector = a.dim() == 1, b_vector = b.dim() == 1;
  Tensor out = matmul_nd(a_vector ? a.unsqueeze(0) : a, b_vector ? b.unsqueeze(1) : b, precision);
  if (b_vector) out = out.squeeze(-1);
  if (a_vector) out = out.squeeze(b_vector ? -1 : -2);  // vector·vector is a 0-d dot product
  return out;
}

}  // namespace exadnn
