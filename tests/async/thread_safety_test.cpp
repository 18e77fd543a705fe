// What the workers of AsyncTrainer rely on: per-thread grad mode, a default generator that
// several threads draw from, a thread-safe MemoryManager, and independent graphs that train on
// separate threads exactly as they do alone. Run under ThreadSanitizer too (docs/performance.md).
#include <gtest/gtest.h>
#include <omp.h>

#include <thread>

#include "async_testing.h"
#include "testing.h"

namespace exadnn {
namespace {

template <class F>
void on_threads(int n, F&& f) {
  std::vector<std::thread> pool;
  for (int t = 0; t < n; ++t) pool.emplace_back(f, t);
  for (auto& t : pool) t.join();
}

TEST(ThreadSafety, GradModeIsPerThread) {
  NoGradGuard off;
  bool other = false;
  std::thread([&other] { other = GradMode::is_enabled(); }).join();
  EXPECT_TRUE(other);
  EXPECT_FALSE(GradMode::is_enabled());
}

TEST(ThreadSafety, DefaultGeneratorHandsOutDistinctCounters) {
  // Dropout in several workers draws from the default generator at once: no counter may be
  // handed out twice (the offset used to be a plain integer: lost increments, a data race).
  constexpr int kThreads = 4, kDraws = 5000;
  const uint64_t start = default_generator().offset();
  std::vector<std::vector<uint64_t>> firsts(kThreads);
  on_threads(kThreads, [&firsts](int t) {
    for (int i = 0; i < kDraws; ++i) firsts[t].push_back(default_generator().advance(3));
  });
  EXPECT_EQ(default_generator().offset(), start + uint64_t{3} * kThreads * kDraws);
  std::vector<uint64_t> all;
  for (const auto& f : firsts) all.insert(all.end(), f.begin(), f.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  on_threads(2, [](int) { (void)rand({100}); });  // the factories draw the same way
}

TEST(ThreadSafety, MemoryManagerUnderConcurrentUse) {
  MemoryManager& mm = MemoryManager::instance();
  const int64_t live = mm.stats(MemoryKind::host).live_blocks;
  on_threads(4, [&mm](int t) {
    for (int i = 0; i < 2000; ++i) {
      const size_t n = 64 + static_cast<size_t>((i * 37 + t * 101) % 5000);
      void* p = mm.allocate(MemoryKind::host, n, 0);
      static_cast<char*>(p)[0] = static_cast<char>(i);
      static_cast<char*>(p)[n - 1] = static_cast<char>(t);
      mm.deallocate(MemoryKind::host, p, n, 0);
    }
  });
  EXPECT_EQ(mm.stats(MemoryKind::host).live_blocks, live);
}

TEST(ThreadSafety, IndependentGraphsTrainInParallelAsAlone) {
  // Two models trained at once on two threads end with the bits each gets trained alone.
  Generator gen(5);
  const auto dataset = std::make_shared<data::TensorDataset>(randn({64, 6}, DType::f32, &gen),
                                                             randint(0, 4, {64}, DType::i64, &gen));
  const data::DataLoader loader(dataset, data::DataLoaderOptions().batch_size(8).prefetch(0));
  manual_seed(9);
  std::vector<std::shared_ptr<nn::Module>> alone, together;
  for (int t = 0; t < 2; ++t) {
    alone.push_back(testing::make_mlp(6, 10 + t, 4));
    together.push_back(testing::make_mlp(6, 10 + t, 4));
    together[t]->load_state_dict(alone[t]->state_dict());
  }
  const auto opt = testing::sgd_factory(optim::SGDOptions(0.1).momentum(0.5));
  auto train = [&](nn::Module& m) {
    omp_set_num_threads(1);
    testing::train_serial(m, loader, opt, testing::classification_loss, 3);
  };
  for (int t = 0; t < 2; ++t) std::thread(train, std::ref(*alone[t])).join();
  on_threads(2, [&](int t) { train(*together[t]); });
  for (int t = 0; t < 2; ++t) EXPECT_TRUE(testing::same_bits(*alone[t], *together[t])) << t;
}

}  // namespace
}  // namespace exadnn
