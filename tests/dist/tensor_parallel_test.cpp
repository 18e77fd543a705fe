// The differentiable collectives (dist/parallel_ops.h) against hand-computed values and gradients,
// and the tensor-parallel layers and loss (dist/tensor_parallel.h) against their one-process twins:
// equal losses and weights after 10 SGD steps, 1/P of the parameters per rank, clear errors for
// splits that do not divide. Runs on 1, 2, 3 and 4 ranks.
#include "exadnn/dist/tensor_parallel.h"

#include <cmath>

#include "dist_testing.h"
#include "exadnn/dist/parallel_ops.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;

// [2, 3·P] with element (i, j) = 100·rank + 10·i + j: different on every rank.
Tensor rank_tensor(const Communicator& comm, int64_t cols_per_rank = 3) {
  const int64_t cols = cols_per_rank * comm.size();
  std::vector<double> v;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < cols; ++j) v.push_back(100.0 * comm.rank() + 10.0 * i + j);
  return from_vector<double>(v, {2, cols}).requires_grad_(true);
}

// Σ_q of element (i, j) of rank_tensor over the ranks q.
double summed_element(const Communicator& comm, int64_t i, int64_t j) {
  const int64_t p = comm.size();
  return 100.0 * p * (p - 1) / 2 + p * (10.0 * i + j);
}

// Backward of sum(y · w) where w = (rank + 1) everywhere: dy = rank + 1 on each rank.
void backward_with_rank_weight(const Tensor& y, const Communicator& comm) {
  sum(y * full(y.shape(), comm.rank() + 1.0, TensorOptions().dtype(y.dtype()))).backward();
}
double rank_weight_sum(const Communicator& comm) {
  const int64_t p = comm.size();
  return p * (p + 1) / 2.0;
}

TEST(ParallelOps, CopyIsIdentityForwardAndSumsGradients) {
  Communicator comm = Communicator::world();
  const Tensor x = rank_tensor(comm);
  const Tensor y = copy_to_group(x, comm);
  EXPECT_EQ(values(y), values(x));
  backward_with_rank_weight(y, comm);
  for (double g : values(x.grad())) EXPECT_EQ(g, rank_weight_sum(comm));
}

TEST(ParallelOps, ReduceSumsForwardAndPassesGradients) {
  Communicator comm = Communicator::world();
  const Tensor x = rank_tensor(comm);
  const Tensor y = reduce_from_group(x, comm);
  const auto v = values(y);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < x.size(1); ++j)
      EXPECT_EQ(v[static_cast<size_t>(i * x.size(1) + j)], summed_element(comm, i, j));
  backward_with_rank_weight(y, comm);
  for (double g : values(x.grad())) EXPECT_EQ(g, comm.rank() + 1.0);
}

TEST(ParallelOps, AllGatherConcatenatesInRankOrderAndReduceScattersGradients) {
  Communicator comm = Communicator::world();
  const Tensor x = rank_tensor(comm, 1);  // [2, P]: concatenated along dim 1 → [2, P·P]
  const Tensor y = all_gather(x, comm, 1);
  ASSERT_EQ(y.shape(), (Shape{2, comm.size() * comm.size()}));
  const auto v = values(y);
  for (int64_t q = 0; q < comm.size(); ++q)  // block q is rank q's x
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < comm.size(); ++j)
        EXPECT_EQ(v[static_cast<size_t>(i * y.size(1) + q * comm.size() + j)],
                  100.0 * q + 10.0 * i + j);
  backward_with_rank_weight(y, comm);  // every rank's block r gets Σ_q (q + 1)
  for (double g : values(x.grad())) EXPECT_EQ(g, rank_weight_sum(comm));
}

TEST(ParallelOps, ReduceScatterKeepsOwnSummedBlockAndAllGathersGradients) {
  Communicator comm = Communicator::world();
  const Tensor x = rank_tensor(comm);  // [2, 3·P] → [2, 3]: block r of the sum
  const Tensor y = reduce_scatter(x, comm, 1);
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  const auto v = values(y);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(v[static_cast<size_t>(i * 3 + j)], summed_element(comm, i, 3 * comm.rank() + j));
  backward_with_rank_weight(y, comm);  // the gradient's block q is rank q's dy = q + 1
  const auto g = values(x.grad());
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < x.size(1); ++j)
      EXPECT_EQ(g[static_cast<size_t>(i * x.size(1) + j)], j / 3 + 1.0);
}

TEST(ParallelOps, ScatterAndGatherAreAdjointOnReplicatedTensors) {
  Communicator comm = Communicator::world();
  manual_seed(5);
  const Tensor x = randn({4, 2 * comm.size()}, TensorOptions().dtype(DType::f64).requires_grad());
  const Tensor mine = scatter_to_group(x, comm, 1);  // [4, 2]
  EXPECT_EQ(values(mine), values(x.detach().narrow(1, 2 * comm.rank(), 2).contiguous()));
  const Tensor back = gather_from_group(mine, comm, 1);  // replicated again
  EXPECT_EQ(values(back), values(x.detach()));
  // A replicated loss of the replicated result: the whole gradient reaches x on every rank.
  sum(back * back).backward();
  const auto g = values(x.grad()), xv = values(x.detach());
  for (size_t k = 0; k < g.size(); ++k) EXPECT_DOUBLE_EQ(g[k], 2.0 * xv[k]);
}

TEST(ParallelOps, SplitsThatDoNotDivideAreErrors) {
  Communicator comm = Communicator::world();
  if (comm.size() == 1) GTEST_SKIP() << "every size divides over one rank";
  const Tensor x = zeros({2, comm.size() + 1});
  EXPECT_THROW(reduce_scatter(x, comm, 1), Error);
  EXPECT_THROW(scatter_to_group(x, comm, 1), Error);
  EXPECT_THROW(all_gather(x, comm, 5), Error);
}

TEST(ParallelOps, SendAndReceiveCarryValuesForwardAndGradientsBack) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  // One process: y = sum(tanh(x · W)); rank 0 computes x · W and sends it, rank 1 the rest.
  manual_seed(2);
  const Tensor x = randn({3, 4}, TensorOptions(DType::f64));
  const Tensor w = randn({4, 5}, TensorOptions(DType::f64).requires_grad());
  sum(tanh(matmul(x, w))).backward();
  const auto want = values(w.grad());
  const Tensor w2 = w.detach().clone().requires_grad_(true);
  if (comm.rank() == 0) {
    const Tensor token = send_to(matmul(x, w2), comm, 1, 7);
    EXPECT_EQ(token.numel(), 1);
    token.backward();  // receives d(x · W) from rank 1
    const auto got = values(w2.grad());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12);
  } else if (comm.rank() == 1) {
    const Tensor h = recv_from(comm, 0, 7);
    EXPECT_EQ(h.shape(), (Shape{3, 5}));
    EXPECT_TRUE(h.requires_grad());
    sum(tanh(h)).backward();  // sends d(x · W) back to rank 0
  }
  comm.barrier().wait();
}

// --- layers --------------------------------------------------------------------------------------

constexpr int64_t kIn = 6, kHidden = 24, kOut = 12;  // 24 and 12 divide over 1, 2, 3 and 4

std::shared_ptr<nn::Sequential> one_process_mlp(uint64_t seed) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(kIn, kHidden), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(kHidden, kOut)});
}

// 10 SGD steps of cross-entropy on a fixed batch; the losses of every step.
std::vector<double> train_steps(nn::Module& model, int steps = 10) {
  Generator gen(11);
  const Tensor x = randn({16, kIn}, TensorOptions(), &gen);
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < 16; ++i) labels.push_back((i * 5) % kOut);
  const Tensor y = from_vector<int64_t>(labels);
  return testing::sgd_losses(model, x, y, steps, 0.1);
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double rtol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LE(std::abs(a[i] - b[i]), rtol * std::max(1.0, std::abs(b[i]))) << "element " << i;
}

TEST(TensorParallel, ColumnAndRowLayersStartAsTheirOneProcessTwin) {
  Communicator comm = Communicator::world();
  manual_seed(3);
  nn::Linear twin(kHidden, kOut);  // both sizes divide over 1..4 ranks
  manual_seed(3);
  ColumnParallelLinear column(kHidden, kOut, comm);
  EXPECT_EQ(values(column.full_weight()), values(twin.weight.detach()));
  EXPECT_EQ(values(column.full_bias()), values(twin.bias.detach()));
  manual_seed(3);
  RowParallelLinear row(kHidden, kOut, comm);
  EXPECT_EQ(values(row.full_weight()), values(twin.weight.detach()));
  const Tensor x = randn({5, kHidden});
  expect_close(values(column(x)), values(twin(x)), 1e-6);
  expect_close(values(row(x)), values(twin(x)), 1e-6);
}

TEST(TensorParallel, ParallelMlpTrainsLikeOneProcess) {
  Communicator comm = Communicator::world();
  auto reference = one_process_mlp(9);
  const auto reference_losses = train_steps(*reference);
  manual_seed(9);
  ParallelMLP mlp(kIn, kHidden, kOut, comm, "relu");
  expect_close(train_steps(mlp), reference_losses, 1e-5);
  auto& first = dynamic_cast<nn::Linear&>(*reference->children()[0].second);
  auto& second = dynamic_cast<nn::Linear&>(*reference->children()[2].second);
  expect_close(values(mlp.up->full_weight()), values(first.weight.detach()), 1e-5);
  expect_close(values(mlp.up->full_bias()), values(first.bias.detach()), 1e-5);
  expect_close(values(mlp.down->full_weight()), values(second.weight.detach()), 1e-5);
  expect_close(values(mlp.down->bias.detach()), values(second.bias.detach()), 1e-5);
}

TEST(TensorParallel, EachRankHoldsItsShareOfTheParameters) {
  Communicator comm = Communicator::world();
  manual_seed(1);
  ParallelMLP mlp(kIn, kHidden, kOut, comm);
  const int64_t split = (kIn * kHidden + kHidden + kHidden * kOut) / comm.size();
  EXPECT_EQ(mlp.parameter_count(), split + kOut);  // the output bias is replicated
}

TEST(TensorParallel, ClassParallelCrossEntropyMatchesCrossEntropy) {
  Communicator comm = Communicator::world();
  Generator gen(4);
  const Tensor logits = randn({8, kOut}, TensorOptions().dtype(DType::f64), &gen);
  const Tensor target = from_vector<int64_t>({0, 11, 5, 3, 7, 7, 2, 10});
  const Tensor whole = logits.detach().clone().requires_grad_(true);
  Tensor reference = nn::cross_entropy(whole, target);
  reference.backward();

  const int64_t block = kOut / comm.size();
  const Tensor mine =
      logits.detach().narrow(1, comm.rank() * block, block).contiguous().requires_grad_(true);
  Tensor loss = class_parallel_cross_entropy(mine, target, comm);
  EXPECT_NEAR(loss.item<double>(), reference.item<double>(), 1e-12);
  loss.backward();
  expect_close(values(mine.grad()),
               values(whole.grad().narrow(1, comm.rank() * block, block).contiguous()), 1e-12);
  EXPECT_THROW(
      class_parallel_cross_entropy(mine, from_vector<int64_t>({0, 1, 2, 3, 4, 5, 6, 99}), comm),
      Error);
}

TEST(TensorParallel, LayoutsThatDoNotDivideAreErrorsOnEveryRank) {
  Communicator comm = Communicator::world();
  if (comm.size() == 1) GTEST_SKIP() << "every size divides over one rank";
  EXPECT_THROW(ColumnParallelLinear(kIn, comm.size() + 1, comm), Error);
  EXPECT_THROW(RowParallelLinear(comm.size() + 1, kOut, comm), Error);
  EXPECT_THROW(ParallelMLP(kIn, kHidden, kOut, comm, "swish"), Error);
  comm.barrier().wait();  // every rank got here: nobody hangs in a collective
}

}  // namespace
}  // namespace exadnn::dist
