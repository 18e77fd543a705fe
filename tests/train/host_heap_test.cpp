// keep_freed_host_memory (core/host_heap.h): the Fashion-MNIST CNN's training steps, as
// `exadnn train` runs them, fault no pages in once warm. Before it, glibc gave the heap's top back
// to the kernel after each step's transient mallocs (oneDNN's GEMM workspaces) and every step
// faulted ~60-90 pages in again. Each test runs in a process of its own (gtest_discover_tests), so
// the malloc setting made here reaches no other test.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "exadnn/core/host_heap.h"
#include "exadnn/train/config.h"
#include "exadnn/train/model_builder.h"
#include "testing.h"

using namespace exadnn;

namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The model of configs/fashion_mnist_cnn.yaml, built as `exadnn train` builds it.
std::shared_ptr<nn::Sequential> fashion_cnn() {
  const train::TrainConfig config =
      train::load_config(std::string(EXADNN_SOURCE_DIR) + "/configs/fashion_mnist_cnn.yaml");
  return train::build_model(config.model, {1, 28, 28});
}

}  // namespace

TEST(HostHeap, CnnTrainingStepsFaultNoPagesInOnceWarm) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's malloc (and holds freed blocks "
                  "in quarantine): the setting does not reach it";
#endif
  if (!keep_freed_host_memory())
    GTEST_SKIP() << "malloc's thresholds are the environment's (MALLOC_*, GLIBC_TUNABLES or "
                    "EXADNN_KEEP_FREED_MEMORY=0), or the C library is not glibc";
  manual_seed(0);
  const auto model = fashion_cnn();
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  // 20 batches of 128 random images, shuffled and assembled by the loader's worker thread.
  const int64_t steps = 20;
  data::DataLoader loader(std::make_shared<data::TensorDataset>(
                              rand({steps * 128, 1, 28, 28}),
                              randint(0, 10, {steps * 128}, TensorOptions().dtype(DType::i64))),
                          data::DataLoaderOptions().batch_size(128).shuffle().seed(1));
  auto epoch = [&] {
    for (const data::Batch& b : loader) {
      sgd.zero_grad();
      nn::cross_entropy(model->forward(b.inputs), b.targets).backward();
      sgd.step();
    }
  };
  epoch();  // warm: the caching allocator's blocks, oneDNN's primitives, the heap's size
  epoch();
  // The fewest faults of five further epochs. The defect faults pages in again at every step, so
  // it shows in every epoch. Apart from it, an epoch now and then faults 100-400 pages in at once
  // (130 in one CI run that measured a single epoch). `perf record -e page-faults` shows what
  // that is: a dnnl_sgemm workspace that did not fit the heap's free space, placed in new pages at
  // the heap's top. The heap grows once to its high-water mark and keeps it; the fewest leaves
  // such an epoch out.
  std::string counts;
  long fewest = -1;
  for (int e = 0; e < 5; ++e) {
    const long before = minor_faults();
    epoch();
    const long faults = minor_faults() - before;
    fewest = fewest < 0 ? faults : std::min(fewest, faults);
    counts += (e == 0 ? "" : ", ") + std::to_string(faults);
  }
  RecordProperty("faults_per_epoch", counts);
  // Measured per epoch of 20 steps: 0-20 faults with the setting; 783-1 271 with the call above
  // removed (40-60 a step). The bound is 5 a step, a tenth of that.
  EXPECT_LE(fewest, 5 * steps) << "page faults in five epochs of " << steps
                               << " warm training steps: " << counts;
}

TEST(HostHeap, TheEnvironmentsChoiceStands) {
  for (const auto& [name, value] :
       {std::pair{"EXADNN_KEEP_FREED_MEMORY", "0"}, std::pair{"MALLOC_TOP_PAD_", "1048576"},
        std::pair{"GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1048576"}}) {
    const char* old = std::getenv(name);
    const std::string saved = old != nullptr ? old : "";
    setenv(name, value, 1);
    EXPECT_FALSE(keep_freed_host_memory()) << name << "=" << value;
    if (old != nullptr)
      setenv(name, saved.c_str(), 1);
    else
      unsetenv(name);
  }
}
