// Layer fusion (src/nn/layer_fusion.h): linear_relu against a reference loop and finite
// differences, and Sequential's fused pairs against the same layers run one by one. Run a second
// time with EXADNN_GEMM=blas (tests/CMakeLists.txt), where the CPU kernel applies the bias and
// the ReLU after a BLAS GEMM instead of as oneDNN post-ops.
#include <algorithm>
#include <cstdlib>

#include "exadnn/core/profiler.h"
#include "profiler_on.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;
using exadnn::testing::tolerance_for;
using exadnn::testing::values;

namespace {

// max(0, x·Wᵀ + b) in f64 loops: x [rows, in], w [out, in], b [out] or empty.
std::vector<double> linear_relu_reference(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t in = w.size(1), out = w.size(0), rows = x.numel() / in;
  const std::vector<double> xv = values(x), wv = values(w);
  const std::vector<double> bv = b.defined() ? values(b) : std::vector<double>(out, 0.0);
  std::vector<double> y;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double acc = bv[o];
      for (int64_t i = 0; i < in; ++i) acc += xv[r * in + i] * wv[o * in + i];
      y.push_back(std::max(acc, 0.0));
    }
  return y;
}

// f32 values in {-1.5, -1, ..., 2} (ties and zeros in most pooling windows), fixed sequence.
Tensor on_a_grid(const Shape& shape) {
  std::vector<float> v(static_cast<size_t>(shape.numel()));
  uint32_t state = 12345;
  for (float& e : v) {
    state = state * 1664525u + 1013904223u;
    e = 0.5f * static_cast<float>(static_cast<int>(state >> 29) - 3);  // -3..4, half-steps
  }
  return from_vector<float>(v).reshape(shape);
}

// The gradients of the leaves after backward of sum(y · weights), weights fixed per element
// (on a grid: sums of grid values stay exact).
std::vector<std::vector<double>> grads_of(const Tensor& y, const std::vector<Tensor>& leaves) {
  const Tensor weights = on_a_grid(y.shape()).to(y.dtype());
  sum(mul(y, weights)).backward();
  std::vector<std::vector<double>> g;
  for (const Tensor& leaf : leaves) g.push_back(values(leaf.grad()));
  return g;
}

template <class Layer, class... Args>
std::shared_ptr<nn::Module> make(Args&&... args) {
  return std::make_shared<Layer>(std::forward<Args>(args)...);
}

}  // namespace

TEST(LayerFusion, LinearReluMatchesAReferenceLoop) {
  manual_seed(1);
  for (bool with_bias : {true, false}) {
    const Tensor x = randn({7, 5, 6}), w = randn({9, 6});  // f32: the fused kernel's dtype
    const Tensor b = with_bias ? randn({9}) : Tensor();
    const Tensor y = linear_relu(x, w, b);
    EXPECT_EQ(y.shape(), (Shape{7, 5, 9}));
    EXPECT_TRUE(all_close(y, linear_relu_reference(x, w, b), tolerance_for(DType::f32)))
        << "bias " << with_bias;
    // a strided input gives the same values
    const Tensor xt = x.transpose(0, 1).contiguous().transpose(0, 1);
    EXPECT_EQ(values(linear_relu(xt, w, b)), values(y));
  }
}

TEST(LayerFusion, LinearReluGradientsMatchFiniteDifferences) {
  const Tensor x = random_leaf({4, 3}, 1), w = random_leaf({5, 3}, 2), b = random_leaf({5}, 3);
  const auto f = [](const std::vector<Tensor>& in) { return linear_relu(in[0], in[1], in[2]); };
  EXPECT_TRUE(gradcheck(f, {x, w, b}));
  const Tensor x3 = strided_leaf({2, 3, 3}, 4);
  EXPECT_TRUE(
      gradcheck([&](const std::vector<Tensor>& in) { return linear_relu(in[0], w); }, {x3}));
}

TEST(LayerFusion, LinearReluGradientsInF32MatchTheUnfusedOps) {
  manual_seed(2);
  const Tensor x0 = randn({16, 12}), w0 = randn({10, 12}), b0 = randn({10});
  const auto leaves = [&] {
    return std::vector<Tensor>{x0.detach().requires_grad_(), w0.detach().requires_grad_(),
                               b0.detach().requires_grad_()};
  };
  const std::vector<Tensor> fused = leaves(), plain = leaves();
  const Tensor y_fused = linear_relu(fused[0], fused[1], fused[2]);
  const Tensor y_plain = relu(linear(plain[0], plain[1], plain[2]));
  EXPECT_TRUE(all_close(y_fused, y_plain));
  const auto g_fused = grads_of(y_fused, fused), g_plain = grads_of(y_plain, plain);
  for (size_t i = 0; i < g_fused.size(); ++i)
    EXPECT_TRUE(all_close(from_vector<double>(g_fused[i]), from_vector<double>(g_plain[i])))
        << "gradient " << i;
}

TEST(LayerFusion, LinearReluAtAReducedMatmulPrecisionIsTheUnfusedResult) {
  manual_seed(3);
  const Tensor x = randn({8, 32}), w = randn({4, 32}), b = randn({4});
  const MatmulPrecisionGuard bf16(MatmulPrecision::bf16);
  EXPECT_EQ(values(linear_relu(x, w, b)), values(relu(linear(x, w, b))));
}

TEST(LayerFusion, LinearReluNamesItsShapeErrors) {
  EXPECT_EXADNN_ERROR(linear_relu(zeros({4, 5}), zeros({3, 6})), "linear_relu", "[4, 5]", "[3, 6]");
}

TEST(LayerFusion, SequentialLinearReluEqualsTheLayersOneByOne) {
  manual_seed(4);
  const auto first = std::make_shared<nn::Linear>(6, 8);
  const auto second = std::make_shared<nn::Linear>(8, 3);
  nn::Sequential net({first, make<nn::ReLU>(), second});
  const Tensor x = randn({5, 6});
  const Tensor fused = net.forward(x);
  const auto g_fused = grads_of(fused, {first->weight, first->bias});
  net.zero_grad();
  const Tensor plain = second->forward(relu(first->forward(x)));
  const auto g_plain = grads_of(plain, {first->weight, first->bias});
  EXPECT_TRUE(all_close(fused, plain));
  for (size_t i = 0; i < g_fused.size(); ++i)
    EXPECT_TRUE(all_close(from_vector<double>(g_fused[i]), from_vector<double>(g_plain[i])));
}

// Pooling first is exact: the same values and gradients, bit for bit, also with ties (values on
// a grid of 0.5, zeros included) and windows whose maximum is negative or zero.
TEST(LayerFusion, SequentialReluMaxPoolIsExact) {
  struct Case {
    Size2 kernel, stride, padding;
  };
  for (const Case& c : {Case{2, 2, 0}, Case{3, 2, 1}, Case{{2, 3}, 1, 0}}) {
    for (bool ties : {false, true}) {
      manual_seed(5);
      const Tensor x0 = ties ? on_a_grid({2, 3, 9, 8}) : randn({2, 3, 9, 8});
      const auto pool = std::make_shared<nn::MaxPool2d>(c.kernel, c.stride, c.padding);
      nn::Sequential net({make<nn::ReLU>(), pool});
      const Tensor xf = x0.detach().requires_grad_(), xp = x0.detach().requires_grad_();
      const Tensor fused = net.forward(xf);
      const Tensor plain = max_pool2d(relu(xp), c.kernel, c.stride, c.padding);
      EXPECT_EQ(values(fused), values(plain)) << "kernel " << c.kernel << " ties " << ties;
      EXPECT_EQ(grads_of(fused, {xf}), grads_of(plain, {xp}))
          << "kernel " << c.kernel << " ties " << ties;
    }
  }
}

// BatchNorm2d, ReLU as batch_norm_relu: the values, the running statistics and the gradients of
// the layers run one by one, bit for bit, in training and in evaluation. Before max pooling the
// ReLU stays with the pool (ReLU+MaxPool2d), as the profiler's rows show.
TEST(LayerFusion, SequentialBatchNormReluEqualsTheLayersOneByOne) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "eval");
    manual_seed(6);
    const auto norm = std::make_shared<nn::BatchNorm2d>(4);
    const auto twin = std::make_shared<nn::BatchNorm2d>(4);
    {
      const NoGradGuard no_grad;
      for (const auto& m : {norm, twin}) {
        copy_(m->weight, on_a_grid({4}));
        copy_(m->bias, on_a_grid({4}));
        copy_(m->running_var, from_vector<float>({0.5f, 1.0f, 2.0f, 4.0f}));
      }
    }
    nn::Sequential net({norm, make<nn::ReLU>()});
    net.train(training);
    twin->train(training);
    const Tensor x0 = randn({3, 4, 5, 6});
    const Tensor xf = x0.detach().requires_grad_(), xp = x0.detach().requires_grad_();
    const exadnn::testing::ProfilerOn profiling;
    const Tensor fused = net.forward(xf);
    const Tensor plain = relu(twin->forward(xp));
    EXPECT_EQ(values(fused), values(plain));
    EXPECT_EQ(values(norm->running_mean), values(twin->running_mean));
    EXPECT_EQ(values(fused.detach()), values(plain.detach()));
    EXPECT_EQ(grads_of(fused, {xf, norm->weight, norm->bias}),
              grads_of(plain, {xp, twin->weight, twin->bias}));
    bool fused_row = false;
    for (const auto& r : profiler::rows()) fused_row = fused_row || r.label == "0 BatchNorm2d+ReLU";
    const char* env = std::getenv("EXADNN_LAYER_FUSION");
    EXPECT_EQ(fused_row, env == nullptr || std::string(env) != "0");
  }
  nn::Sequential stem({make<nn::BatchNorm2d>(2), make<nn::ReLU>(), make<nn::MaxPool2d>(2)});
  const exadnn::testing::ProfilerOn profiling;
  sum(stem.forward(randn({2, 2, 4, 4}))).backward();
  bool pool_row = false, norm_relu_row = false;
  for (const auto& r : profiler::rows()) {
    pool_row = pool_row || r.label == "1 ReLU+MaxPool2d";
    norm_relu_row = norm_relu_row || r.label == "0 BatchNorm2d+ReLU";
  }
  EXPECT_FALSE(norm_relu_row);
  const char* env = std::getenv("EXADNN_LAYER_FUSION");
  EXPECT_EQ(pool_row, env == nullptr || std::string(env) != "0");
}

// Only the exact classes are fused: a subclass's own forward still runs.
TEST(LayerFusion, SubclassesAreNotFused) {
  struct NoisyReLU : nn::ReLU {
    int calls = 0;
    Tensor forward(const Tensor& x) override {
      ++calls;
      return nn::ReLU::forward(x);
    }
  };
  const auto noisy = std::make_shared<NoisyReLU>();
  nn::Sequential net({make<nn::Linear>(4, 4), noisy, make<nn::MaxPool2d>(Size2{1, 2})});
  net.forward(randn({1, 2, 3, 4}));
  EXPECT_EQ(noisy->calls, 1);
}

// EXADNN_LAYER_FUSION=0 runs every layer on its own (ctest runs this file again with it set).
TEST(LayerFusion, TheEnvironmentSwitchDecidesWhetherPairsFuse) {
  const char* env = std::getenv("EXADNN_LAYER_FUSION");
  const bool on = env == nullptr || std::string(env) != "0";
  nn::Sequential net({make<nn::Linear>(3, 3), make<nn::ReLU>()});
  const exadnn::testing::ProfilerOn profiling;
  sum(net.forward(randn({2, 3}))).backward();
  bool fused_row = false, relu_row = false;
  for (const auto& r : profiler::rows()) {
    fused_row = fused_row || r.label == "0 Linear+ReLU";
    relu_row = relu_row || r.label == "1 ReLU";
  }
  EXPECT_EQ(fused_row, on);
  EXPECT_EQ(relu_row, !on);
}

// Conv2d, ReLU, MaxPool2d as one conv2d_relu_max_pool2d node (the ReLU on the pooled values): the
// values and the parameters' gradients of the layers run one by one. Input and parameters on a
// grid of 1/8 (every f32 sum exact, whatever order the kernels sum in).
TEST(LayerFusion, SequentialConvReluMaxPoolEqualsTheLayersOneByOne) {
  const auto conv = std::make_shared<nn::Conv2d>(nn::Conv2dOptions(3, 8, 3).padding(1));
  const auto pool = std::make_shared<nn::MaxPool2d>(2);
  nn::Sequential net({conv, make<nn::ReLU>(), pool, make<nn::Flatten>()});
  {
    const NoGradGuard no_grad;
    copy_(conv->weight, mul(on_a_grid(conv->weight.shape()), scalar_tensor(0.25)));
    copy_(conv->bias, on_a_grid(conv->bias.shape()));
  }
  const Tensor x = on_a_grid({4, 3, 10, 10});
  const Tensor fused = net.forward(x);
  const auto g_fused = grads_of(fused, {conv->weight, conv->bias});
  net.zero_grad();
  const Tensor plain = pool->forward(relu(conv->forward(x))).reshape({4, -1});
  const auto g_plain = grads_of(plain, {conv->weight, conv->bias});
  EXPECT_EQ(values(fused), values(plain));
  EXPECT_EQ(g_fused, g_plain);
}

// Two Conv2d, ReLU, MaxPool2d steps in a row (the CNN's shape): the first node's pooled output is
// channels-last, the second reads it without a reorder and returns the input's gradient in it.
// Values, every parameter's gradient and the input's: the layers one by one's.
TEST(LayerFusion, TwoConvPoolStepsPassChannelsLastBetweenThem) {
  const auto conv1 = std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 16, 3));
  const auto conv2 = std::make_shared<nn::Conv2d>(nn::Conv2dOptions(16, 32, 3).padding(1));
  const auto pool1 = std::make_shared<nn::MaxPool2d>(2), pool2 = std::make_shared<nn::MaxPool2d>(2);
  const auto relu1 = make<nn::ReLU>(), relu2 = make<nn::ReLU>();
  nn::Sequential net({conv1, relu1, pool1, conv2, relu2, pool2, make<nn::Flatten>()});
  {
    const NoGradGuard no_grad;
    for (const auto& conv : {conv1, conv2}) {
      copy_(conv->weight, mul(on_a_grid(conv->weight.shape()), scalar_tensor(0.25)));
      copy_(conv->bias, on_a_grid(conv->bias.shape()));
    }
  }
  const std::vector<Tensor> leaves{conv1->weight, conv1->bias, conv2->weight, conv2->bias};
  const Tensor x0 = on_a_grid({3, 1, 14, 14});
  const Tensor xf = x0.detach().requires_grad_(), xp = x0.detach().requires_grad_();
  const Tensor fused = net.forward(xf);
  std::vector<Tensor> fused_leaves = leaves, plain_leaves = leaves;
  fused_leaves.push_back(xf);
  plain_leaves.push_back(xp);
  const auto g_fused = grads_of(fused, fused_leaves);
  net.zero_grad();
  const Tensor h = pool1->forward(relu(conv1->forward(xp)));
  const Tensor plain = pool2->forward(relu(conv2->forward(h))).reshape({3, -1});
  const auto g_plain = grads_of(plain, plain_leaves);
  EXPECT_TRUE(fused.is_contiguous());  // the last step's output is the usual NCHW
  EXPECT_EQ(values(fused), values(plain));
  EXPECT_EQ(g_fused, g_plain);
}
