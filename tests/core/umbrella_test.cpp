// The umbrella header exadnn/exadnn.h: a program that includes nothing else of exadnn uses every
// layer of libexadnn through it, and every public header under include/exadnn is in it unless it
// needs a library of its own (MPI, the workflow engine, CUDA: see the header's comment).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <type_traits>

#include "exadnn/exadnn.h"  // the only exadnn header of this file

namespace {

namespace fs = std::filesystem;
using namespace exadnn;

// include/exadnn of the source tree (CMake hands the compiler this file's absolute path).
fs::path include_root() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "include" / "exadnn";
}

// Public headers that need another library than libexadnn, relative to include/exadnn.
bool needs_own_library(const std::string& header) {
  for (const char* dir : {"dist/", "train/", "flow/", "backend/cuda/"})
    if (header.rfind(dir, 0) == 0) return true;
  return false;
}

TEST(Umbrella, IncludesEveryPublicHeaderOfLibexadnn) {
  const fs::path root = include_root();
  ASSERT_TRUE(fs::is_directory(root)) << root;
  std::set<std::string> included;
  std::ifstream umbrella(root / "exadnn.h");
  ASSERT_TRUE(umbrella.good());
  for (std::string line; std::getline(umbrella, line);) {
    const std::string head = "#include \"exadnn/";
    if (line.rfind(head, 0) != 0) continue;
    included.insert(line.substr(head.size(), line.find('"', head.size()) - head.size()));
  }
  std::set<std::string> headers;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".h") continue;
    const std::string header = fs::relative(entry.path(), root).generic_string();
    if (header != "exadnn.h") headers.insert(header);
  }
  for (const std::string& header : headers) {
    if (needs_own_library(header))
      EXPECT_FALSE(included.count(header))
          << "exadnn/exadnn.h includes exadnn/" << header
          << ", which needs its own library: a libexadnn-only program could not use it";
    else
      EXPECT_TRUE(included.count(header))
          << "include/exadnn/" << header << " is not in the umbrella exadnn/exadnn.h: add "
          << "#include \"exadnn/" << header << "\" to its layer's group (or, if it needs a "
          << "library of its own, say so there and in needs_own_library here)";
  }
  for (const std::string& header : included)
    EXPECT_TRUE(headers.count(header)) << "exadnn/exadnn.h includes a missing exadnn/" << header;
}

// One use of each group of the umbrella: the names resolve, and libexadnn runs them.
TEST(Umbrella, EveryGroupIsUsableThroughIt) {
  // core
  manual_seed(3);
  const Tensor x = randn({2, 3, 8, 8});
  EXPECT_EQ(x.shape(), (Shape{2, 3, 8, 8}));
  EXPECT_EQ(float(Half(1.5f)), 1.5f);
  static_assert(std::is_class_v<Storage>);
  // backend: the kernel signatures a backend registers
  static_assert(std::is_class_v<UnaryParams> && std::is_class_v<GemmArgs>);
  static_assert(std::is_class_v<Conv2dGeometry> && std::is_class_v<SgdStepParams>);
  // ops and autograd
  {
    NoGradGuard no_grad;
    EXPECT_EQ(relu(matmul(ones({2, 3}), ones({3, 4}))).shape(), (Shape{2, 4}));
  }
  EXPECT_EQ(Size2(2).h, 2);
  // nn: convolution, batch norm, pooling and the rest, trained one step by optim
  auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions(3, 4, 3).padding(1)),
      std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::AdaptiveAvgPool2d>(1),
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(4, 2)});
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.1));
  const Tensor loss = nn::cross_entropy(net->forward(x), from_vector<int64_t>({0, 1}));
  loss.backward();
  opt.step();
  EXPECT_TRUE(std::isfinite(loss.item<float>()));
  // data
  EXPECT_EQ(data::DistributedSampler(1, 2).shard({0, 1, 2, 3}), (std::vector<int64_t>{1, 3}));
  data::check_finite(x, "umbrella_test", "x");
  // io: a checkpoint round trip, read back through the checked accessors
  const std::string path =
      (fs::temp_directory_path() / ("exadnn_umbrella_" + std::to_string(::getpid()) + ".ckpt"))
          .string();
  io::save_checkpoint(path, net->state_dict(), {{"step", "1"}});
  const io::Checkpoint ckpt = io::load_checkpoint(path);
  EXPECT_EQ(io::checkpoint_int(ckpt, "step", 0, 10), 1);
  fs::remove(path);
  // parallel: shared-memory asynchronous SGD and mixed precision
  EXPECT_EQ(async::parse_async_mode("hogwild"), async::AsyncMode::hogwild);
  {
    precision::Autocast scope(DType::bf16);
    EXPECT_EQ(precision::autocast_dtype(), DType::bf16);
  }
}

}  // namespace
