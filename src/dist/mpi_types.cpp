#include "mpi_types.h"

#include <algorithm>
#include <array>
#include <mutex>

#include "exadnn/core/error.h"
#include "exadnn/core/half.h"
#include "mpi_check.h"

namespace exadnn::dist::detail {

namespace {

template <ReduceOp Op>
float combine(float a, float b) {
  if constexpr (Op == ReduceOp::sum) return a + b;
  if constexpr (Op == ReduceOp::product) return a * b;
  if constexpr (Op == ReduceOp::max) return std::max(a, b);
  if constexpr (Op == ReduceOp::min) return std::min(a, b);
}

// MPI user function: inout[i] = in[i] (op) inout[i], computed in fp32 and rounded once.
template <class Half16, ReduceOp Op>
void reduce_16bit(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const Half16*>(in);
  auto* b = static_cast<Half16*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = Half16(combine<Op>(float(a[i]), float(b[i])));
}

constexpr int kOps = 4;
// ops[0][op] for fp16, ops[1][op] for bf16; created on first use, freed as MPI finalises.
std::array<std::array<MPI_Op, kOps>, 2> g_ops;
bool g_ops_made = false;
std::mutex g_ops_mutex;

int free_ops_at_finalize(MPI_Comm, int, void*, void*) {
  std::lock_guard lock(g_ops_mutex);
  for (auto& row : g_ops)
    for (MPI_Op& op : row) MPI_Op_free(&op);
  g_ops_made = false;
  return MPI_SUCCESS;
}

template <class Half16>
std::array<MPI_Op, kOps> make_ops() {
  std::array<MPI_Op, kOps> ops{};
  mpi_check(MPI_Op_create(&reduce_16bit<Half16, ReduceOp::sum>, 1, &ops[0]), "MPI_Op_create");
  mpi_check(MPI_Op_create(&reduce_16bit<Half16, ReduceOp::product>, 1, &ops[1]), "MPI_Op_create");
  mpi_check(MPI_Op_create(&reduce_16bit<Half16, ReduceOp::max>, 1, &ops[2]), "MPI_Op_create");
  mpi_check(MPI_Op_create(&reduce_16bit<Half16, ReduceOp::min>, 1, &ops[3]), "MPI_Op_create");
  return ops;
}

void make_16bit_ops() {
  std::lock_guard lock(g_ops_mutex);
  if (g_ops_made) return;
  g_ops[0] = make_ops<Half>();
  g_ops[1] = make_ops<BFloat16>();
  // An attribute on MPI_COMM_SELF is deleted first thing in MPI_Finalize: free the ops there.
  int keyval = MPI_KEYVAL_INVALID;
  mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &free_ops_at_finalize, &keyval, nullptr),
            "MPI_Comm_create_keyval");
  mpi_check(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), "MPI_Comm_set_attr");
  MPI_Comm_free_keyval(&keyval);
  g_ops_made = true;
}

}  // namespace

MPI_Datatype mpi_datatype(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::f16:
    case DType::bf16:
      return MPI_UINT16_T;
    case DType::i32:
      return MPI_INT32_T;
    case DType::i64:
      return MPI_INT64_T;
    case DType::u8:
      return MPI_UINT8_T;
    case DType::boolean:
      return MPI_C_BOOL;
  }
  throw Error("dist", exadnn::detail::cat("no MPI datatype for dtype ", dtype_name(dtype)));
}

MPI_Op mpi_op(ReduceOp op, DType dtype) {
  if (dtype == DType::f16 || dtype == DType::bf16) {
    make_16bit_ops();
    return g_ops[dtype == DType::f16 ? 0 : 1][static_cast<int>(op)];
  }
  if (dtype == DType::boolean) {
    EXADNN_CHECK(op == ReduceOp::max || op == ReduceOp::min, "dist",
                 "booleans reduce with max (any) or min (all), not ", to_string(op));
    return op == ReduceOp::max ? MPI_LOR : MPI_LAND;
  }
  switch (op) {
    case ReduceOp::sum:
      return MPI_SUM;
    case ReduceOp::product:
      return MPI_PROD;
    case ReduceOp::max:
      return MPI_MAX;
    case ReduceOp::min:
      return MPI_MIN;
  }
  return MPI_SUM;
}

}  // namespace exadnn::dist::detail
