// The fused update kernels: a parameter above the parallel grain (split across threads, SIMD
// blocks with tails) is updated bit-identically to the same values cut into small parameters
// updated serially; every optimizer op is registered for f32 and f64.
#include <memory>
#include <vector>

#include "exadnn/backend/optim_kernels.h"
#include "optim_test_util.h"

using namespace exadnn;
using namespace exadnn::testing::optim_util;

namespace {

TEST(FusedKernels, RegisteredForF32AndF64) {
  for (OpId op :
       {OpId::sgd_step, OpId::adam_step, OpId::adagrad_step, OpId::rmsprop_step, OpId::sum_squares})
    for (DType t : {DType::f32, DType::f64})
      EXPECT_NE(KernelRegistry::instance().find(op, DeviceKind::cpu, t), nullptr)
          << op_name(op) << "/" << dtype_name(t);
}

TEST(FusedKernels, ParallelSplitMatchesSerialPieces) {
  const int64_t n = 70001;  // above kParallelGrain, not a multiple of any block or vector width
  const std::vector<int64_t> cuts{0, 9999, 20001, 33333, 50000, 61111, n};
  for (DType dtype : {DType::f64, DType::f32}) {
    for (const auto& [name, make] : all_optimizers()) {
      SCOPED_TRACE(name + std::string(" ") + dtype_name(dtype));
      Tensor big = make_param({n}, 0.4, dtype);
      std::vector<Tensor> pieces;
      for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        Tensor piece = big.detach().narrow(0, cuts[k], cuts[k + 1] - cuts[k]).clone();
        piece.requires_grad_(true);
        pieces.push_back(piece);
      }
      auto whole = make({big});
      auto split = make(pieces);
      for (int s = 1; s <= 3; ++s) {
        set_grads({big}, s);
        for (size_t k = 0; k < pieces.size(); ++k)
          pieces[k].set_grad(big.grad().narrow(0, cuts[k], cuts[k + 1] - cuts[k]).clone());
        whole->step();
        split->step();
      }
      for (size_t k = 0; k < pieces.size(); ++k)
        EXPECT_TRUE(identical(big.detach().narrow(0, cuts[k], cuts[k + 1] - cuts[k]), pieces[k]))
            << "piece " << k;
    }
  }
}

}  // namespace
