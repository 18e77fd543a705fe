// FullyShardedModel (ZeRO stage 3) against one process on the whole batch (an MLP and a CNN, SGD
// and Adam), the parameters and optimizer state each rank keeps, batch norm's statistics updated
// once, checkpoints moving between sharded and one-process runs, and bad input. Runs on 1-4 ranks.
#include "exadnn/dist/fully_sharded.h"

#include <cstdio>

#include "dist_testing.h"
#include "exadnn/core/memory_manager.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/optim/adam.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;
using testing::FixedBatch;

std::unique_ptr<optim::Optimizer> make_adam(std::vector<Tensor> params) {
  return std::make_unique<optim::Adam>(std::move(params), optim::AdamOptions().lr(0.01));
}
std::unique_ptr<optim::Optimizer> make_sgd(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(0.1).momentum(0.9));
}

// 1×6×6 images → conv 3×3 (4 channels) → ReLU → max pool 2 → flatten → linear to 3 classes.
std::shared_ptr<nn::Sequential> small_cnn(uint64_t seed = 2, bool batch_norm = false) {
  manual_seed(seed);
  auto model = std::make_shared<nn::Sequential>();
  model->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 4, 3).padding(1)));
  if (batch_norm) model->push_back(std::make_shared<nn::BatchNorm2d>(4));
  model->push_back(std::make_shared<nn::ReLU>());
  model->push_back(std::make_shared<nn::MaxPool2d>(2));
  model->push_back(std::make_shared<nn::Flatten>());
  model->push_back(std::make_shared<nn::Linear>(4 * 3 * 3, 3));
  return model;
}

// The fixed batch's 12 rows of 6 values as 12 images of 1×6×6 (each row repeated six times,
// scaled).
Tensor images(const FixedBatch& b) {
  return (b.x.reshape({12, 1, 1, 6}).expand({12, 1, 6, 6}).contiguous() *
          from_vector<float>({1, 0.5, -1, 2, -0.5, 1.5}).reshape({1, 1, 6, 1}));
}

// `steps` steps on rows [begin, begin + count): a one-process model with its optimizer.
void train_whole(nn::Module& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y,
                 int64_t begin, int64_t count, int steps) {
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    nn::cross_entropy(model(x.narrow(0, begin, count)), y.narrow(0, begin, count)).backward();
    opt.step();
  }
}
// The same through a FullyShardedModel, this rank's rows.
void train_sharded(FullyShardedModel& model, const Tensor& x, const Tensor& y, int steps) {
  const Communicator& comm = model.communicator();
  const int64_t rows = x.size(0) / comm.size();
  for (int s = 0; s < steps; ++s) {
    model.zero_grad();
    nn::cross_entropy(model(x.narrow(0, comm.rank() * rows, rows)),
                      y.narrow(0, comm.rank() * rows, rows))
        .backward();
    model.step();
  }
}

::testing::AssertionResult same_state(const StateDict& got, const StateDict& want, double tol) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " entries, want " << want.size();
  for (const auto& [name, t] : want) {
    if (!got.contains(name)) return ::testing::AssertionFailure() << "no entry " << name;
    const auto a = values(got.at(name)), b = values(t);
    if (a.size() != b.size()) return ::testing::AssertionFailure() << name << ": size differs";
    for (size_t k = 0; k < a.size(); ++k)
      if (std::abs(a[k] - b[k]) > tol * std::max(1.0, std::abs(b[k])))
        return ::testing::AssertionFailure()
               << name << " element " << k << ": " << a[k] << " vs " << b[k];
  }
  return ::testing::AssertionSuccess();
}

class FullyShardedTest : public ::testing::TestWithParam<OptimizerFactory> {};

TEST_P(FullyShardedTest, MlpMatchesOneProcessOnTheWholeBatch) {
  Communicator comm = Communicator::world();
  FixedBatch b;
  auto reference = testing::small_mlp();
  auto one = GetParam()(reference->parameters());
  train_whole(*reference, *one, b.x, b.y, 0, 12, 10);

  FullyShardedModel sharded(testing::small_mlp(comm.rank() == 0 ? 1 : 50 + comm.rank()), comm,
                            GetParam());  // rank 0's weights are used
  train_sharded(sharded, b.x, b.y, 10);
  EXPECT_TRUE(same_state(sharded.state_dict(), reference->state_dict(), 1e-5));
  EXPECT_TRUE(same_state(sharded.optimizer_state_dict(), one->state_dict(), 1e-5));
  EXPECT_EQ(sharded.step_count(), 10);
}

TEST_P(FullyShardedTest, CnnMatchesOneProcessOnTheWholeBatch) {
  Communicator comm = Communicator::world();
  FixedBatch b;
  const Tensor x = images(b);
  auto reference = small_cnn();
  auto one = GetParam()(reference->parameters());
  train_whole(*reference, *one, x, b.y, 0, 12, 10);

  FullyShardedModel sharded(small_cnn(), comm, GetParam());
  train_sharded(sharded, x, b.y, 10);
  EXPECT_TRUE(same_state(sharded.state_dict(), reference->state_dict(), 1e-5));
  // Evaluation runs through the same gathers, without recording.
  NoGradGuard no_grad;
  const auto got = values(sharded(x)), want = values((*reference)(x));
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5);
  // Or on the model made whole, until the next forward releases its layers again.
  std::shared_ptr<nn::Module> conv = (*sharded.model())[0];
  sharded.gather_into_model();
  EXPECT_TRUE(same_state(sharded.model()->state_dict(), reference->state_dict(), 1e-5));
  const auto whole = values((*sharded.model())(x));
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(whole[k], want[k], 1e-5);
  sharded(x);
  EXPECT_FALSE(conv->parameters()[0].defined());
}

INSTANTIATE_TEST_SUITE_P(Optimizers, FullyShardedTest,
                         ::testing::Values(OptimizerFactory(make_adam), OptimizerFactory(make_sgd)),
                         [](const auto& info) { return info.index == 0 ? "Adam" : "SGD"; });

// Under bf16 autocast the forward and its recomputation run the same bf16 convolution and matmul
// as data parallel does on this rank's rows; both average f32 gradients over the ranks, so the two
// agree to f32 round-off. (Against one process on the whole batch they differ by more: the split
// changes where partial gradients are rounded to bf16, and 10 steps magnify that to ~1 %.)
TEST(FullyShardedModel, Bf16AutocastMatchesDataParallel) {
  Communicator comm = Communicator::world();
  FixedBatch b;
  const int64_t rows = 12 / comm.size();
  const Tensor x = images(b).narrow(0, comm.rank() * rows, rows);
  const Tensor y = b.y.narrow(0, comm.rank() * rows, rows);
  auto replicated = small_cnn();
  DataParallel ddp(*replicated, comm);
  auto opt = make_sgd(replicated->parameters());
  FullyShardedModel sharded(small_cnn(), comm, make_sgd);
  for (int s = 0; s < 10; ++s) {
    Tensor theirs, mine;
    {
      precision::Autocast bf16(DType::bf16);
      theirs = nn::cross_entropy((*replicated)(x), y);
      mine = nn::cross_entropy(sharded(x), y);
    }
    opt->zero_grad();
    theirs.backward();
    opt->step();
    sharded.zero_grad();
    mine.backward();
    sharded.step();
    EXPECT_NEAR(mine.item<double>(), theirs.item<double>(), 1e-5) << "step " << s;
  }
  EXPECT_TRUE(same_state(sharded.state_dict(), replicated->state_dict(), 1e-5));
}

// A nested Sequential is opened: its layers are units of their own (one gathered at a time).
TEST(FullyShardedModel, NestedSequentialsAreSplitIntoTheirLayers) {
  Communicator comm = Communicator::world();
  FixedBatch b;
  const auto nested = [] {
    manual_seed(4);
    auto inner =
        std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
            std::make_shared<nn::Linear>(6, 16), std::make_shared<nn::Tanh>(),
            std::make_shared<nn::Linear>(16, 8), std::make_shared<nn::Tanh>()});
    return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
        inner, std::make_shared<nn::Linear>(8, 3)});
  };
  auto reference = nested();
  auto one = make_adam(reference->parameters());
  train_whole(*reference, *one, b.x, b.y, 0, 12, 10);
  FullyShardedModel sharded(nested(), comm, make_adam);
  EXPECT_EQ(sharded.shards().size(), 3u);
  EXPECT_EQ(sharded.largest_unit_numel(), 16 * 8 + 8);
  train_sharded(sharded, b.x, b.y, 10);
  EXPECT_TRUE(same_state(sharded.state_dict(), reference->state_dict(), 1e-5));
  EXPECT_TRUE(same_state(sharded.optimizer_state_dict(), one->state_dict(), 1e-5));
}

TEST(FullyShardedModel, BatchNormStatisticsAreUpdatedOncePerStep) {
  Communicator comm = Communicator::world();
  FixedBatch b;
  const int64_t rows = 12 / comm.size();
  const Tensor x = images(b).narrow(0, comm.rank() * rows, rows);
  auto plain = small_cnn(2, true);  // the same layers, run on this rank's rows alone
  nn::cross_entropy((*plain)(x), b.y.narrow(0, comm.rank() * rows, rows)).backward();

  FullyShardedModel sharded(small_cnn(2, true), comm, make_sgd);
  nn::cross_entropy(sharded(x), b.y.narrow(0, comm.rank() * rows, rows)).backward();
  const StateDict got = sharded.state_dict(), want = plain->state_dict();
  // Rank 0's statistics (state_dict's), from rank 0's rows: forward once, not again in backward.
  for (const char* name : {"1.running_mean", "1.running_var"}) {
    Tensor expected = want.at(name).clone();
    comm.broadcast(expected, 0).wait();
    const auto a = values(got.at(name)), e = values(expected);
    for (size_t k = 0; k < e.size(); ++k) EXPECT_NEAR(a[k], e[k], 1e-6) << name;
  }
}

TEST(FullyShardedModel, EachRankKeepsItsShareOfTheParametersAndTheState) {
  Communicator comm = Communicator::world();
  auto& mm = MemoryManager::instance();
  const size_t before = mm.stats(MemoryKind::host).bytes_in_use;
  int64_t n = 0;
  std::unique_ptr<FullyShardedModel> sharded;
  {
    auto model = testing::small_mlp(1, 512);  // 6·512 + 512 + 512·3 + 3 = 5 123 parameters
    n = model->parameter_count();
    sharded = std::make_unique<FullyShardedModel>(model, comm, make_adam);
  }
  const size_t kept = mm.stats(MemoryKind::host).bytes_in_use - before;
  const int64_t p = comm.size();
  EXPECT_EQ(sharded->total_numel(), n);
  EXPECT_EQ(sharded->shard_numel(), (6 * 512 + 512 + p - 1) / p + (512 * 3 + 3 + p - 1) / p);
  EXPECT_EQ(sharded->largest_unit_numel(), 6 * 512 + 512);
  // This rank's blocks of the parameters and of Adam's two buffers (made with the optimizer), and
  // nothing else (allocations are rounded up a little).
  const size_t blocks = static_cast<size_t>(sharded->shard_numel()) * sizeof(float);
  EXPECT_GE(kept, 3 * blocks);
  EXPECT_LE(kept, 3 * blocks + 4096);
  // A step leaves nothing whole behind: no layer's parameters or gradients.
  FixedBatch b;
  train_sharded(*sharded, b.x, b.y, 1);
  sharded->zero_grad();
  const size_t after_step = mm.stats(MemoryKind::host).bytes_in_use - before;
  EXPECT_LE(after_step, kept + 1024);
  if (comm.rank() == 0)
    std::printf(
        "[ FSDP     ] %d ranks: %lld of %lld parameters kept; parameters and Adam state "
        "%zu bytes on this rank (%zu after a step), %lld in one process\n",
        comm.size(), static_cast<long long>(sharded->shard_numel()), static_cast<long long>(n),
        kept, after_step, static_cast<long long>(12 * n));
}

TEST(FullyShardedModel, CheckpointsMoveBetweenShardedAndOneProcess) {
  Communicator comm = Communicator::world();
  FixedBatch b;
  auto reference = testing::small_mlp();
  auto one = make_adam(reference->parameters());
  train_whole(*reference, *one, b.x, b.y, 0, 12, 10);

  // Sharded for 4 steps → one-process layout → one process for 3 steps → sharded for 3 steps.
  StateDict weights, state;
  {
    FullyShardedModel sharded(testing::small_mlp(), comm, make_adam);
    train_sharded(sharded, b.x, b.y, 4);
    weights = sharded.state_dict();
    state = sharded.optimizer_state_dict();
  }
  auto model = testing::small_mlp(9);
  model->load_state_dict(weights);
  auto single = make_adam(model->parameters());
  single->load_state_dict(state);  // the one-process optimizer takes it as its own
  train_whole(*model, *single, b.x, b.y, 0, 12, 3);
  FullyShardedModel resumed(testing::small_mlp(9), comm, make_adam);
  resumed.load_state_dict(model->state_dict());
  resumed.load_optimizer_state_dict(single->state_dict());
  train_sharded(resumed, b.x, b.y, 3);
  EXPECT_TRUE(same_state(resumed.state_dict(), reference->state_dict(), 1e-5));
  EXPECT_EQ(resumed.step_count(), 10);
}

TEST(FullyShardedModel, BadInputIsAnError) {
  Communicator comm = Communicator::world();
  FullyShardedModel sharded(testing::small_mlp(), comm, make_adam);
  const StateDict good = sharded.state_dict();
  auto message = [&](const StateDict& state) -> std::string {
    try {
      sharded.load_state_dict(state);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  StateDict missing, misshapen, extra = good;
  for (const auto& [name, t] : good) {
    if (name != "2.bias") missing.insert(name, t);
    misshapen.insert(name, name == "0.weight" ? zeros({3}) : t);
  }
  extra.insert("9.weight", zeros({1}));
  EXPECT_NE(message(missing).find("'2.bias'"), std::string::npos);
  EXPECT_NE(message(misshapen).find("'0.weight'"), std::string::npos);
  EXPECT_NE(message(extra).find("'9.weight'"), std::string::npos);
  EXPECT_TRUE(same_state(sharded.state_dict(), good, 0));  // nothing changed

  auto doubles = testing::small_mlp();
  doubles->to(DType::f64);
  EXPECT_THROW(FullyShardedModel(doubles, comm, make_adam), Error);
  auto empty_model = std::make_shared<nn::Sequential>();
  empty_model->push_back(std::make_shared<nn::ReLU>());
  EXPECT_THROW(FullyShardedModel(empty_model, comm, make_adam), Error);
}

}  // namespace
}  // namespace exadnn::dist
