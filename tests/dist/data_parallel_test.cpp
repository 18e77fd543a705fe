// DataParallel and GradientReducer: equivalence with one process on the whole batch, fusion on and
// off, awkward bucket sizes and dtypes, gradient accumulation, layout mismatches.
#include "exadnn/dist/data_parallel.h"

#include <cmath>
#include <cstdlib>

#include "dist_testing.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/optim/grad_scaler.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;
using testing::FixedBatch;
auto mlp = [](uint64_t seed = 1, int64_t hidden = 16) { return testing::small_mlp(seed, hidden); };

using testing::same_weights;
// Trains `model` for `steps` SGD steps on rows [begin, begin + count) of the fixed batch.
void train(nn::Module& model, int64_t begin, int64_t count, int steps) {
  testing::train_on_fixed_batch(model, begin, count, steps);
}

// Every test that reduces runs over both transports (on one node, as here, both are possible).
class TransportTest : public ::testing::TestWithParam<ReducerTransport> {};
const auto kTransports = ::testing::Values(ReducerTransport::mpi, ReducerTransport::shared_memory);
std::string transport_label(const ::testing::TestParamInfo<ReducerTransport>& info) {
  return to_string(info.param);
}

TEST_P(TransportTest, ShardsMatchOneProcessOnTheWholeBatch) {
  Communicator comm = Communicator::world();
  const int64_t shard = 12 / comm.size();
  auto reference = mlp();
  train(*reference, 0, 12, 10);  // one process, whole batch

  auto model = mlp(comm.rank() == 0 ? 1 : comm.rank() + 100);  // the wrap broadcasts rank 0's
  auto rank0_init = mlp();
  DataParallel ddp(*model, comm, ReducerOptions().transport(GetParam()));
  EXPECT_TRUE(same_weights(*model, *rank0_init, 0));
  train(*model, comm.rank() * shard, shard, 10);
  EXPECT_TRUE(same_weights(*model, *reference, 1e-6));
}

TEST_P(TransportTest, AveragedGradientsArePrivateToEachRank) {
  // Clipping or unscaling gradients in place on one rank must not touch another rank's.
  Communicator comm = Communicator::world();
  std::vector<Tensor> params{zeros({1000}, TensorOptions().requires_grad())};
  GradientReducer reducer(params, comm, ReducerOptions().transport(GetParam()));
  for (int step = 0; step < 3; ++step) {
    params[0].set_grad(full({1000}, comm.rank() + 1.0));
    reducer.mark_ready(0);
    reducer.finish();
    const double average = (comm.size() + 1) / 2.0;
    EXPECT_TRUE(exadnn::testing::all_close(params[0].grad(), full({1000}, average)));
    mul_(params[0].grad(), 10.0 * (comm.rank() + 1));  // this rank's own business
    comm.barrier().wait();
    EXPECT_TRUE(exadnn::testing::all_close(params[0].grad(),
                                           full({1000}, average * 10 * (comm.rank() + 1))))
        << "step " << step;
    comm.barrier().wait();
  }
}

TEST(Reducer, TransportIsChosenAndNamed) {
  Communicator comm = Communicator::world();
  std::vector<Tensor> params{zeros({10}, TensorOptions().requires_grad())};
  const std::string automatic = comm.size() == 1                          ? "none"
                                : std::getenv("EXADNN_REDUCER_TRANSPORT") ? ""
                                                                          : "shared memory";
  if (!automatic.empty()) EXPECT_EQ(GradientReducer(params, comm).transport_name(), automatic);
  EXPECT_STREQ(GradientReducer(params, comm, ReducerOptions().transport(ReducerTransport::mpi))
                   .transport_name(),
               comm.size() == 1 ? "none" : "mpi");
  EXPECT_EQ(parse_reducer_transport("shared_memory", "test"), ReducerTransport::shared_memory);
  EXPECT_STREQ(GradientReducer({}, comm).transport_name(), "none");  // no parameters: nothing
  if (comm.size() > 1) {  // ranks that disagree are told so (instead of hanging)
    const auto mine = comm.rank() == 1 ? ReducerTransport::mpi : ReducerTransport::shared_memory;
    EXPECT_EXADNN_ERROR(GradientReducer(params, comm, ReducerOptions().transport(mine)),
                        "rank 1 asks for the mpi gradient transport", "must agree");
  }
  EXPECT_EXADNN_ERROR(parse_reducer_transport("nccl", "distributed.transport"),
                      "unknown gradient transport 'nccl'; expected auto, mpi or shared_memory");
}

TEST_P(TransportTest, FusedAndUnfusedGiveTheSameWeights) {
  Communicator comm = Communicator::world();
  const int64_t shard = 12 / comm.size();
  auto fused = mlp(), unfused = mlp();
  DataParallel a(*fused, comm, ReducerOptions().transport(GetParam()));
  DataParallel b(*unfused, comm, ReducerOptions().bucket_bytes(0).transport(GetParam()));
  EXPECT_EQ(a.reducer().num_buckets(), 1u);
  EXPECT_EQ(b.reducer().num_buckets(), 4u);
  train(*fused, comm.rank() * shard, shard, 5);
  train(*unfused, comm.rank() * shard, shard, 5);
  EXPECT_TRUE(same_weights(*fused, *unfused, 1e-6));
}

TEST_P(TransportTest, NoSyncAccumulatesThenAveragesOnce) {
  Communicator comm = Communicator::world();
  auto model = mlp();
  DataParallel ddp(*model, comm, ReducerOptions().transport(GetParam()));
  FixedBatch b;
  const int r = comm.rank();
  auto loss_on = [&](int64_t row) {
    return nn::cross_entropy((*model)(b.x.narrow(0, row, 1)), b.y.narrow(0, row, 1));
  };
  {
    auto guard = ddp.no_sync();
    loss_on(r).backward();  // local only
  }
  loss_on((r + 1) % 12).backward();  // accumulates, then averages the sum over ranks
  const Tensor synced = model->parameters()[0].grad().clone();

  // Reference: every rank's two-row gradient, averaged.
  auto ref = mlp();
  Tensor sum_of_grads;
  for (int q = 0; q < comm.size(); ++q) {
    for (Tensor p : ref->parameters()) p.zero_grad();
    for (int64_t row : {int64_t(q), int64_t((q + 1) % 12)})
      nn::cross_entropy((*ref)(b.x.narrow(0, row, 1)), b.y.narrow(0, row, 1)).backward();
    Tensor g = ref->parameters()[0].grad();
    sum_of_grads = sum_of_grads.defined() ? sum_of_grads + g : g.clone();
  }
  EXPECT_TRUE(exadnn::testing::all_close(synced, sum_of_grads * (1.0 / comm.size())));
}

// fp16-style loss scaling under data parallelism: one rank's gradients are NaN at step 2, the
// ranks agree on the verdict (GradScalerOptions::overflow_agreement), so every rank skips the
// same steps, backs off to the same scale and keeps the same weights.
TEST_P(TransportTest, LossScalingSkipsTheSameStepsOnEveryRank) {
  Communicator comm = Communicator::world();
  const int64_t shard = 12 / comm.size();
  auto model = mlp();
  DataParallel ddp(*model, comm, ReducerOptions().transport(GetParam()));
  const auto any_rank = [&comm](bool flag) {
    Tensor t = from_vector<int32_t>({flag ? 1 : 0});
    comm.allreduce(t, ReduceOp::max).wait();
    return t.data<int32_t>()[0] != 0;
  };
  optim::GradScaler scaler(
      optim::GradScalerOptions().init_scale(1024).overflow_agreement(any_rank));
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1));
  FixedBatch b;
  std::vector<int32_t> skipped;
  for (int step = 0; step < 5; ++step) {
    Tensor x = b.x.narrow(0, comm.rank() * shard, shard);
    // The last rank's inputs turn its gradients to NaN at step 2 only.
    if (step == 2 && comm.rank() == comm.size() - 1) x = x * std::nan("");
    opt.zero_grad();
    scaler.scale(nn::cross_entropy((*model)(x), b.y.narrow(0, comm.rank() * shard, shard)))
        .backward();
    skipped.push_back(scaler.step(opt) ? 0 : 1);
    scaler.update();
  }
  EXPECT_EQ(skipped, (std::vector<int32_t>{0, 0, 1, 0, 0}));
  // Every rank: the same skips, the same scale, the same weights (max over ranks == min).
  for (size_t i = 0; i < skipped.size(); ++i) {
    Tensor hi = from_vector<int32_t>({skipped[i]}), lo = hi.clone();
    comm.allreduce(hi, ReduceOp::max).wait();
    comm.allreduce(lo, ReduceOp::min).wait();
    EXPECT_EQ(hi.data<int32_t>()[0], lo.data<int32_t>()[0]) << "step " << i;
  }
  Tensor scale = from_vector<double>({scaler.get_scale()});
  comm.allreduce(scale, ReduceOp::max).wait();
  EXPECT_EQ(scale.data<double>()[0], scaler.get_scale());
  EXPECT_EQ(scaler.get_scale(), 512);  // backed off once
  for (const Tensor& p : model->parameters()) {
    Tensor hi = p.detach().clone(), lo = p.detach().clone();
    comm.allreduce(hi, ReduceOp::max).wait();
    comm.allreduce(lo, ReduceOp::min).wait();
    EXPECT_EQ(values(hi), values(lo));
  }
}

// The agreement alone, without averaging: only the last rank's gradients are NaN, yet every rank
// skips that step (a rank deciding alone would step and fall out of line with the others).
TEST(LossScaling, OverflowAgreementMakesEveryRankSkipTogether) {
  Communicator comm = Communicator::world();
  auto model = mlp();
  const auto any_rank = [&comm](bool flag) {
    Tensor t = from_vector<int32_t>({flag ? 1 : 0});
    comm.allreduce(t, ReduceOp::max).wait();
    return t.data<int32_t>()[0] != 0;
  };
  optim::GradScaler scaler(optim::GradScalerOptions().overflow_agreement(any_rank));
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1));
  FixedBatch b;
  for (int step = 0; step < 3; ++step) {
    Tensor x = b.x;
    if (step == 1 && comm.rank() == comm.size() - 1) x = x * std::nan("");
    opt.zero_grad();
    scaler.scale(nn::cross_entropy((*model)(x), b.y)).backward();
    EXPECT_EQ(scaler.step(opt), step != 1) << "rank " << comm.rank() << ", step " << step;
    scaler.update();
  }
}

INSTANTIATE_TEST_SUITE_P(DataParallel, TransportTest, kTransports, transport_label);

TEST(DataParallel, DifferentModelsOnDifferentRanksAreRefused) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto model = mlp(1, comm.rank() == 1 ? 17 : 16);  // rank 1 has another hidden width
  EXPECT_EXADNN_ERROR(DataParallel(*model, comm), "rank 1's gradient buckets differ from rank 0's");
}

// Parameters of awkward sizes whose gradient on rank r is (r + 1) * (index + 1).
class ReducerTest : public ::testing::TestWithParam<std::tuple<DType, ReducerTransport>> {};

TEST_P(ReducerTest, AwkwardBucketsAverage) {
  const auto [dt, transport] = GetParam();
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p = comm.size();
  std::vector<Tensor> params;
  for (int64_t n : {3, 1000, 70000, 5, 1})
    params.push_back(zeros({n}, TensorOptions().dtype(dt).requires_grad()));
  // First bucket 2 KiB, others 100 KiB: the 70 000-element tensor gets a bucket of its own.
  GradientReducer reducer(
      params, comm,
      ReducerOptions().first_bucket_bytes(2048).bucket_bytes(100 << 10).transport(transport));
  EXPECT_GE(reducer.num_buckets(), 3u) << reducer.layout();
  for (int step = 0; step < 2; ++step) {
    for (size_t k = params.size(); k-- > 0;) {  // arrive in reverse, like backward
      if (k == 3) continue;                     // parameter 3 gets no gradient: zeros
      params[k].set_grad(full(params[k].shape(), (r + 1) * (k + 1), TensorOptions().dtype(dt)));
      reducer.mark_ready(k);
    }
    reducer.finish();
    // Exact when p is a power of two (dividing by p is then exact), within the dtype's
    // tolerance otherwise.
    const bool exact = (p & (p - 1)) == 0;
    for (size_t k = 0; k < params.size(); ++k) {
      const double expected = k == 3 ? 0.0 : (k + 1) * (p + 1) / 2.0;
      const auto v = values(params[k].grad());
      if (exact) {
        EXPECT_EQ(*std::min_element(v.begin(), v.end()), expected) << "param " << k;
        EXPECT_EQ(*std::max_element(v.begin(), v.end()), expected) << "param " << k;
      } else {
        EXPECT_TRUE(exadnn::testing::all_close(params[k].grad(),
                                               std::vector<double>(v.size(), expected),
                                               exadnn::testing::tolerance_for(dt)))
            << "param " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Reducer, ReducerTest,
                         ::testing::Combine(::testing::Values(DType::f32, DType::f64, DType::bf16,
                                                              DType::f16),
                                            kTransports),
                         [](const auto& info) {
                           return std::string(dtype_name(std::get<0>(info.param))) + "_" +
                                  to_string(std::get<1>(info.param));
                         });

TEST(Reducer, BucketsFollowReverseOrderAndDtype) {
  Communicator comm = Communicator::world();
  std::vector<Tensor> params{zeros({10}, TensorOptions().requires_grad()),
                             zeros({10}, TensorOptions().dtype(DType::f64).requires_grad()),
                             zeros({10}, TensorOptions().requires_grad())};
  GradientReducer reducer(params, comm);
  ASSERT_EQ(reducer.num_buckets(), 3u) << reducer.layout();  // f32 | f64 | f32
  EXPECT_EQ(reducer.bucket_params(0), (std::vector<size_t>{2}));
  EXPECT_EQ(reducer.bucket_params(1), (std::vector<size_t>{1}));
  EXPECT_EQ(reducer.bucket_params(2), (std::vector<size_t>{0}));
}

}  // namespace
}  // namespace exadnn::dist
