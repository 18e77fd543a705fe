// batch_norm: forward and running-statistics updates against naive loops, gradients against the
// same normalisation composed of differentiable ops, both CPU algorithms and their agreement,
// f64 finite-difference gradient checks, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "layer_ref.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::optest::Values;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;

namespace {

struct Case {
  Shape x;
  bool affine = true;
  int64_t n() const { return x[0]; }
  int64_t c() const { return x[1]; }
  int64_t s() const { return x.numel() / (x[0] * x[1]); }
};

const std::vector<Case>& cases() {
  static const std::vector<Case> v{
      {{4, 3, 5, 5}, true},    // BatchNorm2d
      {{4, 3, 5, 5}, false},   // no affine parameters
      {{8, 6}, true},          // BatchNorm1d on [N, C]
      {{3, 4, 7}, true},       // BatchNorm1d on [N, C, L]
      {{16, 32, 8, 8}, true},  // larger: the parallel paths
  };
  return v;
}

std::string describe(const Case& c) {
  std::ostringstream os;
  os << "x " << c.x << (c.affine ? " affine" : "");
  return os.str();
}

// Inputs whose channels have different means and spreads.
struct Data {
  Values x, w, b, running_mean, running_var;
  explicit Data(const Case& c, uint64_t seed = 1) {
    x = optest::uniform(c.x.numel(), seed, -1.0, 1.0);
    for (int64_t i = 0; i < c.x.numel(); ++i) {
      const int64_t ch = (i / c.s()) % c.c();
      x[i] = x[i] * (1.0 + 0.25 * static_cast<double>(ch % 3)) + 0.5 * static_cast<double>(ch % 4);
    }
    w = optest::uniform(c.c(), seed + 1, 0.5, 1.5);
    b = optest::uniform(c.c(), seed + 2, -0.5, 0.5);
    running_mean = optest::uniform(c.c(), seed + 3, -0.2, 0.2);
    running_var = optest::uniform(c.c(), seed + 4, 0.5, 1.5);
  }
};

constexpr double kMomentum = 0.1, kEps = 1e-5;

class BatchNormAlgo : public ::testing::TestWithParam<ConvAlgorithm> {
 protected:
  BatchNormAlgo() : guard_(GetParam()) {}

 private:
  ConvAlgorithmGuard guard_;
};

TEST_P(BatchNormAlgo, TrainingForwardAndRunningStatsMatchNaiveLoop) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(describe(c));
    const Data d(c);
    Tensor rm = make(d.running_mean, {c.c()}, DType::f32);
    Tensor rv = make(d.running_var, {c.c()}, DType::f32);
    const void* rm_address = rm.data_ptr();
    const Tensor y = batch_norm(
        make(d.x, c.x, DType::f32), rm, rv, c.affine ? make(d.w, {c.c()}, DType::f32) : Tensor(),
        c.affine ? make(d.b, {c.c()}, DType::f32) : Tensor(), true, kMomentum, kEps);
    Values mean, var;
    layerref::channel_stats(d.x, c.n(), c.c(), c.s(), mean, var);
    const Values ref =
        layerref::batch_norm_forward(d.x, c.n(), c.c(), c.s(), mean, var, c.affine ? d.w : Values{},
                                     c.affine ? d.b : Values{}, kEps);
    EXPECT_TRUE(matches(y, DType::f32, Ref{c.x, ref}));
    const double count = static_cast<double>(c.n() * c.s());
    Values rm_ref(c.c()), rv_ref(c.c());
    for (int64_t ch = 0; ch < c.c(); ++ch) {
      rm_ref[ch] = (1 - kMomentum) * d.running_mean[ch] + kMomentum * mean[ch];
      rv_ref[ch] = (1 - kMomentum) * d.running_var[ch] + kMomentum * var[ch] * count / (count - 1);
    }
    EXPECT_TRUE(matches(rm, DType::f32, Ref{{c.c()}, rm_ref}));
    EXPECT_TRUE(matches(rv, DType::f32, Ref{{c.c()}, rv_ref}));
    EXPECT_EQ(rm.data_ptr(), rm_address) << "updated in place";
  }
}

TEST_P(BatchNormAlgo, EvalForwardUsesRunningStats) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(describe(c));
    const Data d(c);
    const Tensor rm = make(d.running_mean, {c.c()}, DType::f32);
    const Tensor rv = make(d.running_var, {c.c()}, DType::f32);
    const Tensor y = batch_norm(
        make(d.x, c.x, DType::f32), rm, rv, c.affine ? make(d.w, {c.c()}, DType::f32) : Tensor(),
        c.affine ? make(d.b, {c.c()}, DType::f32) : Tensor(), false, kMomentum, kEps);
    const Values ref =
        layerref::batch_norm_forward(d.x, c.n(), c.c(), c.s(), d.running_mean, d.running_var,
                                     c.affine ? d.w : Values{}, c.affine ? d.b : Values{}, kEps);
    EXPECT_TRUE(matches(y, DType::f32, Ref{c.x, ref}));
    EXPECT_EQ(exadnn::testing::values(rm),
              exadnn::testing::values(make(d.running_mean, {c.c()}, DType::f32)))
        << "eval leaves the stats alone";
  }
}

// batch_norm written with differentiable ops (f64), the reference for gradients.
Tensor composed(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& rm,
                const Tensor& rv, bool training) {
  Axes axes{0};
  for (int64_t d = 2; d < x.dim(); ++d) axes.push_back(d);
  Shape bshape = Dims::filled(x.dim(), 1);
  bshape[1] = x.shape()[1];
  Tensor mean_t, var_t;
  if (training) {
    mean_t = mean(x, axes, true);
    var_t = mean((x - mean_t) * (x - mean_t), axes, true);
  } else {
    mean_t = rm.reshape(bshape);
    var_t = rv.reshape(bshape);
  }
  Tensor y = (x - mean_t) / sqrt(var_t + kEps);
  if (w.defined()) y = y * w.reshape(bshape) + b.reshape(bshape);
  return y;
}

TEST_P(BatchNormAlgo, GradientsMatchComposedOpsF32) {
  for (bool training : {true, false})
    for (const Case& c : cases()) {
      SCOPED_TRACE(describe(c) + (training ? " training" : " eval"));
      const Data d(c);
      const Values g = layerref::quantized(c.x.numel(), 5);
      Tensor grads[2][3];
      for (int k = 0; k < 2; ++k) {  // 0: batch_norm in f32, 1: composed ops in f64
        const DType t = k == 0 ? DType::f32 : DType::f64;
        Tensor x = make(d.x, c.x, t).requires_grad_();
        Tensor w = c.affine ? make(d.w, {c.c()}, t).requires_grad_() : Tensor();
        Tensor b = c.affine ? make(d.b, {c.c()}, t).requires_grad_() : Tensor();
        const Tensor rm = make(d.running_mean, {c.c()}, t), rv = make(d.running_var, {c.c()}, t);
        const Tensor y = k == 0 ? batch_norm(x, rm, rv, w, b, training, kMomentum, kEps)
                                : composed(x, w, b, rm, rv, training);
        y.backward(make(g, c.x, t));
        grads[k][0] = x.grad();
        if (c.affine) grads[k][1] = w.grad(), grads[k][2] = b.grad();
      }
      EXPECT_TRUE(all_close(grads[0][0], grads[1][0])) << "x";
      if (c.affine) {
        EXPECT_TRUE(all_close(grads[0][1], grads[1][1])) << "weight";
        EXPECT_TRUE(all_close(grads[0][2], grads[1][2])) << "bias";
      }
    }
}

INSTANTIATE_TEST_SUITE_P(BatchNorm, BatchNormAlgo,
                         ::testing::Values(ConvAlgorithm::onednn, ConvAlgorithm::im2col),
                         [](const ::testing::TestParamInfo<ConvAlgorithm>& info) {
                           return std::string(conv_algorithm_name(info.param));
                         });

TEST(BatchNormAlgorithms, OnednnAndLoopsAgree) {
  for (bool training : {true, false})
    for (const Case& c : cases()) {
      SCOPED_TRACE(describe(c) + (training ? " training" : " eval"));
      const Data d(c, 3);
      std::vector<Tensor> r[2];
      for (int a = 0; a < 2; ++a) {
        ConvAlgorithmGuard guard(a == 0 ? ConvAlgorithm::onednn : ConvAlgorithm::im2col);
        Tensor x = make(d.x, c.x, DType::f32).requires_grad_();
        Tensor w = c.affine ? make(d.w, {c.c()}, DType::f32).requires_grad_() : Tensor();
        Tensor b = c.affine ? make(d.b, {c.c()}, DType::f32).requires_grad_() : Tensor();
        Tensor rm = make(d.running_mean, {c.c()}, DType::f32);
        Tensor rv = make(d.running_var, {c.c()}, DType::f32);
        const Tensor y = batch_norm(x, rm, rv, w, b, training, kMomentum, kEps);
        y.backward(make(layerref::quantized(c.x.numel(), 6), c.x, DType::f32));
        r[a] = {y, rm, rv, x.grad()};
        if (c.affine) r[a].push_back(w.grad()), r[a].push_back(b.grad());
      }
      for (size_t i = 0; i < r[0].size(); ++i)
        EXPECT_TRUE(all_close(r[0][i], r[1][i])) << "result " << i;
    }
}

// The default (ConvAlgorithm::fastest) runs f32 batch norm through exadnn's channel-parallel
// loops, not oneDNN (docs/performance.md, "Batch norm"): its results are those of the loops bit
// for bit, and differ from oneDNN's in the last bits on random data of a ResNet-sized layer.
TEST(BatchNormAlgorithms, FastestRunsExadnnsLoops) {
  auto equal = [](const Tensor& a, const Tensor& b) {
    return a.numel() == b.numel() &&
           std::memcmp(a.data<float>(), b.data<float>(), a.numel() * sizeof(float)) == 0;
  };
  Generator gen(5);
  const Tensor x0 = randn({16, 8, 12, 12}, {}, &gen), g = randn({16, 8, 12, 12}, {}, &gen);
  auto run = [&](ConvAlgorithm algorithm) {
    ConvAlgorithmGuard guard(algorithm);
    Tensor x = x0.clone().requires_grad_();
    Tensor rm = zeros({8}), rv = ones({8});
    const Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), true, kMomentum, kEps);
    y.backward(g);
    return std::vector<Tensor>{y, x.grad()};
  };
  const auto fastest = run(ConvAlgorithm::fastest), loops = run(ConvAlgorithm::im2col),
             onednn = run(ConvAlgorithm::onednn);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(equal(fastest[i], loops[i])) << (i ? "grad x" : "y");
    EXPECT_FALSE(equal(fastest[i], onednn[i])) << (i ? "grad x" : "y");  // the route is visible
  }
}

// Channels whose mean is 1e4 and spread 1e-2 (f32 holds them to ~1/20 of the spread): the
// statistics and the normalisation must keep f64's precision of the mean. An f32 mean alone is
// off by up to 5e-4, 5 % of the spread; f32 sums of x and x² lose the variance entirely.
TEST(BatchNormPrecision, ChannelsFarFromZeroKeepTheirSpread) {
  const Case c{{8, 3, 6, 6}, false};
  Values x = optest::uniform(c.x.numel(), 11, -1.0, 1.0);
  for (int64_t i = 0; i < c.x.numel(); ++i) {
    const int64_t ch = (i / c.s()) % c.c();
    x[i] = static_cast<float>(1e4 * (1 + ch) + 1e-2 * (1 + ch) * x[i]);  // as f32 holds it
  }
  const Values g = optest::uniform(c.x.numel(), 12, -1.0, 1.0);
  Values mean, var;
  layerref::channel_stats(x, c.n(), c.c(), c.s(), mean, var);
  const Values y_ref = layerref::batch_norm_forward(x, c.n(), c.c(), c.s(), mean, var, {}, {}, 0);
  // f64 gradient through the same normalisation (the composed ops agree with it elsewhere).
  Tensor x64 = make(x, c.x, DType::f64).requires_grad_();
  batch_norm(x64, Tensor(), Tensor(), Tensor(), Tensor(), true, kMomentum, 0)
      .backward(make(g, c.x, DType::f64));
  for (ConvAlgorithm algorithm : {ConvAlgorithm::fastest, ConvAlgorithm::im2col}) {
    SCOPED_TRACE(conv_algorithm_name(algorithm));
    ConvAlgorithmGuard guard(algorithm);
    Tensor x32 = make(x, c.x, DType::f32).requires_grad_();
    const Tensor y = batch_norm(x32, Tensor(), Tensor(), Tensor(), Tensor(), true, kMomentum, 0);
    y.backward(make(g, c.x, DType::f32));
    double y_err = 0, dx_err = 0, dx_max = 0;
    for (int64_t i = 0; i < c.x.numel(); ++i) {
      y_err = std::max(y_err, std::abs(y.data<float>()[i] - y_ref[i]));
      dx_err =
          std::max(dx_err, std::abs(x32.grad().data<float>()[i] - x64.grad().data<double>()[i]));
      dx_max = std::max(dx_max, std::abs(x64.grad().data<double>()[i]));
    }
    EXPECT_LT(y_err, 1e-4) << "normalised values are O(1)";
    EXPECT_LT(dx_err, 1e-4 * dx_max);
  }
}

// batch_norm_relu against relu(batch_norm(...)) with the same loops: the same values and gradients
// bit for bit (the ReLU's mask is applied before the same sums), f32 and f64, training and
// evaluation, with and without affine parameters; and bf16 (no fused kernel: the two ops).
TEST(BatchNormRelu, EqualsBatchNormThenReluBitForBit) {
  for (DType dtype : {DType::f32, DType::f64, DType::bf16})
    for (bool training : {true, false})
      for (const Case& c : cases()) {
        SCOPED_TRACE(describe(c) + " " + dtype_name(dtype) + (training ? " training" : " eval"));
        const Data d(c, 7);
        std::vector<Values> r[2];
        for (int fused = 0; fused < 2; ++fused) {
          ConvAlgorithmGuard loops(ConvAlgorithm::im2col);
          Tensor x = make(d.x, c.x, dtype).requires_grad_();
          Tensor w = c.affine ? make(d.w, {c.c()}, dtype).requires_grad_() : Tensor();
          Tensor b = c.affine ? make(d.b, {c.c()}, dtype).requires_grad_() : Tensor();
          Tensor rm = make(d.running_mean, {c.c()}, dtype);
          Tensor rv = make(d.running_var, {c.c()}, dtype);
          const Tensor y = fused ? batch_norm_relu(x, rm, rv, w, b, training, kMomentum, kEps)
                                 : relu(batch_norm(x, rm, rv, w, b, training, kMomentum, kEps));
          y.backward(make(layerref::quantized(c.x.numel(), 6), c.x, dtype));
          r[fused] = {exadnn::testing::values(y), exadnn::testing::values(rm),
                      exadnn::testing::values(rv), exadnn::testing::values(x.grad())};
          if (c.affine)
            r[fused].push_back(exadnn::testing::values(w.grad())),
                r[fused].push_back(exadnn::testing::values(b.grad()));
        }
        for (size_t i = 0; i < r[0].size(); ++i) EXPECT_EQ(r[0][i], r[1][i]) << "result " << i;
      }
}

TEST(BatchNormRelu, GradientsMatchFiniteDifferences) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "eval");
    const Case c{{4, 3, 5, 5}, true};
    const Data d(c, 9);
    const Tensor rm = make(d.running_mean, {c.c()}, DType::f64);
    const Tensor rv = make(d.running_var, {c.c()}, DType::f64);
    EXPECT_TRUE(gradcheck(
        [training, rm, rv](const std::vector<Tensor>& v) {
          return batch_norm_relu(v[0], rm.clone(), rv.clone(), v[1], v[2], training, kMomentum,
                                 kEps);
        },
        {optest::leaf(d.x, c.x), optest::leaf(d.w, {c.c()}), optest::leaf(d.b, {c.c()})}));
  }
}

TEST(BatchNormGradcheck, TrainingAndEvalEveryInput) {
  for (bool training : {true, false})
    for (const Case& c : cases()) {
      if (c.x.numel() > 400) continue;  // too big for finite differences
      SCOPED_TRACE(describe(c) + (training ? " training" : " eval"));
      const Data d(c);
      const Tensor rm = make(d.running_mean, {c.c()}, DType::f64);
      const Tensor rv = make(d.running_var, {c.c()}, DType::f64);
      std::vector<Tensor> in{optest::leaf(d.x, c.x)};
      if (c.affine)
        in.push_back(optest::leaf(d.w, {c.c()})), in.push_back(optest::leaf(d.b, {c.c()}));
      EXPECT_TRUE(gradcheck(
          [training, rm, rv](const std::vector<Tensor>& v) {
            // fresh running stats each call: the update must not leak into the function
            return batch_norm(v[0], rm.clone(), rv.clone(), v.size() > 1 ? v[1] : Tensor(),
                              v.size() > 1 ? v[2] : Tensor(), training, kMomentum, kEps);
          },
          in));
    }
}

TEST(BatchNormGradcheck, StridedInputAndOnlyTheWeight) {
  const Tensor x = strided_leaf({3, 2, 4, 3}, 1);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& v) {
        return batch_norm(v[0], Tensor(), Tensor(), v[1], Tensor(), true, kMomentum, kEps);
      },
      {x, random_leaf({2}, 2)}));
}

TEST(BatchNormRunningStats, NotRecordedAndOptionalInTraining) {
  Tensor x = random_leaf({4, 3, 2, 2}, 1);
  Tensor rm = zeros({3}, DType::f64), rv = ones({3}, DType::f64);
  const Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), true);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(rm.requires_grad());
  EXPECT_EQ(rm.grad_fn(), nullptr);
  EXPECT_EQ(rv.grad_fn(), nullptr);
  // Without running statistics training still normalises with the batch's.
  const Tensor y2 = batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true);
  EXPECT_TRUE(all_close(y2, y));
  // f32 running statistics of an f64 input are updated too (converted).
  Tensor rm32 = zeros({3}), rv32 = ones({3});
  batch_norm(x, rm32, rv32, Tensor(), Tensor(), true);
  EXPECT_TRUE(all_close(rm32, rm.to(DType::f32)));
  EXPECT_TRUE(all_close(rv32, rv.to(DType::f32)));
}

TEST(BatchNormErrors, BadShapesAndModes) {
  const Tensor x = zeros({4, 3, 2, 2}), c3 = zeros({3}), c2 = zeros({2});
  EXPECT_EXADNN_ERROR(batch_norm(x, c3, c3, c2, c3, true), "batch_norm", "weight", "[3]", "[2]",
                      "[4, 3, 2, 2]");
  EXPECT_EXADNN_ERROR(batch_norm(x, c2, c2, c3, c3, true), "batch_norm", "running_mean", "[2]");
  EXPECT_EXADNN_ERROR(batch_norm(x, Tensor(), Tensor(), c3, c3, false), "batch_norm",
                      "running_mean and running_var");
  EXPECT_EXADNN_ERROR(batch_norm(x, c3, Tensor(), c3, c3, true), "batch_norm", "together");
  EXPECT_EXADNN_ERROR(batch_norm(zeros({1, 3}), c3, c3, c3, c3, true), "batch_norm",
                      "more than one value per channel", "[1, 3]");
  EXPECT_EXADNN_ERROR(batch_norm(zeros({4}), Tensor(), Tensor(), Tensor(), Tensor(), true),
                      "batch_norm", "[4]");
  EXPECT_EXADNN_ERROR(batch_norm(x, c3, c3, zeros({3}, DType::f64), c3, true), "batch_norm",
                      "dtype");
  // batch_norm_relu checks the same, under its own name.
  EXPECT_EXADNN_ERROR(batch_norm_relu(x, c3, c3, c2, c3, true), "batch_norm_relu", "weight", "[3]",
                      "[2]");
  EXPECT_EXADNN_ERROR(batch_norm_relu(Tensor(), c3, c3, c3, c3, true), "batch_norm_relu", "input");
  EXPECT_EXADNN_ERROR(batch_norm_relu(zeros({1, 3}), c3, c3, c3, c3, true), "batch_norm_relu",
                      "more than one value per channel");
}

}  // namespace
