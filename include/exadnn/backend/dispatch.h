// The kernel dispatch table: backends register a kernel for (op, device kind, dtype); ops look it
// up in O(1). A missing entry is an exadnn::Error naming all three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/core/device.h"
#include "exadnn/core/dtype.h"

namespace exadnn {

// Op families defined beside their kernel signatures: layer ops (conv, pooling, normalisation)
// and fused optimizer updates.
#include "exadnn/backend/nn_ops.def"
#include "exadnn/backend/optim_ops.def"

// The lists are laid out by hand (one family of ops per line), not by clang-format.
// clang-format off
// X-macro list of dispatched ops: (name, kernel signature type from backend/*kernels.h).
#define EXADNN_FOR_EACH_OP(X)                                                      \
  EXADNN_FOR_EACH_CORE_OP(X) EXADNN_FOR_EACH_NN_OP(X) EXADNN_FOR_EACH_OPTIM_OP(X)

// The element and linear-algebra ops (kernels.h).
#define EXADNN_FOR_EACH_CORE_OP(X)                                                 \
  X(copy, CopyKernel)           /* strided copy, same dtype */                      \
  X(cast, CastKernel)           /* convert; keyed by the source dtype */            \
  X(fill, FillKernel)                                                               \
  X(neg, UnaryKernel) X(abs, UnaryKernel) X(exp, UnaryKernel) X(log, UnaryKernel)   \
  X(sqrt, UnaryKernel) X(tanh, UnaryKernel) X(sigmoid, UnaryKernel)                 \
  X(relu, UnaryKernel) X(clamp, UnaryKernel) X(pow_scalar, UnaryKernel)             \
  X(relu_backward, BinaryKernel) /* grad where x > 0, else 0 */                     \
  X(add_relu, BinaryKernel)      /* relu(a + b) */                                  \
  X(sign, UnaryKernel)                                                              \
  X(add, BinaryKernel) X(sub, BinaryKernel) X(mul, BinaryKernel) X(div, BinaryKernel) \
  X(pow, BinaryKernel) X(maximum, BinaryKernel) X(minimum, BinaryKernel)            \
  X(eq, CompareKernel) X(ne, CompareKernel) X(lt, CompareKernel)                    \
  X(le, CompareKernel) X(gt, CompareKernel) X(ge, CompareKernel)                    \
  X(where, WhereKernel)                                                             \
  X(sum, ReduceKernel) X(max, ReduceKernel) X(min, ReduceKernel)                    \
  X(argmax, ArgReduceKernel) X(argmin, ArgReduceKernel)                             \
  X(gemm, GemmKernel) X(solve, SolveKernel)
// clang-format on

/// Identifier of a dispatched op.
enum class OpId : uint16_t {
#define EXADNN_OP_ENUM(name, sig) name,
  EXADNN_FOR_EACH_OP(EXADNN_OP_ENUM)
#undef EXADNN_OP_ENUM
};
inline constexpr int kOpCount = 0
#define EXADNN_OP_COUNT(name, sig) +1
    EXADNN_FOR_EACH_OP(EXADNN_OP_COUNT)
#undef EXADNN_OP_COUNT
    ;

/// "add", "gemm", ...
const char* op_name(OpId op) noexcept;

/// Type-erased kernel pointer; the signature is fixed per op (see kernels.h).
using AnyKernel = void (*)();

/// The table of kernels, filled by backends at start-up.
class KernelRegistry {
 public:
  /// The table, with every built-in backend registered.
  static KernelRegistry& instance();

  void add(OpId op, DeviceKind device, DType dtype, AnyKernel kernel);
  /// The kernel or nullptr.
  AnyKernel find(OpId op, DeviceKind device, DType dtype) const noexcept {
    return table_[static_cast<int>(op)][static_cast<int>(device)][static_cast<int>(dtype)];
  }
  /// The kernel; throws "no kernel for op 'x' on device kind 'y' with dtype 'z'".
  AnyKernel get(OpId op, DeviceKind device, DType dtype) const;
  /// Human-readable list of the (op, dtype) pairs a device kind lacks.
  std::vector<std::string> missing(DeviceKind device) const;

 private:
  KernelRegistry() = default;
  AnyKernel table_[kOpCount][kDeviceKindCount][kDTypeCount] = {};
};

/// Typed lookup: `lookup<UnaryKernel>(OpId::exp, DeviceKind::cpu, DType::f32)`.
template <class Signature>
Signature* lookup(OpId op, DeviceKind device, DType dtype) {
  return reinterpret_cast<Signature*>(KernelRegistry::instance().get(op, device, dtype));
}
/// Typed registration.
template <class Signature>
void register_kernel(OpId op, DeviceKind device, DType dtype, Signature* kernel) {
  KernelRegistry::instance().add(op, device, dtype, reinterpret_cast<AnyKernel>(kernel));
}

}  // namespace exadnn
