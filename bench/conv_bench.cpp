// The layer ops at the sizes of the Fashion-MNIST CNN (batch 128):
//   conv1  [128, 1, 28, 28]  * [32, 1, 5, 5]  -> [128, 32, 24, 24]
//   pool1  max 2x2           -> [128, 32, 12, 12]
//   conv2  [128, 32, 12, 12] * [64, 32, 5, 5] -> [128, 64, 8, 8]
//   pool2  max 2x2           -> [128, 64, 4, 4]
// each on both CPU algorithms (algo 0: oneDNN, 1: im2col + GEMM / exadnn's loops) and in two
// dtypes (bf16 0: f32; 1: bf16 tensors for the layers — oneDNN's bf16 kernels, or widened to f32
// on the im2col path — and for cnn/step f32 parameters under precision::Autocast(bf16), as
// `precision: bf16` trains):
//   conv/forward        conv2d alone (no graph)
//   conv/train          conv2d forward + backward as in training (conv1: weight and bias
//                       gradients only, its input is data; conv2: input, weight and bias)
//   conv/resnet_train   the same for ResNet-18's 3x3 layers (layers 2..6: 64, 128 and 256
//                       channels at 16x16, 8x8 and 4x4, and the two strided ones), 2 threads
//   pool/train          max_pool2d forward + backward
//   batch_norm/train    batch_norm forward + backward in training mode (f32) at ResNet-18's
//                       four stage sizes on 3x64x64 inputs, batch 128 (layer 0..3: [128, 64, 16,
//                       16], [128, 128, 8, 8], [128, 256, 4, 4], [128, 512, 2, 2]) and the
//                       stem's output on 3x128x128 inputs, batch 64 (layer 4: [64, 64, 64, 64]);
//                       algo 0 is oneDNN, 1 exadnn's channel-parallel loops (the default)
//   conv_pool/train     conv2d_max_pool2d (the fused Conv2d, MaxPool2d 2x2 node) forward +
//   backward,
//                       f32, algo 0: oneDNN's step (ConvAlgorithm::onednn), 1: the default
//                       (`fastest`: exadnn's loop where it takes the problem — few input
//                       channels — else oneDNN's convolution with exadnn's channels-last
//                       pooling); problems 0..5: the CNN's conv1 and conv2, RGB 5x5 and 3x3
//                       first layers, a 7x7 layer of 4 channels, conv1 with its input's gradient;
//                       6, 7: 3x3 channels-last layers with their input's gradient (64 -> 64,
//                       16 -> 32 channels, 16x16 images); 8: conv1 writing channels-last, with a
//                       channels-last gradient, as in the CNN's training
//   conv_relu_pool/train  the Conv2d, ReLU, MaxPool2d step of the CNN's conv1 (problem 8) and
//                       conv2 (1): relu 0 relu(conv2d_max_pool2d(...)), two nodes; 1
//                       conv2d_relu_max_pool2d, the ReLU inside the fused kernels
//   cnn/step            the whole CNN's forward + backward (conv-relu-pool twice, linear 1024->256,
//                       relu, linear 256->10, log_softmax loss), no optimizer: samples/s
// GFLOP/s counts 2·N·O·OH·OW·C/g·KH·KW per convolution pass (forward, backward data, backward
// weights) against wall time. Each case runs with 1 and 2 threads; the CPU column is the whole
// process's CPU time, which on a shared machine is the steadier figure for 1 thread.
// EXADNN_ONEDNN_LAYOUT=blocked|plain|nhwc picks the layout the oneDNN convolutions work in (see
// src/backend/README.md); run the binary once per value to compare.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "exadnn/exadnn.h"

namespace {

using namespace exadnn;

struct Layer {
  Shape x, w;
  bool input_grad;
  Conv2dParams p{};
};

// 0, 1: the CNN's conv1 and conv2; 2..6: ResNet-18's 3x3 layers on 3x64x64 inputs, batch 128
// (the three stride-1 stages and the two strided ones), for conv/resnet_train.
const Layer kLayers[] = {{{128, 1, 28, 28}, {32, 1, 5, 5}, false},
                         {{128, 32, 12, 12}, {64, 32, 5, 5}, true},
                         {{128, 64, 16, 16}, {64, 64, 3, 3}, true, {.padding = 1}},
                         {{128, 128, 8, 8}, {128, 128, 3, 3}, true, {.padding = 1}},
                         {{128, 256, 4, 4}, {256, 256, 3, 3}, true, {.padding = 1}},
                         {{128, 64, 16, 16}, {128, 64, 3, 3}, true, {.stride = 2, .padding = 1}},
                         {{128, 128, 8, 8}, {256, 128, 3, 3}, true, {.stride = 2, .padding = 1}}};

double conv_flops(const Layer& l) {
  const Shape o = conv2d_output_shape(l.x, l.w, l.p);
  return 2.0 * static_cast<double>(o.numel()) * static_cast<double>(l.w[1] * l.w[2] * l.w[3]);
}

ConvAlgorithm algo(int64_t a) {
  return a == 0 ? ConvAlgorithm::onednn : ConvAlgorithm::im2col;
}

DType dtype(const benchmark::State& state) {
  return state.range(3) ? DType::bf16 : DType::f32;
}

void setup(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(2)));
  state.SetLabel(std::string(conv_algorithm_name(algo(state.range(1)))) + " " +
                 dtype_name(dtype(state)));
}

void BM_conv_forward(benchmark::State& state) {
  setup(state);
  ConvAlgorithmGuard guard(algo(state.range(1)));
  const Layer& l = kLayers[state.range(0)];
  Generator gen(1);
  const DType dt = dtype(state);
  const Tensor x = randn(l.x, {}, &gen).to(dt), w = randn(l.w, {}, &gen).to(dt),
               b = randn({l.w[0]}, {}, &gen).to(dt);
  benchmark::DoNotOptimize(conv2d(x, w, b, l.p).data_ptr());  // warm-up: primitives, JIT
  for (auto _ : state) {
    Tensor out = conv2d(x, w, b, l.p);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(conv_flops(l) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_conv_train(benchmark::State& state) {
  setup(state);
  ConvAlgorithmGuard guard(algo(state.range(1)));
  const Layer& l = kLayers[state.range(0)];
  Generator gen(1);
  const DType dt = dtype(state);
  Tensor x = randn(l.x, {}, &gen).to(dt);
  if (l.input_grad) x.requires_grad_();
  Tensor w = randn(l.w, {}, &gen).to(dt).requires_grad_();
  Tensor b = randn({l.w[0]}, {}, &gen).to(dt).requires_grad_();
  const Tensor g = randn(conv2d_output_shape(l.x, l.w, l.p), {}, &gen).to(dt);
  auto step = [&] {
    conv2d(x, w, b, l.p).backward(g);
    w.zero_grad();
    b.zero_grad();
    if (l.input_grad) x.zero_grad();
  };
  step();
  for (auto _ : state) step();
  const double passes = l.input_grad ? 3.0 : 2.0;
  state.counters["GFLOP/s"] = benchmark::Counter(passes * conv_flops(l) / 1e9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_pool_train(benchmark::State& state) {
  setup(state);
  ConvAlgorithmGuard guard(algo(state.range(1)));
  const Shape shape = state.range(0) == 0 ? Shape{128, 32, 24, 24} : Shape{128, 64, 8, 8};
  Generator gen(1);
  Tensor x = randn(shape, {}, &gen).to(dtype(state)).requires_grad_();
  const Tensor g = randn({shape[0], shape[1], shape[2] / 2, shape[3] / 2}, {}, &gen).to(x.dtype());
  auto step = [&] {
    max_pool2d(x, 2).backward(g);
    x.zero_grad();
  };
  step();
  for (auto _ : state) step();
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(x.nbytes()) * 2.5 / 1e9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void BM_batch_norm_train(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(2)));
  ConvAlgorithmGuard guard(algo(state.range(1)));
  state.SetLabel(conv_algorithm_name(algo(state.range(1))));
  const int64_t layer = state.range(0);
  const int64_t n = layer < 4 ? 128 : 64, c = layer < 4 ? int64_t{64} << layer : 64,
                hw = layer < 4 ? int64_t{16} >> layer : 64;
  Generator gen(1);
  Tensor x = randn({n, c, hw, hw}, {}, &gen).requires_grad_();
  Tensor w = ones({c}).requires_grad_(), b = zeros({c}).requires_grad_();
  Tensor running_mean = zeros({c}), running_var = ones({c});
  const Tensor g = randn(x.shape(), {}, &gen);
  auto step = [&] {
    batch_norm(x, running_mean, running_var, w, b, true).backward(g);
    x.zero_grad();
    w.zero_grad();
    b.zero_grad();
  };
  step();
  for (auto _ : state) step();
  // Bytes at least: forward reads x twice (mean, variance) and writes y; backward reads x and
  // the gradient for the sums, then both again and writes dx.
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(x.nbytes()) * 8 / 1e9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

struct ConvPoolProblem {
  Shape x, w;
  int64_t pad;
  bool input_grad;
  bool nhwc_out = false;  // the output and its gradient channels-last (as the CNN's conv1 writes)
};

const ConvPoolProblem kConvPool[] = {
    {{128, 1, 28, 28}, {32, 1, 5, 5}, 0, false},      {{128, 32, 12, 12}, {64, 32, 5, 5}, 0, true},
    {{128, 3, 32, 32}, {32, 3, 5, 5}, 0, false},      {{128, 3, 32, 32}, {64, 3, 3, 3}, 1, false},
    {{32, 4, 64, 64}, {32, 4, 7, 7}, 3, false},       {{128, 1, 28, 28}, {32, 1, 5, 5}, 0, true},
    {{128, 64, 16, 16}, {64, 64, 3, 3}, 1, true},     {{128, 16, 16, 16}, {32, 16, 3, 3}, 1, true},
    {{128, 1, 28, 28}, {32, 1, 5, 5}, 0, false, true}};

// One conv_pool problem's operands: input, weights, bias, and an output gradient in the output's
// format.
struct ConvPoolCase {
  const ConvPoolProblem& p;
  Tensor x, w, b, g;
  Conv2dParams params;
  MemoryFormat format;
  explicit ConvPoolCase(const ConvPoolProblem& problem) : p(problem) {
    Generator gen(1);
    x = randn(p.x, {}, &gen).requires_grad_(p.input_grad);
    w = randn(p.w, {}, &gen).requires_grad_();
    b = randn({p.w[0]}, {}, &gen).requires_grad_();
    params = {.padding = p.pad};
    format = p.nhwc_out ? MemoryFormat::channels_last : MemoryFormat::contiguous;
    const Shape o = conv2d_max_pool2d(x, w, b, params, 2, 2, 0).shape();
    g = p.nhwc_out ? randn({o[0], o[2], o[3], o[1]}, {}, &gen).permute({0, 3, 1, 2})
                   : randn(o, {}, &gen);
  }
  void backward(const Tensor& y) {
    y.backward(g);
    w.zero_grad();
    b.zero_grad();
    x.zero_grad();
  }
  // The convolution passes' FLOPs of one forward + backward.
  double flops() const {
    const double pass = 2.0 * static_cast<double>(conv2d_output_shape(p.x, p.w, params).numel()) *
                        static_cast<double>(p.w[1] * p.w[2] * p.w[3]);
    return (p.input_grad ? 3.0 : 2.0) * pass;
  }
};

void BM_conv_pool_train(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(2)));
  const ConvAlgorithm a = state.range(1) == 0 ? ConvAlgorithm::onednn : ConvAlgorithm::fastest;
  state.SetLabel(conv_algorithm_name(a));
  ConvAlgorithmGuard guard(a);
  ConvPoolCase c(kConvPool[state.range(0)]);
  auto step = [&] { c.backward(conv2d_max_pool2d(c.x, c.w, c.b, c.params, 2, 2, 0, c.format)); };
  step();
  for (auto _ : state) step();
  state.counters["GFLOP/s"] =
      benchmark::Counter(c.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// The ReLU of a Conv2d, ReLU, MaxPool2d step: relu(conv2d_max_pool2d(...)), two nodes (relu 0),
// against conv2d_relu_max_pool2d, the ReLU inside the fused kernels (relu 1); default algorithm.
void BM_conv_relu_pool_train(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(2)));
  ConvPoolCase c(kConvPool[state.range(0)]);
  const bool fused = state.range(1) == 1;
  state.SetLabel(fused ? "conv2d_relu_max_pool2d" : "relu(conv2d_max_pool2d)");
  auto step = [&] {
    c.backward(fused ? conv2d_relu_max_pool2d(c.x, c.w, c.b, c.params, 2, 2, 0, c.format)
                     : relu(conv2d_max_pool2d(c.x, c.w, c.b, c.params, 2, 2, 0, c.format)));
  };
  step();
  for (auto _ : state) step();
  state.counters["GFLOP/s"] =
      benchmark::Counter(c.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// The CNN of configs/fashion_mnist_cnn.yaml written with functional ops.
void BM_cnn_step(benchmark::State& state) {
  setup(state);
  ConvAlgorithmGuard guard(algo(state.range(1)));
  Generator gen(1);
  const int64_t n = 128;
  auto param = [&](const Shape& s, double scale) {
    Tensor p = randn(s, {}, &gen);
    mul_(p, scale);
    return p.requires_grad_();
  };
  std::vector<Tensor> params{
      param({32, 1, 5, 5}, 0.2), param({32}, 0.1),  param({64, 32, 5, 5}, 0.03), param({64}, 0.1),
      param({1024, 256}, 0.03),  param({256}, 0.1), param({256, 10}, 0.06),      param({10}, 0.1)};
  const Tensor images = rand({n, 1, 28, 28}, {}, &gen);
  Tensor onehot = zeros({n, 10});
  for (int64_t i = 0; i < n; ++i) fill_(onehot.select(0, i).narrow(0, i % 10, 1), 1.0);
  const DType autocast = dtype(state);
  auto step = [&] {
    precision::Autocast scope(autocast);
    Tensor h = max_pool2d(relu(conv2d(images, params[0], params[1])), 2);
    h = max_pool2d(relu(conv2d(h, params[2], params[3])), 2);
    h = relu(matmul(h.reshape({n, 1024}), params[4]) + params[5]);
    const Tensor logits = matmul(h, params[6]) + params[7];
    const Tensor loss = neg(sum(log_softmax(logits, 1) * onehot)) / static_cast<double>(n);
    loss.backward();
    for (Tensor& p : params) p.zero_grad();
  };
  step();
  for (auto _ : state) step();
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

void layer_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"layer", "algo", "threads", "bf16"});
  for (int64_t bf16 : {0, 1})
    for (int64_t threads : {1, 2})
      for (int64_t layer : {0, 1})
        for (int64_t a : {0, 1}) b->Args({layer, a, threads, bf16});
  b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

// ResNet-18's 3x3 layers, f32, 2 threads: oneDNN (algo 0) against the im2col route (1).
void resnet_layer_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"layer", "algo", "threads", "bf16"});
  for (int64_t layer = 2; layer < std::ssize(kLayers); ++layer)
    for (int64_t a : {0, 1}) b->Args({layer, a, 2, 0});
  b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

void batch_norm_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"layer", "algo", "threads"});
  for (int64_t threads : {1, 2})
    for (int64_t layer : {0, 1, 2, 3, 4})
      for (int64_t a : {0, 1}) b->Args({layer, a, threads});
  b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

void conv_pool_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"problem", "algo", "threads"});
  for (int64_t threads : {1, 2})
    for (int64_t problem = 0; problem < std::ssize(kConvPool); ++problem)
      for (int64_t a : {0, 1}) b->Args({problem, a, threads});
  b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

// The CNN's two steps: conv1 writing channels-last (problem 8) and conv2 (problem 1).
void conv_relu_pool_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"problem", "relu", "threads"});
  for (int64_t threads : {1, 2})
    for (int64_t problem : {8, 1})
      for (int64_t fused : {0, 1}) b->Args({problem, fused, threads});
  b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

void step_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"unused", "algo", "threads", "bf16"});
  for (int64_t bf16 : {0, 1})
    for (int64_t threads : {1, 2})
      for (int64_t a : {0, 1}) b->Args({0, a, threads, bf16});
  b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_conv_forward)->Name("conv/forward")->Apply(layer_args);
BENCHMARK(BM_conv_train)->Name("conv/train")->Apply(layer_args);
BENCHMARK(BM_conv_train)->Name("conv/resnet_train")->Apply(resnet_layer_args);
BENCHMARK(BM_pool_train)->Name("pool/train")->Apply(layer_args);
BENCHMARK(BM_batch_norm_train)->Name("batch_norm/train")->Apply(batch_norm_args);
BENCHMARK(BM_conv_pool_train)->Name("conv_pool/train")->Apply(conv_pool_args);
BENCHMARK(BM_conv_relu_pool_train)->Name("conv_relu_pool/train")->Apply(conv_relu_pool_args);
BENCHMARK(BM_cnn_step)->Name("cnn/step")->Apply(step_args);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const char* layout = std::getenv("EXADNN_ONEDNN_LAYOUT");
  benchmark::AddCustomContext("EXADNN_ONEDNN_LAYOUT", layout ? layout : "(unset)");
  std::fprintf(stderr, "%s", exadnn::runtime_info().c_str());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
