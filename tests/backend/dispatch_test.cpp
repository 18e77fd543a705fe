// Tests the kernel dispatch table: op names, lookups of missing kernels, the missing-kernel list,
// and registering a kernel for a new (op, device, dtype) slot that ops then use.
#include <algorithm>
#include <string>
#include <vector>

#include "exadnn/backend/kernels.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::values;

namespace {

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const DType kAllDTypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16,
                            DType::i32, DType::i64, DType::u8,  DType::boolean};

int g_calls = 0;

// add for bool: logical or (the slot the CPU backend leaves empty).
void bool_add(const Tensor& out, const Tensor& a, const Tensor& b) {
  ++g_calls;
  const std::vector<double> x = values(a), y = values(b);
  bool* o = out.data<bool>();  // outputs are allocated contiguous by the op
  for (size_t i = 0; i < x.size(); ++i) o[i] = x[i] != 0.0 || y[i] != 0.0;
}

}  // namespace

TEST(Dispatch, OpNames) {
  EXPECT_STREQ(op_name(OpId::copy), "copy");
  EXPECT_STREQ(op_name(OpId::add), "add");
  EXPECT_STREQ(op_name(OpId::exp), "exp");
  EXPECT_STREQ(op_name(OpId::pow_scalar), "pow_scalar");
  EXPECT_STREQ(op_name(OpId::argmin), "argmin");
  EXPECT_STREQ(op_name(OpId::gemm), "gemm");
  EXPECT_STREQ(op_name(static_cast<OpId>(kOpCount)), "?");
  EXPECT_STREQ(op_name(static_cast<OpId>(-1)), "?");
  // Every op has its own real name.
  std::vector<std::string> names;
  for (int i = 0; i < kOpCount; ++i) {
    names.push_back(op_name(static_cast<OpId>(i)));
    EXPECT_NE(names.back(), "?") << i;
    EXPECT_FALSE(names.back().empty()) << i;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
}

TEST(Dispatch, MissingKernelErrorNamesOpDeviceAndDtype) {
  KernelRegistry& r = KernelRegistry::instance();
  EXPECT_EQ(r.find(OpId::exp, DeviceKind::cpu, DType::i32), nullptr);
  EXPECT_EXADNN_ERROR(r.get(OpId::exp, DeviceKind::cpu, DType::i32),
                      "no kernel for op 'exp' on device kind 'cpu' with dtype 'i32'");
  try {
    r.get(OpId::exp, DeviceKind::cpu, DType::i32);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "exp");
  }
  EXPECT_EQ(r.find(OpId::gemm, DeviceKind::cpu, DType::u8), nullptr);
  EXPECT_EXADNN_ERROR(lookup<GemmKernel>(OpId::gemm, DeviceKind::cpu, DType::u8), "'gemm'", "'cpu'",
                      "'u8'");
  for (DType t : kAllDTypes) {  // a CPU-only build has nothing for CUDA
    EXPECT_EQ(r.find(OpId::add, DeviceKind::cuda, t), nullptr);
    EXPECT_EXADNN_ERROR(r.get(OpId::add, DeviceKind::cuda, t), "'add'", "'cuda'",
                        std::string("'") + dtype_name(t) + "'");
  }
  EXPECT_EXADNN_ERROR(r.get(OpId::sum, DeviceKind::cuda, DType::f32), "'sum'", "'cuda'", "'f32'");
}

TEST(Dispatch, PresentKernelsAreFound) {
  KernelRegistry& r = KernelRegistry::instance();
  for (DType t : kAllDTypes) {
    EXPECT_NE(r.find(OpId::copy, DeviceKind::cpu, t), nullptr) << dtype_name(t);
    EXPECT_NE(r.find(OpId::cast, DeviceKind::cpu, t), nullptr) << dtype_name(t);
    EXPECT_NE(r.find(OpId::fill, DeviceKind::cpu, t), nullptr) << dtype_name(t);
    EXPECT_EQ(r.get(OpId::copy, DeviceKind::cpu, t), r.find(OpId::copy, DeviceKind::cpu, t));
  }
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16})
    EXPECT_NE(r.find(OpId::exp, DeviceKind::cpu, t), nullptr) << dtype_name(t);
  EXPECT_NE(r.find(OpId::add, DeviceKind::cpu, DType::f32), nullptr);
  EXPECT_NE(r.find(OpId::gemm, DeviceKind::cpu, DType::f32), nullptr);
  EXPECT_NE(r.find(OpId::gemm, DeviceKind::cpu, DType::f64), nullptr);
}

TEST(Dispatch, MissingListsExactlyTheEmptySlots) {
  const KernelRegistry& r = KernelRegistry::instance();
  const std::vector<std::string> missing = r.missing(DeviceKind::cpu);
  EXPECT_TRUE(has(missing, "exp/i32"));
  EXPECT_TRUE(has(missing, "add/bool"));
  EXPECT_FALSE(has(missing, "add/f32"));
  EXPECT_FALSE(has(missing, "copy/bool"));
  std::vector<std::string> expected;
  for (int op = 0; op < kOpCount; ++op)
    for (DType t : kAllDTypes)
      if (r.find(static_cast<OpId>(op), DeviceKind::cpu, t) == nullptr)
        expected.push_back(std::string(op_name(static_cast<OpId>(op))) + "/" + dtype_name(t));
  std::vector<std::string> got = missing;
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
  EXPECT_LT(missing.size(), static_cast<size_t>(kOpCount * kDTypeCount / 2));
  EXPECT_EQ(r.missing(DeviceKind::cuda).size(), static_cast<size_t>(kOpCount * kDTypeCount));
}

TEST(Dispatch, RegisteringANewKernelIsUsedByTheOp) {
  KernelRegistry& r = KernelRegistry::instance();
  ASSERT_EQ(r.find(OpId::add, DeviceKind::cpu, DType::boolean), nullptr);
  const Tensor a = from_vector<double>({0, 1, 0, 1}).to(DType::boolean);
  const Tensor b = from_vector<double>({0, 0, 1, 1}).to(DType::boolean);
  EXPECT_EXADNN_ERROR(add(a, b), "no kernel for op 'add' on device kind 'cpu' with dtype 'bool'");

  register_kernel<BinaryKernel>(OpId::add, DeviceKind::cpu, DType::boolean, &bool_add);
  EXPECT_EQ(r.find(OpId::add, DeviceKind::cpu, DType::boolean),
            reinterpret_cast<AnyKernel>(&bool_add));
  EXPECT_EQ(lookup<BinaryKernel>(OpId::add, DeviceKind::cpu, DType::boolean), &bool_add);
  EXPECT_FALSE(has(r.missing(DeviceKind::cpu), "add/bool"));
  g_calls = 0;
  const Tensor c = add(a, b);
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(c.dtype(), DType::boolean);
  EXPECT_EQ(values(c), (std::vector<double>{0, 1, 1, 1}));
  // Other slots are untouched.
  EXPECT_EQ(r.find(OpId::add, DeviceKind::cuda, DType::boolean), nullptr);
  EXPECT_EQ(r.find(OpId::sub, DeviceKind::cpu, DType::boolean), nullptr);

  r.add(OpId::add, DeviceKind::cpu, DType::boolean, nullptr);  // restore the empty slot
  EXPECT_EQ(r.find(OpId::add, DeviceKind::cpu, DType::boolean), nullptr);
  EXPECT_TRUE(has(r.missing(DeviceKind::cpu), "add/bool"));
  EXPECT_EXADNN_ERROR(add(a, b), "'add'", "'bool'");
  EXPECT_EQ(g_calls, 1);
}

TEST(Dispatch, ReplacingAKernelRedirectsTheOp) {
  KernelRegistry& r = KernelRegistry::instance();
  const AnyKernel original = r.find(OpId::neg, DeviceKind::cpu, DType::f64);
  ASSERT_NE(original, nullptr);
  static int calls = 0;
  UnaryKernel* fake = [](const Tensor& out, const Tensor&, const UnaryParams&) {
    ++calls;
    double* o = out.data<double>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = 42.0;
  };
  register_kernel<UnaryKernel>(OpId::neg, DeviceKind::cpu, DType::f64, fake);
  const std::vector<double> got = values(neg(from_vector<double>({1, 2}, {}, DType::f64)));
  r.add(OpId::neg, DeviceKind::cpu, DType::f64, original);  // restore before asserting
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(got, (std::vector<double>{42, 42}));
  EXPECT_EQ(values(neg(from_vector<double>({1, 2}, {}, DType::f64))),
            (std::vector<double>{-1, -2}));
}
