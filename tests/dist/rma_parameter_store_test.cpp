// RmaParameterStore and RmaCounter (asynchronous SGD over MPI RMA): one rank is serial SGD bit for
// bit, concurrent accumulates are never lost, reads (also through the updates: read_on_update)
// are never torn, the staleness bound holds, a small problem converges, and the counter hands out
// every ticket once.
#include "exadnn/dist/rma_parameter_store.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "dist_testing.h"

namespace exadnn::dist {
namespace {

using testing::FixedBatch;
auto mlp = [](uint64_t seed = 1) { return testing::small_mlp(seed); };

std::vector<float> flat(nn::Module& m) {
  std::vector<float> out;
  for (const Tensor& p : m.parameters())
    out.insert(out.end(), p.data<float>(), p.data<float>() + p.numel());
  return out;
}

// 20 steps of `opt_for(serial)` on one process against the store on a one-rank communicator.
// With read_on_update, the loop reads only through the updates.
template <class MakeOptimizer, class Update>
void compare_with_serial(MakeOptimizer make_optimizer, Update update, double tolerance,
                         RmaOptions options = {}) {
  const Communicator world = Communicator::world();
  const Communicator alone = world.split(world.rank(), 0);  // every rank tests on its own
  FixedBatch b;
  auto serial = mlp(), model = mlp();
  auto serial_opt = make_optimizer(*serial);
  auto opt = make_optimizer(*model);
  RmaParameterStore store(*model, alone, options);
  for (int s = 0; s < 20; ++s) {
    serial_opt->zero_grad();
    nn::cross_entropy((*serial)(b.x), b.y).backward();
    serial_opt->step();
    if (!options.reads_on_update()) store.read();
    opt->zero_grad();
    nn::cross_entropy((*model)(b.x), b.y).backward();
    update(store, *opt);
  }
  store.finish();
  store.read();
  const std::vector<float> a = flat(*serial), c = flat(*model);
  ASSERT_EQ(a.size(), c.size());
  if (tolerance == 0) {
    EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(float)));
    return;
  }
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], c[i], tolerance) << "element " << i;
}

TEST(RmaParameterStore, OneRankIsSerialSgdBitForBit) {
  compare_with_serial(
      [](nn::Module& m) {
        return std::make_unique<optim::SGD>(m.parameters(), optim::SGDOptions(0.1));
      },
      [](RmaParameterStore& store, optim::Optimizer& opt) { store.apply_gradients(opt.lr()); }, 0);
}

TEST(RmaParameterStore, OneRankReadingOnUpdateIsSerialSgdBitForBit) {
  compare_with_serial(
      [](nn::Module& m) {
        return std::make_unique<optim::SGD>(m.parameters(), optim::SGDOptions(0.1));
      },
      [](RmaParameterStore& store, optim::Optimizer& opt) { store.apply_gradients(opt.lr()); }, 0,
      RmaOptions().read_on_update());
}

TEST(RmaParameterStore, OneRankWithMomentumFollowsSerial) {
  compare_with_serial(
      [](nn::Module& m) {
        return std::make_unique<optim::SGD>(m.parameters(), optim::SGDOptions(0.1).momentum(0.9));
      },
      [](RmaParameterStore& store, optim::Optimizer& opt) { store.step(opt); }, 1e-5);
}

// A module whose 1000 parameters are all zero.
std::shared_ptr<nn::Linear> zero_module() {
  auto m = std::make_shared<nn::Linear>(99, 10);
  NoGradGuard no_grad;
  for (const Tensor& p : m->parameters()) fill_(p, 0.0);
  return m;
}

// Every rank adds +1 to every element K times, at the same time as the others, reading in
// between: every element read is a whole number of increments, never torn, and at least this
// rank's own. `options`: atomic reads, or reads through the updates (read_on_update).
void expect_concurrent_accumulates_never_lost(RmaOptions options) {
  const Communicator comm = Communicator::world();
  constexpr int K = 1000;
  auto model = zero_module();
  RmaParameterStore store(*model, comm, options);
  ASSERT_EQ(store.numel(), 1000);
  ASSERT_EQ(store.shard_begin(comm.size()), 1000);
  const std::vector<float> ones(1000, 1.0f);
  for (int k = 0; k < K; ++k) {
    store.accumulate(ones.data());
    if (k % 100 == 0) {
      if (!options.reads_on_update()) store.read();
      for (float v : flat(*model)) {
        ASSERT_EQ(v, std::floor(v));
        ASSERT_GE(v, k + 1);
        ASSERT_LE(v, comm.size() * K);
      }
    }
  }
  EXPECT_EQ(store.updates(), K);
  store.finish();
  store.read();
  for (float v : flat(*model)) ASSERT_EQ(v, static_cast<float>(comm.size() * K));
}

TEST(RmaParameterStore, ConcurrentAccumulatesAreNeverLost) {
  expect_concurrent_accumulates_never_lost(RmaOptions().atomic_reads());
}

TEST(RmaParameterStore, ConcurrentAccumulatesReadingOnUpdateAreNeverLost) {
  expect_concurrent_accumulates_never_lost(RmaOptions().read_on_update());
}

// Ranks update one after another: each update's read is the sum of every update so far.
TEST(RmaParameterStore, AReadOnUpdateSeesEveryEarlierUpdateAndItsOwn) {
  const Communicator comm = Communicator::world();
  auto model = zero_module();
  RmaParameterStore store(*model, comm, RmaOptions().read_on_update());
  std::vector<float> delta(1000);
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) {
      for (size_t i = 0; i < delta.size(); ++i) delta[i] = static_cast<float>((r + 1) * i % 7);
      store.accumulate(delta.data());
      const std::vector<float> got = flat(*model);
      for (size_t i = 0; i < got.size(); ++i) {
        float expected = 0;  // ranks 0..r, in turn
        for (int q = 0; q <= r; ++q) expected += static_cast<float>((q + 1) * i % 7);
        ASSERT_EQ(got[i], expected) << "element " << i << " on rank " << r;
      }
    }
    comm.barrier().wait();
  }
  store.finish();
}

// Rank r sleeps r ms per update, so the bound has something to hold back.
TEST(RmaParameterStore, NoRankGetsMoreThanStalenessUpdatesAhead) {
  const Communicator comm = Communicator::world();
  constexpr int64_t kBound = 2;
  auto model = zero_module();
  RmaParameterStore store(*model, comm, RmaOptions().staleness(kBound));
  const std::vector<float> ones(1000, 1.0f);
  for (int k = 0; k < 30; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(comm.rank()));
    store.accumulate(ones.data());
    for (int64_t c : store.update_counts()) ASSERT_LE(store.updates() - c, kBound);
  }
  store.finish();
  store.read();
  for (float v : flat(*model)) ASSERT_EQ(v, static_cast<float>(comm.size() * 30));
}

// Ranks run out of work unevenly (batches claimed first come, first served) and then meet in a
// collective: a paused rank is not waited for, and its next update counts it again.
TEST(RmaParameterStore, APausedRankIsNotWaitedFor) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm.set_timeout(std::chrono::seconds(10));  // without pause(): a TimeoutError, not a hang
  auto model = zero_module();
  RmaParameterStore store(*model, comm, RmaOptions().staleness(1));
  const std::vector<float> ones(1000, 1.0f);
  const int updates = comm.rank() == 0 ? 5 : 1;  // rank 0 ends 4 updates ahead
  for (int k = 0; k < updates; ++k) store.accumulate(ones.data());
  store.pause();
  EXPECT_EQ(store.update_counts()[static_cast<size_t>(comm.rank())], INT64_MAX);
  comm.barrier().wait();   // where the others wait while rank 0 finishes its updates
  if (comm.rank() != 0) {  // a paused rank's next update counts it again, with its true count
    store.accumulate(ones.data());
    EXPECT_EQ(store.update_counts()[static_cast<size_t>(comm.rank())], 2);
  }
  comm.barrier().wait();
  store.finish();
  store.read();
  const float expected = static_cast<float>(5 + 2 * (comm.size() - 1));
  for (float v : flat(*model)) ASSERT_EQ(v, expected);
}

// Linear regression with a planted solution; every rank draws its own examples and updates
// asynchronously (momentum, staleness bound 4); all end at the same, nearly exact weights.
TEST(RmaParameterStore, ConvergesOnAPlantedLinearRegression) {
  const Communicator comm = Communicator::world();
  Generator truth(3);
  const Tensor w = randn({10, 1}, TensorOptions(), &truth);
  manual_seed(5);
  auto model = std::make_shared<nn::Linear>(nn::LinearOptions(10, 1).bias(false));
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.02).momentum(0.5));
  RmaParameterStore store(*model, comm, RmaOptions().staleness(4));
  Generator gen(100 + static_cast<uint64_t>(comm.rank()));
  for (int s = 0; s < 300; ++s) {
    store.read();
    const Tensor x = randn({16, 10}, TensorOptions(), &gen);
    opt.zero_grad();
    nn::mse_loss((*model)(x), matmul(x, w)).backward();
    store.step(opt);
  }
  store.finish();
  store.read();
  const std::vector<float> got = flat(*model);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(got[size_t(i)], w.data<float>()[i], 1e-3) << i;
  Tensor mine = from_vector<float>(got), root = mine.clone();
  comm.broadcast(root, 0).wait();
  EXPECT_EQ(0, std::memcmp(mine.data<float>(), root.data<float>(), got.size() * sizeof(float)));
}

TEST(RmaCounter, HandsOutEveryTicketOnce) {
  const Communicator comm = Communicator::world();
  constexpr int64_t kTickets = 500;
  Tensor mine = from_vector<int64_t>({0, 0});  // tickets taken, their sum
  {
    RmaCounter counter(comm);
    for (int64_t t = counter.fetch_add(); t < kTickets; t = counter.fetch_add()) {
      mine.data<int64_t>()[0] += 1;
      mine.data<int64_t>()[1] += t;
    }
  }
  comm.allreduce(mine).wait();
  EXPECT_EQ(mine.data<int64_t>()[0], kTickets);
  EXPECT_EQ(mine.data<int64_t>()[1], kTickets * (kTickets - 1) / 2);
}

}  // namespace
}  // namespace exadnn::dist
