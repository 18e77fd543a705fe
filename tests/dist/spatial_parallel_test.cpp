// Spatial parallelism (dist/spatial_parallel.h): the halo exchange against hand-computed rows and
// gradients, and a small CNN (convolution, batch norm, max pooling, strided convolution, global
// pooling) on an image split by height over 1-4 ranks against the same CNN on the whole image:
// losses and weights after 10 SGD steps, the activation memory per rank, and training under a
// per-rank memory cap that the whole image does not fit. Runs on 1, 2, 3, 4 ranks.
#include "exadnn/dist/spatial_parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "dist_testing.h"
#include "exadnn/core/memory_manager.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;

// [1, 1, h, 2] whose element (row i, column j) is 1000·rank + 10·i + j.
Tensor numbered_rows(const Communicator& comm, int64_t h) {
  std::vector<double> v;
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < 2; ++j) v.push_back(1000.0 * comm.rank() + 10.0 * i + j);
  return from_vector<double>(v, {1, 1, h, 2}).requires_grad_(true);
}

TEST(SpatialParallel, HaloExchangeBringsTheNeighboursRowsAndReturnsTheirGradients) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p = comm.size();
  const Tensor x = numbered_rows(comm, 3);
  const Tensor y = halo_exchange(x, comm, 2, 1, -7.0);  // [1, 1, 2 + 3 + 1, 2]
  ASSERT_EQ(y.shape(), (Shape{1, 1, 6, 2}));
  const auto v = values(y);
  auto at = [&](int64_t i) { return v[static_cast<size_t>(2 * i)]; };  // column 0 of row i
  EXPECT_EQ(at(0), r > 0 ? 1000.0 * (r - 1) + 10.0 : -7.0);  // the rank above's rows 1 and 2
  EXPECT_EQ(at(1), r > 0 ? 1000.0 * (r - 1) + 20.0 : -7.0);
  EXPECT_EQ(at(2), 1000.0 * r);
  EXPECT_EQ(at(5), r + 1 < p ? 1000.0 * (r + 1) : -7.0);  // the rank below's row 0
  // dy = row index + 1 in the halo'd tensor; each of my rows collects its copies' gradients.
  std::vector<double> dy;
  for (int64_t i = 0; i < 6; ++i) dy.insert(dy.end(), {i + 1.0, i + 1.0});
  y.backward(from_vector<double>(dy, {1, 1, 6, 2}));
  const auto g = values(x.grad());
  // Row 0: own 3, plus the rank above's bottom halo (its row 5 → 6). Row 1: own 4, plus the rank
  // below's top halo row 0 (→ 1). Row 2: own 5, plus the rank below's top halo row 1 (→ 2).
  EXPECT_EQ(g[0], 3.0 + (r > 0 ? 6.0 : 0.0));
  EXPECT_EQ(g[2], 4.0 + (r + 1 < p ? 1.0 : 0.0));
  EXPECT_EQ(g[4], 5.0 + (r + 1 < p ? 2.0 : 0.0));
  EXPECT_THROW(halo_exchange(x, comm, 4, 0), Error);  // taller than a rank's 3 rows
}

// The CNN, on the whole image or split: conv3×3 → batch norm → relu → maxpool 3/2 → conv3×3/2 →
// relu → global average → linear. Layer indices (and so state names) are the same in both.
std::shared_ptr<nn::Sequential> cnn(const Communicator* spatial, uint64_t seed = 3) {
  manual_seed(seed);
  auto conv = [&](int64_t in, int64_t out, int64_t stride) -> std::shared_ptr<nn::Module> {
    const auto o = nn::Conv2dOptions(in, out, 3).stride(stride).padding(1);
    if (spatial) return std::make_shared<SpatialConv2d>(o, *spatial);
    return std::make_shared<nn::Conv2d>(o);
  };
  std::shared_ptr<nn::Module> bn, pool, global;
  if (spatial) {
    bn = std::make_shared<SpatialBatchNorm2d>(4, *spatial);
    pool = std::make_shared<SpatialMaxPool2d>(3, 2, 1, *spatial);
    global = std::make_shared<SpatialGlobalAvgPool>(*spatial);
  } else {
    bn = std::make_shared<nn::BatchNorm2d>(4);
    pool = std::make_shared<nn::MaxPool2d>(3, 2, 1);
    global = std::make_shared<nn::AdaptiveAvgPool2d>(1);
  }
  auto model = std::make_shared<nn::Sequential>();
  const std::shared_ptr<nn::Module> relu = std::make_shared<nn::ReLU>();
  for (const auto& layer : std::vector<std::shared_ptr<nn::Module>>{conv(3, 4, 1), bn, relu, pool,
                                                                    conv(4, 6, 2), relu, global})
    model->push_back(layer);
  model->push_back(std::make_shared<nn::Flatten>());
  model->push_back(std::make_shared<nn::Linear>(6, 3));
  return model;
}

struct Image {
  Tensor x, y;  // [4, 3, H, 12], [4]
  explicit Image(int64_t height = 48) {
    Generator gen(8);
    x = randn({4, 3, height, 12}, TensorOptions(), &gen);
    y = from_vector<int64_t>({0, 2, 1, 2});
  }
};

std::vector<double> train(nn::Module& model, const Tensor& x, const Tensor& y, int steps) {
  return testing::sgd_losses(model, x, y, steps, 0.05);
}

TEST(SpatialParallel, SplitImageTrainsLikeTheWholeImage) {
  Communicator comm = Communicator::world();
  const Image image;
  auto whole = cnn(nullptr);
  const auto reference = train(*whole, image.x, image.y, 10);
  auto split = cnn(&comm);
  const auto losses = train(*split, spatial_rows(image.x, comm), image.y, 10);
  for (size_t s = 0; s < losses.size(); ++s) EXPECT_NEAR(losses[s], reference[s], 1e-5);
  const StateDict want = whole->state_dict();
  for (const auto& [name, t] : split->state_dict()) {
    const auto got = values(t), expected = values(want.at(name));
    for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], expected[k], 1e-5) << name;
  }
  split->eval();
  whole->eval();
  const auto out = values((*split)(spatial_rows(image.x, comm))), ref = values((*whole)(image.x));
  for (size_t k = 0; k < ref.size(); ++k) EXPECT_NEAR(out[k], ref[k], 1e-5);
}

// Under bf16 autocast the convolutions run in bf16 on each band (halos exchanged in bf16), batch
// norm and the losses in f32, as on the whole image. A weight gradient is rounded to bf16 on each
// rank's band before the sum over the ranks, instead of once: the loss and every parameter's
// gradient (after one step) agree with the whole image's within bf16's tolerance, normwise.
TEST(SpatialParallel, SplitImageUnderBf16AutocastMatchesTheWholeImage) {
  Communicator comm = Communicator::world();
  const Image image;
  const double rtol = exadnn::testing::tolerance_for(DType::bf16).rtol;
  auto step = [&](nn::Module& model, const Tensor& x) {
    const precision::Autocast scope(DType::bf16);
    Tensor loss = nn::cross_entropy(model(x), image.y);
    loss.backward();
    return loss.item<double>();
  };
  auto whole = cnn(nullptr), split = cnn(&comm);
  const double want = step(*whole, image.x), got = step(*split, spatial_rows(image.x, comm));
  EXPECT_NEAR(got, want, rtol * std::abs(want));
  // Normwise per parameter, on a scale of at least bf16's resolution (2^-8) of the whole model's
  // gradient: the first convolution's bias feeds batch norm, which cancels it, so its gradient is
  // rounding noise on both sides.
  std::map<std::string, std::vector<double>> want_grads;
  double model_norm = 0;
  for (const auto& [name, param] : whole->named_parameters()) {
    want_grads[name] = values(param.grad());
    for (double v : want_grads[name]) model_norm += v * v;
  }
  model_norm = std::sqrt(model_norm);
  for (const auto& [name, param] : split->named_parameters()) {
    const auto g = values(param.grad());
    const auto& w = want_grads.at(name);
    double diff = 0, norm = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      diff += (g[k] - w[k]) * (g[k] - w[k]);
      norm += w[k] * w[k];
    }
    EXPECT_LE(std::sqrt(diff), rtol * std::max(std::sqrt(norm), model_norm / 256)) << name;
  }
}

// Peak host bytes of one training step of `model` on x, above what was in use before it.
size_t step_peak_bytes(nn::Module& model, const Tensor& x, const Tensor& y) {
  auto& mm = MemoryManager::instance();
  const size_t before = mm.stats(MemoryKind::host).bytes_in_use;
  mm.reset_peak(MemoryKind::host);
  nn::cross_entropy(model(x), y).backward();
  return mm.stats(MemoryKind::host).peak_bytes - before;
}

TEST(SpatialParallel, EachRankHoldsItsShareOfTheActivations) {
  Communicator comm = Communicator::world();
  const Communicator alone = comm.split(comm.rank(), 0);  // the same layers on a 1-rank group
  const Image image(768);
  const Tensor rows = spatial_rows(image.x, comm);
  auto whole = cnn(nullptr);
  auto unsplit = cnn(&alone);
  auto split = cnn(&comm);
  for (int round = 0; round < 2; ++round) {  // the first round fills the caches
    const size_t whole_peak = step_peak_bytes(*whole, image.x, image.y);
    const size_t unsplit_peak = step_peak_bytes(*unsplit, image.x, image.y);
    const size_t split_peak = step_peak_bytes(*split, rows, image.y);
    if (round == 0) continue;
    if (comm.rank() == 0)
      std::printf(
          "[spatial] one step's peak host bytes: %zu per rank on %d ranks, %zu for the "
          "same layers on one rank (ratio %.3f), %zu for the nn:: layers (ratio %.3f)\n",
          split_peak, comm.size(), unsplit_peak,
          static_cast<double>(split_peak) / static_cast<double>(unsplit_peak), whole_peak,
          static_cast<double>(split_peak) / static_cast<double>(whole_peak));
    // The activations (all but the kilobytes of weights) scale as 1/P, within the halo rows.
    EXPECT_LE(static_cast<double>(split_peak),
              static_cast<double>(unsplit_peak) / comm.size() * 1.1);
    // With 2 or more ranks, each rank's step fits under a cap that the one-process model (the
    // nn:: layers on the whole image) exceeds.
    if (comm.size() > 1) EXPECT_LT(split_peak, whole_peak);
  }
}

TEST(SpatialParallel, PartsThatDoNotFitAreErrors) {
  Communicator comm = Communicator::world();
  SpatialConv2d strided(nn::Conv2dOptions(1, 1, 3).stride(2).padding(1), comm);
  EXPECT_THROW(strided(zeros({1, 1, 3, 4})), Error);  // 3 rows do not split by stride 2
  if (comm.size() > 1)                                // every height splits over one rank
    EXPECT_THROW(spatial_rows(zeros({1, 1, 4 * comm.size() + 1, 2}), comm), Error);
  comm.barrier().wait();
}

// Issue 19's cap check: a per-rank memory limit (MemoryManager::set_memory_limit) below what one
// training step on the whole image needs; the step on the whole image is refused by it, the same
// image split over the ranks trains under it, and matches the whole image trained without a cap.
TEST(SpatialParallel, TrainsUnderAPerRankCapThatTheWholeImageExceeds) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "one rank holds the whole image";
  ConvAlgorithmGuard fixed_routes(ConvAlgorithm::onednn);
  auto& mm = MemoryManager::instance();
  const Image image(768);
  const Tensor rows = spatial_rows(image.x, comm);
  auto whole = cnn(nullptr);
  auto split = cnn(&comm);
  // The cap: halfway between a split step's and a whole-image step's peak (each measured
  // without a cap, after a first step of each has filled the caches) above what is in use now.
  // The convolutions run oneDNN by its fixed rule: measured routes differ in scratch memory and
  // are chosen by timings, per problem. (A fixed 85 % of the whole step's peak passed only while
  // the routes' measurement, with every route's scratch, inflated the whole step's first peak:
  // with fixed routes the split step needs 0.95 of the whole step's peak on 2 ranks, 0.62 on 3
  // and 0.49 on 4.)
  step_peak_bytes(*whole, image.x, image.y);
  step_peak_bytes(*split, rows, image.y);
  const size_t whole_peak = step_peak_bytes(*whole, image.x, image.y);
  const size_t split_free_peak = step_peak_bytes(*split, rows, image.y);
  ASSERT_LT(split_free_peak, whole_peak) << "a rank's share of the image needs no less memory";
  const size_t cap = mm.stats(MemoryKind::host).bytes_in_use + (whole_peak + split_free_peak) / 2;
  mm.set_memory_limit(MemoryKind::host, cap);
  mm.reset_peak(MemoryKind::host);
  bool refused = false;
  try {
    nn::cross_entropy((*whole)(image.x), image.y).backward();
  } catch (const Error& e) {
    refused = std::string(e.what()).find("set_memory_limit") != std::string::npos;
  }
  std::vector<double> losses;
  try {
    losses = train(*split, rows, image.y, 3);
  } catch (const Error& e) {
    ADD_FAILURE() << "the split image did not train under the cap: " << e.what();
  }
  const size_t split_peak = mm.stats(MemoryKind::host).peak_bytes;
  mm.set_memory_limit(MemoryKind::host, ~size_t{0});
  EXPECT_TRUE(refused) << "the whole image's step fitted under " << cap << " bytes";
  EXPECT_LE(split_peak, cap);
  auto reference_model = cnn(nullptr);
  const auto reference = train(*reference_model, image.x, image.y, 3);
  ASSERT_EQ(losses.size(), reference.size());
  for (size_t s = 0; s < losses.size(); ++s) EXPECT_NEAR(losses[s], reference[s], 1e-5);
}

}  // namespace
}  // namespace exadnn::dist
