// Autocast scopes: which ops run in 16 bits and which stay in f32, gradients reaching f32 leaves,
// nesting, threads, backward inside a scope, and a small MLP and CNN training under bf16 and fp16.
#include <gtest/gtest.h>

#include <thread>

#include "exadnn/backend/precision_policy.h"
#include "exadnn/nn/conv.h"
#include "exadnn/nn/pooling.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;
using precision::Autocast;

namespace {

Tensor leaf(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  Tensor t = randn(shape, {}, &gen);
  t.requires_grad_(true);
  return t;
}

}  // namespace

TEST(Autocast, ScopesNestRestoreAndStayOnTheirThread) {
  EXPECT_EQ(precision::autocast_dtype(), DType::f32);
  {
    Autocast outer(DType::bf16);
    EXPECT_EQ(precision::autocast_dtype(), DType::bf16);
    {
      Autocast off(DType::f32);
      EXPECT_EQ(precision::autocast_dtype(), DType::f32);
    }
    DType other = DType::f16;
    std::thread([&] { other = precision::autocast_dtype(); }).join();
    EXPECT_EQ(other, DType::f32);
  }
  EXPECT_EQ(precision::autocast_dtype(), DType::f32);
  EXPECT_EXADNN_ERROR(Autocast(DType::i32), "autocast", "f16 or bf16");
}

TEST(Autocast, MatmulAndLinearRunIn16BitsAndF32LeavesGetF32Gradients) {
  for (DType dt : {DType::bf16, DType::f16}) {
    Tensor x = leaf({5, 8}, 1), w = leaf({3, 8}, 2), b = leaf({3}, 3);
    Tensor y, z;
    {
      Autocast scope(dt);
      y = linear(x, w, b);
      z = matmul(x, w.t());
    }
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_EQ(z.dtype(), dt);
    // The same as casting by hand.
    const Tensor x16 = x.detach().to(dt), w16 = w.detach().to(dt), b16 = b.detach().to(dt);
    EXPECT_TRUE(all_close(y, linear(x16, w16, b16)));
    EXPECT_TRUE(all_close(z, matmul(x16, w16.t())));
    // Gradients: f32, and those of the hand-cast computation.
    autograd::backward({sum(y.to(DType::f32))}, {Tensor()});
    EXPECT_EQ(w.grad().dtype(), DType::f32);
    EXPECT_EQ(x.grad().dtype(), DType::f32);
    EXPECT_EQ(b.grad().dtype(), DType::f32);
    const Tensor g = ones({5, 3}, dt);
    EXPECT_TRUE(all_close(w.grad().to(dt), matmul(g.t(), x16)));
    EXPECT_TRUE(all_close(x.grad().to(dt), matmul(g, w16)));
    EXPECT_TRUE(all_close(b.grad(), full({3}, 5.0)));
  }
}

TEST(Autocast, ReductionsSoftmaxNormalisationAndLossesStayInF32) {
  Autocast scope(DType::bf16);
  const Tensor h = randn({4, 6}).to(DType::bf16);
  EXPECT_EQ(sum(h).dtype(), DType::f32);
  EXPECT_EQ(mean(h, {1}).dtype(), DType::f32);
  EXPECT_EQ(softmax(h, 1).dtype(), DType::f32);
  EXPECT_EQ(log_softmax(h, 1).dtype(), DType::f32);
  EXPECT_EQ(batch_norm(h, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5).dtype(),
            DType::f32);
  const Tensor target = from_vector<int64_t>({0, 1, 2, 3}, {4});
  EXPECT_EQ(nn::cross_entropy(h, target).dtype(), DType::f32);
  EXPECT_EQ(nn::mse_loss(h, zeros({4, 6})).dtype(), DType::f32);
  // The f32 results are those of the widened input.
  EXPECT_TRUE(all_close(softmax(h, 1), softmax(h.to(DType::f32), 1)));
  // Elementwise ops keep their input's dtype.
  EXPECT_EQ(relu(h).dtype(), DType::bf16);
}

TEST(Autocast, ConvRunsIn16BitsAndF32LeavesGetF32Gradients) {
  // bf16 in oneDNN's bf16 convolutions, f16 widened to f32 inside the kernel (docs/precision.md).
  for (DType dt : {DType::bf16, DType::f16}) {
    Tensor x = leaf({2, 3, 6, 6}, 1), w = leaf({4, 3, 3, 3}, 2), b = leaf({4}, 3);
    Tensor y;
    {
      Autocast scope(dt);
      y = conv2d(x, w, b);
    }
    EXPECT_EQ(y.dtype(), dt);
    const Tensor x16 = x.detach().to(dt), w16 = w.detach().to(dt), b16 = b.detach().to(dt);
    EXPECT_TRUE(all_close(y, conv2d(x16, w16, b16)));
    autograd::backward({sum(y.to(DType::f32))}, {Tensor()});
    EXPECT_EQ(x.grad().dtype(), DType::f32);
    EXPECT_EQ(w.grad().dtype(), DType::f32);
    EXPECT_EQ(b.grad().dtype(), DType::f32);
    EXPECT_TRUE(all_close(b.grad(), full({4}, 2.0 * 4 * 4)));  // N·OH·OW ones
  }
}

TEST(Autocast, BackwardInsideTheScopeUsesTheRecordedDtypes) {
  Tensor x = leaf({4, 8}, 4), w = leaf({2, 8}, 5), b = leaf({2}, 6);
  Autocast scope(DType::bf16);
  const Tensor loss = sum(linear(x, w, b));
  autograd::backward({loss}, {Tensor()});
  EXPECT_EQ(w.grad().dtype(), DType::f32);
  EXPECT_TRUE(all_close(b.grad(), full({2}, 4.0)));
}

TEST(Autocast, F64IsLeftAloneSoGradientsCheckOut) {
  // Autocast only touches f32/f16/bf16: f64 gradient checks of the ops it wraps hold inside it.
  Autocast scope(DType::bf16);
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); },
      {exadnn::testing::random_leaf({3, 4}, 1), exadnn::testing::random_leaf({2, 4}, 2),
       exadnn::testing::random_leaf({2}, 3)}));
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [](const std::vector<Tensor>& in) { return log_softmax(matmul(in[0], in[1]), 1); },
      {exadnn::testing::random_leaf({3, 4}, 4), exadnn::testing::strided_leaf({4, 5}, 5)}));
}

TEST(Autocast, SmallNetworkTrainsInBf16AndFp16) {
  // Two Gaussian blobs; an MLP trained 60 steps under autocast (fp16 with a GradScaler) must
  // fit them as well as in f32.
  Generator gen(11);
  std::vector<float> xs(128 * 10);
  std::vector<int64_t> labels(128, 0);
  for (int i = 0; i < 128; ++i) {
    labels[i] = i < 64 ? 0 : 1;
    for (int j = 0; j < 10; ++j)
      xs[i * 10 + j] = static_cast<float>(gen.uniform() * 2.0 - 1.0 + (i < 64 ? 1.0 : -1.0));
  }
  const Tensor x = from_vector(xs, {128, 10});
  const Tensor y = from_vector(labels, {128});
  for (DType dt : {DType::f32, DType::bf16, DType::f16}) {
    manual_seed(3);
    nn::Sequential net;
    net.push_back(std::make_shared<nn::Linear>(10, 32));
    net.push_back(std::make_shared<nn::ReLU>());
    net.push_back(std::make_shared<nn::Linear>(32, 2));
    optim::SGD opt(net.parameters(), optim::SGDOptions(0.1));
    optim::GradScaler scaler(optim::GradScalerOptions().enabled(dt == DType::f16));
    Tensor loss;
    for (int step = 0; step < 60; ++step) {
      opt.zero_grad();
      {
        Autocast scope(dt == DType::f32 ? DType::f32 : dt);
        loss = nn::cross_entropy(net.forward(x), y);
      }
      autograd::backward({scaler.scale(loss)}, {Tensor()});
      scaler.step(opt);
      scaler.update();
    }
    EXPECT_EQ(loss.dtype(), DType::f32);
    EXPECT_LT(loss.item<double>(), 0.05) << dtype_name(dt);
  }
}

TEST(Autocast, SmallCnnTrainsIn16BitsAndWithBf16Parameters) {
  // 1x8x8 images: class 0 bright in the top-left quarter, class 1 in the bottom-right, plus noise.
  // conv 3x3 -> relu -> max pool 2 -> linear, 60 SGD steps: under autocast bf16 and fp16 (with a
  // GradScaler) and with bf16 parameters (f32 master weights) it must fit them as well as in f32.
  Generator gen(12);
  std::vector<float> xs(64 * 64);
  std::vector<int64_t> labels(64);
  for (int i = 0; i < 64; ++i) {
    labels[i] = i % 2;
    for (int p = 0; p < 64; ++p) {
      const int r = p / 8, c = p % 8;
      const bool bright = labels[i] == 0 ? (r < 4 && c < 4) : (r >= 4 && c >= 4);
      xs[i * 64 + p] = static_cast<float>(gen.uniform() - 0.5 + (bright ? 1.0 : 0.0));
    }
  }
  const Tensor x = from_vector(xs, {64, 1, 8, 8});
  const Tensor y = from_vector(labels, {64});
  enum class Mode { f32, bf16, f16, bf16_parameters };
  for (Mode mode : {Mode::f32, Mode::bf16, Mode::f16, Mode::bf16_parameters}) {
    manual_seed(5);
    nn::Sequential net;
    net.push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 4, 3)));
    net.push_back(std::make_shared<nn::ReLU>());
    net.push_back(std::make_shared<nn::MaxPool2d>(2));
    net.push_back(std::make_shared<nn::Flatten>());
    net.push_back(std::make_shared<nn::Linear>(4 * 3 * 3, 2));
    if (mode == Mode::bf16_parameters) net.to(DType::bf16);
    optim::SGD opt(net.parameters(), optim::SGDOptions(0.1).momentum(0.9));
    optim::GradScaler scaler(optim::GradScalerOptions().enabled(mode == Mode::f16));
    const DType autocast = mode == Mode::f32   ? DType::f32
                           : mode == Mode::f16 ? DType::f16
                                               : DType::bf16;
    Tensor loss;
    for (int step = 0; step < 60; ++step) {
      opt.zero_grad();
      {
        Autocast scope(autocast);
        loss = nn::cross_entropy(net.forward(x), y);
      }
      autograd::backward({scaler.scale(loss)}, {Tensor()});
      scaler.step(opt);
      scaler.update();
    }
    if (mode == Mode::bf16_parameters) {
      EXPECT_EQ(net.parameters()[0].dtype(), DType::bf16);
      EXPECT_EQ(opt.master(0).dtype(), DType::f32);
    }
    EXPECT_LT(loss.item<double>(), 0.05) << "mode " << static_cast<int>(mode);
  }
}
