#include "exadnn/backend/dispatch.h"

#include "exadnn/core/error.h"

namespace exadnn {

namespace cpu {
void register_kernels(KernelRegistry& registry);
}  // namespace cpu

const char* op_name(OpId op) noexcept {
  static constexpr const char* kNames[] = {
#define EXADNN_OP_NAME(name, sig) #name,
      EXADNN_FOR_EACH_OP(EXADNN_OP_NAME)
#undef EXADNN_OP_NAME
  };
  const int i = static_cast<int>(op);
  return i >= 0 && i < kOpCount ? kNames[i] : "?";
}

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    cpu::register_kernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::add(OpId op, DeviceKind device, DType dtype, AnyKernel kernel) {
  table_[static_cast<int>(op)][static_cast<int>(device)][static_cast<int>(dtype)] = kernel;
}

AnyKernel KernelRegistry::get(OpId op, DeviceKind device, DType dtype) const {
  AnyKernel k = find(op, device, dtype);
  EXADNN_CHECK(k != nullptr, op_name(op), "no kernel for op '", op_name(op), "' on device kind '",
               device_kind_name(device), "' with dtype '", dtype_name(dtype), "'");
  return k;
}

std::vector<std::string> KernelRegistry::missing(DeviceKind device) const {
  std::vector<std::string> out;
  for (int op = 0; op < kOpCount; ++op)
    for (int t = 0; t < kDTypeCount; ++t)
      if (!table_[op][static_cast<int>(device)][t])
        out.push_back(
            detail::cat(op_name(static_cast<OpId>(op)), "/", dtype_name(static_cast<DType>(t))));
  return out;
}

}  // namespace exadnn
