// conv2d: forward and gradients (f32, bf16, f16) against naive loops on both CPU algorithms
// (oneDNN, im2col), the two algorithms against each other, f64 finite-difference gradient checks,
// and errors.
#include <gtest/gtest.h>

#include <thread>

#include "layer_ref.h"

using namespace exadnn;
using exadnn::layerref::ConvProblem;
using exadnn::layerref::quantized;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;

namespace {

// Geometries covering each parameter alone and together, plus the CNN benchmark's layers.
const std::vector<ConvProblem>& problems() {
  static const std::vector<ConvProblem> v{
      {{2, 3, 7, 7}, {4, 3, 3, 3}, true, {}},                                     // plain 3x3
      {{2, 3, 8, 9}, {5, 3, 3, 3}, true, {.stride = 2}},                          // stride
      {{2, 3, 6, 6}, {4, 3, 3, 3}, true, {.padding = 1}},                         // same padding
      {{1, 2, 9, 9}, {3, 2, 3, 3}, true, {.dilation = 2}},                        // dilation
      {{2, 4, 6, 6}, {6, 2, 3, 3}, true, {.groups = 2}},                          // groups
      {{2, 4, 6, 6}, {8, 1, 3, 3}, false, {.padding = 1, .groups = 4}},           // depthwise
      {{2, 5, 4, 4}, {3, 5, 1, 1}, true, {}},                                     // 1x1
      {{2, 3, 9, 8}, {4, 3, 2, 3}, true, {.stride = {2, 1}, .padding = {1, 0}}},  // rectangular
      {{1, 2, 7, 7}, {2, 2, 3, 3}, false, {.stride = 2, .padding = 1}},           // floor of output
      {{1, 3, 10, 10}, {2, 3, 2, 2}, true, {.stride = 3}},                        // stride > kernel
      {{2, 6, 9, 9},
       {6, 3, 3, 3},
       true,
       {.stride = 2, .padding = {2, 1}, .dilation = {1, 2}, .groups = 2}},  // all together
      {{4, 1, 28, 28}, {32, 1, 5, 5}, true, {}},                            // CNN conv1
      {{4, 32, 12, 12}, {64, 32, 5, 5}, true, {}},                          // CNN conv2
  };
  return v;
}

struct Data {
  layerref::Values x, w, b;
  explicit Data(const ConvProblem& c, uint64_t seed = 1)
      : x(quantized(c.x.numel(), seed)),
        w(quantized(c.w.numel(), seed + 1)),
        b(quantized(c.w[0], seed + 2)) {}
};

Tensor bias_of(const ConvProblem& c, const Data& d, DType t) {
  return c.bias ? make(d.b, {c.w[0]}, t) : Tensor();
}

std::string describe(const ConvProblem& c) {
  std::ostringstream os;
  os << "x " << c.x << " w " << c.w << " stride " << c.p.stride << " padding " << c.p.padding
     << " dilation " << c.p.dilation << " groups " << c.p.groups << (c.bias ? " bias" : "");
  return os.str();
}

// Both algorithms, as a test parameter.
class ConvAlgo : public ::testing::TestWithParam<ConvAlgorithm> {
 protected:
  ConvAlgo() : guard_(GetParam()) {}

 private:
  ConvAlgorithmGuard guard_;
};

std::string algo_name(const ::testing::TestParamInfo<ConvAlgorithm>& info) {
  return conv_algorithm_name(info.param);
}

// Forward and every gradient of problem c in dtype dt against the naive loop (f64), within dt's
// tolerance; returns [out, grad x, grad w, grad b (if any)].
std::vector<Tensor> check_against_naive_loop(const ConvProblem& c, DType dt) {
  const Data d(c);
  Tensor x = make(d.x, c.x, dt).requires_grad_();
  Tensor w = make(d.w, c.w, dt).requires_grad_();
  Tensor b = c.bias ? make(d.b, {c.w[0]}, dt).requires_grad_() : Tensor();
  const Tensor out = conv2d(x, w, b, c.p);
  EXPECT_EQ(out.dtype(), dt);
  EXPECT_TRUE(matches(out, dt, layerref::conv_forward(c, d.x, d.w, d.b)));
  const layerref::Values g = quantized(out.numel(), 9);
  out.backward(make(g, out.shape(), dt));
  const layerref::ConvGrads ref = layerref::conv_backward(c, d.x, d.w, g);
  EXPECT_TRUE(matches(x.grad(), dt, Ref{c.x, ref.x}));
  EXPECT_TRUE(matches(w.grad(), dt, Ref{c.w, ref.w}));
  if (c.bias) EXPECT_TRUE(matches(b.grad(), dt, Ref{{c.w[0]}, ref.b}));
  std::vector<Tensor> results{out, x.grad(), w.grad()};
  if (c.bias) results.push_back(b.grad());
  return results;
}

TEST_P(ConvAlgo, ForwardAndGradientsMatchNaiveLoopF32) {
  for (const ConvProblem& c : problems()) {
    SCOPED_TRACE(describe(c));
    check_against_naive_loop(c, DType::f32);
  }
}

// bf16 runs in oneDNN's bf16 kernels on the oneDNN path and widened to f32 on the im2col path;
// f16 is widened on both. The quantized data are exact in both formats, so results differ from
// the reference and from f32 only by the final rounding to 16 bits.
TEST_P(ConvAlgo, SixteenBitMatchesNaiveLoopAndF32) {
  for (DType dt : {DType::bf16, DType::f16})
    for (const ConvProblem& c : problems()) {
      SCOPED_TRACE(describe(c) + " " + dtype_name(dt));
      const std::vector<Tensor> half = check_against_naive_loop(c, dt);
      const std::vector<Tensor> full = check_against_naive_loop(c, DType::f32);
      for (size_t i = 0; i < half.size(); ++i)
        EXPECT_TRUE(all_close(half[i], full[i])) << "result " << i << " against f32";
    }
}

TEST_P(ConvAlgo, RepeatedCallsGiveTheSameResult) {
  // The second call reuses cached primitives.
  const ConvProblem& c = problems()[10];
  const Data d(c);
  const Tensor x = make(d.x, c.x, DType::f32), w = make(d.w, c.w, DType::f32);
  const Tensor first = conv2d(x, w, bias_of(c, d, DType::f32), c.p);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(exadnn::testing::values(conv2d(x, w, bias_of(c, d, DType::f32), c.p)),
              exadnn::testing::values(first));
}

TEST_P(ConvAlgo, OnlyTheBiasRequiresGrad) {
  const ConvProblem& c = problems()[0];
  const Data d(c);
  Tensor b = make(d.b, {c.w[0]}, DType::f32).requires_grad_();
  const Tensor out = conv2d(make(d.x, c.x, DType::f32), make(d.w, c.w, DType::f32), b, c.p);
  const layerref::Values g = quantized(out.numel(), 3);
  out.backward(make(g, out.shape(), DType::f32));
  EXPECT_TRUE(
      matches(b.grad(), DType::f32, Ref{{c.w[0]}, layerref::conv_backward(c, d.x, d.w, g).b}));
}

TEST_P(ConvAlgo, EmptyBatch) {
  for (DType dt : {DType::f32, DType::bf16, DType::f16}) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor x = zeros({0, 3, 6, 6}, dt).requires_grad_(),
           w = ones({4, 3, 3, 3}, dt).requires_grad_();
    Tensor b = ones({4}, dt).requires_grad_();
    const Tensor out = conv2d(x, w, b, {.padding = 1});
    EXPECT_EQ(out.shape(), (Shape{0, 4, 6, 6}));
    sum(out).backward();
    EXPECT_EQ(x.grad().shape(), (Shape{0, 3, 6, 6}));
    EXPECT_EQ(exadnn::testing::values(w.grad()), std::vector<double>(w.numel(), 0.0));
    EXPECT_EQ(exadnn::testing::values(b.grad()), std::vector<double>(4, 0.0));
  }
}

// Ops may run on several threads at once (asynchronous SGD across cores): the primitive cache and
// the per-thread streams must hold.
TEST_P(ConvAlgo, ConcurrentCallsFromTwoThreads) {
  const ConvProblem& c = problems()[10];
  const Data d(c);
  const Tensor x = make(d.x, c.x, DType::f32), w = make(d.w, c.w, DType::f32);
  const Ref ref = layerref::conv_forward(c, d.x, d.w, d.b);
  const ConvAlgorithm algorithm = GetParam();
  std::vector<std::thread> threads;
  std::vector<int> failures(2, 0);
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      set_conv_algorithm(algorithm);
      for (int i = 0; i < 20; ++i) {
        // a fresh geometry per iteration for one thread, so primitives are created concurrently
        const Tensor xi = t == 0 ? x : make(d.x, c.x, DType::f32).narrow(0, 0, 1 + i % 2);
        const Tensor out = conv2d(xi, w, bias_of(c, d, DType::f32), c.p);
        const std::vector<double> got = exadnn::testing::values(out);
        for (size_t k = 0; k < got.size(); ++k)
          if (got[k] != static_cast<double>(static_cast<float>(ref.values[k]))) ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0}));
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvAlgo,
                         ::testing::Values(ConvAlgorithm::fastest, ConvAlgorithm::onednn,
                                           ConvAlgorithm::im2col),
                         algo_name);

// The two algorithms against each other, forward and backward. The data are quantized, so every
// sum is exact and the two must agree within f32 tolerance whatever their summation order.
TEST(ConvAlgorithms, OnednnAndIm2colAgree) {
  for (const ConvProblem& c : problems()) {
    SCOPED_TRACE(describe(c));
    const Data d(c, 7);
    std::vector<Tensor> results[2];
    for (int a = 0; a < 2; ++a) {
      ConvAlgorithmGuard guard(a == 0 ? ConvAlgorithm::onednn : ConvAlgorithm::im2col);
      Tensor x = make(d.x, c.x, DType::f32).requires_grad_();
      Tensor w = make(d.w, c.w, DType::f32).requires_grad_();
      Tensor b = c.bias ? make(d.b, {c.w[0]}, DType::f32).requires_grad_() : Tensor();
      const Tensor out = conv2d(x, w, b, c.p);
      out.backward(make(quantized(out.numel(), 8), out.shape(), DType::f32));
      results[a] = {out, x.grad(), w.grad()};
      if (c.bias) results[a].push_back(b.grad());
    }
    for (size_t i = 0; i < results[0].size(); ++i)
      EXPECT_TRUE(all_close(results[0][i], results[1][i])) << "result " << i;
  }
}

TEST(ConvAlgorithms, SelectableAtRunTime) {
  {
    ConvAlgorithmGuard guard(ConvAlgorithm::im2col);
    EXPECT_EQ(conv_algorithm(), ConvAlgorithm::im2col);
    set_conv_algorithm(ConvAlgorithm::onednn);
    EXPECT_EQ(conv_algorithm(), ConvAlgorithm::onednn);
  }
  EXPECT_STREQ(conv_algorithm_name(ConvAlgorithm::im2col), "im2col");
  EXPECT_STREQ(conv_algorithm_name(ConvAlgorithm::onednn), "onednn");
  EXPECT_STREQ(conv_algorithm_name(ConvAlgorithm::fastest), "fastest");
}

// The im2col route splits a batch into chunks of samples: each thread takes chunks of its own
// when there are at least as many samples as threads (its weight gradient summed at the end),
// else the threads share each chunk. Every thread count from 1 to 4 and odd batches (a thread
// with two chunks, a thread with none), on geometries whose rows of patches are one shifted copy
// of the input plane (stride 1 and as many output as input columns, with dilation, a rectangular
// kernel and a padding wider than the image) and others, in f32 and f64 against the naive loop.
TEST(ConvIm2colChunks, EveryThreadCountAndBatchMatchesNaiveLoop) {
  const std::vector<ConvProblem> shapes{
      {{5, 3, 7, 7}, {4, 3, 3, 3}, true, {.padding = 1}},                  // same 3x3
      {{7, 2, 6, 9}, {3, 2, 3, 5}, true, {.padding = {1, 2}}},             // rectangular
      {{3, 2, 9, 9}, {3, 2, 3, 3}, false, {.padding = 2, .dilation = 2}},  // dilated
      {{5, 2, 2, 2}, {3, 2, 5, 5}, true, {.padding = 2}},                  // pad > image
      {{5, 4, 6, 6}, {6, 2, 3, 3}, true, {.padding = 1, .groups = 2}},     // groups
      {{7, 3, 8, 9}, {5, 3, 3, 3}, true, {.stride = 2, .padding = 1}},     // strided
      {{5, 16, 32, 32}, {8, 16, 3, 3}, true, {.padding = 1}},  // 0.6 MB of patches: a chunk each
  };
  ConvAlgorithmGuard guard(ConvAlgorithm::im2col);
  const int threads = get_num_threads();
  for (int t = 1; t <= 4; ++t) {
    set_num_threads(t);
    for (const ConvProblem& c : shapes)
      for (DType dt : {DType::f32, DType::f64}) {
        SCOPED_TRACE(describe(c) + " threads " + std::to_string(t) + " " + dtype_name(dt));
        check_against_naive_loop(c, dt);
      }
  }
  set_num_threads(threads);
}

// ---- f64: the im2col path against the naive loop and finite differences ------------------------

TEST(ConvF64, ForwardMatchesNaiveLoop) {
  for (const ConvProblem& c : problems()) {
    SCOPED_TRACE(describe(c));
    const layerref::Values x = optest::uniform(c.x.numel(), 11),
                           w = optest::uniform(c.w.numel(), 12), b = optest::uniform(c.w[0], 13);
    const Tensor out = conv2d(make(x, c.x, DType::f64), make(w, c.w, DType::f64),
                              c.bias ? make(b, {c.w[0]}, DType::f64) : Tensor(), c.p);
    EXPECT_TRUE(matches(out, DType::f64, layerref::conv_forward(c, x, w, b)));
  }
}

TEST(ConvGradcheck, EveryGeometryEveryInput) {
  for (size_t i = 0; i + 2 < problems().size(); ++i) {  // the CNN layers are too big for FD
    const ConvProblem& c = problems()[i];
    SCOPED_TRACE(describe(c));
    const Conv2dParams p = c.p;
    std::vector<Tensor> inputs{random_leaf(c.x, 20 + i), random_leaf(c.w, 40 + i)};
    if (c.bias) inputs.push_back(random_leaf({c.w[0]}, 60 + i));
    EXPECT_TRUE(gradcheck(
        [p](const std::vector<Tensor>& in) {
          return conv2d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), p);
        },
        inputs));
  }
}

TEST(ConvGradcheck, StridedInputAndWeight) {
  const Conv2dParams p{.stride = 2, .padding = 1};
  EXPECT_TRUE(gradcheck(
      [p](const std::vector<Tensor>& in) { return conv2d(in[0], in[1], in[2], p); },
      {strided_leaf({2, 3, 6, 5}, 1), strided_leaf({4, 3, 3, 2}, 2), random_leaf({4}, 3)}));
}

TEST(ConvGradcheck, ComposedWithOtherOps) {
  // conv -> relu -> conv, so gradients arrive as the output of other ops' rules.
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        const Tensor h = relu(conv2d(in[0], in[1], Tensor(), {.padding = 1}));
        return conv2d(h, in[2], Tensor(), {.stride = 2});
      },
      {random_leaf({1, 2, 6, 6}, 4), random_leaf({3, 2, 3, 3}, 5), random_leaf({2, 3, 2, 2}, 6)}));
}

// ---- shapes and errors --------------------------------------------------------------------------

TEST(ConvShapes, OutputShape) {
  for (const ConvProblem& c : problems())
    EXPECT_EQ(conv2d_output_shape(c.x, c.w, c.p), layerref::conv_out_shape(c)) << describe(c);
  EXPECT_EQ(conv2d_output_shape({128, 1, 28, 28}, {32, 1, 5, 5}), (Shape{128, 32, 24, 24}));
}

TEST(ConvErrors, ChannelMismatchNamesBothShapes) {
  const Tensor x = zeros({2, 3, 8, 8}), w = zeros({4, 2, 3, 3});
  EXPECT_EXADNN_ERROR(conv2d(x, w), "conv2d", "[2, 3, 8, 8]", "[4, 2, 3, 3]", "channels");
  EXPECT_EXADNN_ERROR(conv2d(x, zeros({4, 1, 3, 3}), Tensor(), {.groups = 2}), "conv2d",
                      "[2, 3, 8, 8]", "groups");
  EXPECT_EXADNN_ERROR(conv2d(zeros({2, 4, 8, 8}), zeros({4, 1, 3, 3}), Tensor(), {.groups = 2}),
                      "conv2d", "[2, 4, 8, 8]", "[4, 1, 3, 3]", "per group");
  EXPECT_EXADNN_ERROR(conv2d(zeros({2, 4, 8, 8}), zeros({3, 2, 3, 3}), Tensor(), {.groups = 2}),
                      "conv2d", "[3, 2, 3, 3]", "output channels");
}

TEST(ConvErrors, BadShapesAndParameters) {
  const Tensor x = zeros({2, 3, 8, 8}), w = zeros({4, 3, 3, 3});
  EXPECT_EXADNN_ERROR(conv2d(zeros({3, 8, 8}), w), "conv2d", "4-D", "[3, 8, 8]");
  EXPECT_EXADNN_ERROR(conv2d(x, zeros({4, 3, 3})), "conv2d", "weight", "[4, 3, 3]");
  EXPECT_EXADNN_ERROR(conv2d(x, w, zeros({3})), "conv2d", "bias", "[4]", "[3]");
  EXPECT_EXADNN_ERROR(conv2d(x, zeros({4, 3, 9, 9})), "conv2d", "[4, 3, 9, 9]", "[2, 3, 8, 8]");
  EXPECT_EXADNN_ERROR(conv2d(x, zeros({4, 3, 3, 3}), Tensor(), {.dilation = 4}), "conv2d",
                      "does not fit");
  EXPECT_EXADNN_ERROR(conv2d(x, w, Tensor(), {.stride = 0}), "conv2d", "stride");
  EXPECT_EXADNN_ERROR(conv2d(x, w, Tensor(), {.padding = -1}), "conv2d", "padding");
  EXPECT_EXADNN_ERROR(conv2d(x, w, Tensor(), {.dilation = 0}), "conv2d", "dilation");
  EXPECT_EXADNN_ERROR(conv2d(x, w, Tensor(), {.groups = 0}), "conv2d", "groups");
  EXPECT_EXADNN_ERROR(conv2d(Tensor(), w), "conv2d", "input", "undefined");
}

TEST(ConvErrors, DtypeMismatchAndUnsupportedDtype) {
  EXPECT_EXADNN_ERROR(conv2d(zeros({1, 1, 4, 4}), zeros({1, 1, 2, 2}, DType::f64)), "conv2d", "f32",
                      "f64");
  EXPECT_EXADNN_ERROR(conv2d(zeros({1, 1, 4, 4}), zeros({1, 1, 2, 2}), zeros({1}, DType::f64)),
                      "conv2d", "bias", "f64");
  EXPECT_EXADNN_ERROR(conv2d(zeros({1, 1, 4, 4}, DType::i32), zeros({1, 1, 2, 2}, DType::i32)),
                      "no kernel for op 'conv2d_forward'", "i32");
}

}  // namespace
