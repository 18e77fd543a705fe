// Adam over the wide MLP's parameters (784-2048-2048-10: 5.8 M, 23 MB of f32 per state array),
// measuring what the issue-21 lever "each layer's update applied where its weight gradient is
// written" could save: Adam reads p, g, m, v and writes p, m, v, so one step moves ~163 MB.
//   optimizer/adam/wide_mlp/cold   every gradient written, then 64 MB of other memory swept (as
//                                  the rest of the backward pass would), then one Adam step over
//                                  all parameters: today's separate optimizer pass
//   optimizer/adam/wide_mlp/hot    layer by layer, the gradient written and at once that layer's
//                                  Adam step (one optimizer per layer): the gradient is read
//                                  back from the caches instead of memory
// The gradient writes and the sweep are outside the timed region; "GB/s" counts the 7 arrays an
// update touches. Run with EXADNN_THREADS=2 (or OMP_NUM_THREADS) as training does.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "exadnn/exadnn.h"

namespace {

using exadnn::Tensor;

// The wide MLP's parameters, weights [out, in] and biases [out], with zeroed gradients set.
std::vector<Tensor> wide_mlp_params() {
  std::vector<Tensor> params;
  const std::vector<std::pair<int64_t, int64_t>> layers = {{2048, 784}, {2048, 2048}, {10, 2048}};
  for (const auto& [out, in] : layers) {
    for (const exadnn::Shape& shape : {exadnn::Shape{out, in}, exadnn::Shape{out}}) {
      Tensor p = exadnn::randn(shape);
      p.requires_grad_(true);
      p.set_grad(exadnn::zeros(shape));
      params.push_back(p);
    }
  }
  return params;
}

// Writes every value of p's gradient (as a GEMM writes its output).
void write_grad(const Tensor& p, float value) {
  Tensor g = p.grad();
  float* d = g.data<float>();
  std::fill(d, d + g.numel(), value);
}

void sweep(std::vector<float>& other) {
  for (float& x : other) x += 1.0f;
  benchmark::DoNotOptimize(other.data());
}

void bytes_counter(benchmark::State& state, const std::vector<Tensor>& params) {
  int64_t n = 0;
  for (const Tensor& p : params) n += p.numel();
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(n) * 7 * sizeof(float),
                                              benchmark::Counter::kIsIterationInvariantRate,
                                              benchmark::Counter::kIs1000);
}

void BM_adam_cold(benchmark::State& state) {
  const std::vector<Tensor> params = wide_mlp_params();
  exadnn::optim::Adam adam(params);
  std::vector<float> other(16 << 20);  // 64 MB
  for (auto _ : state) {
    state.PauseTiming();
    for (const Tensor& p : params) write_grad(p, 1e-3f);
    sweep(other);
    state.ResumeTiming();
    adam.step();
  }
  bytes_counter(state, params);
}

void BM_adam_hot(benchmark::State& state) {
  const std::vector<Tensor> params = wide_mlp_params();
  std::vector<std::unique_ptr<exadnn::optim::Adam>> per_layer;
  for (const Tensor& p : params)
    per_layer.push_back(std::make_unique<exadnn::optim::Adam>(std::vector<Tensor>{p}));
  std::vector<float> other(16 << 20);
  for (auto _ : state) {
    state.PauseTiming();
    sweep(other);
    state.ResumeTiming();
    // Backward order (the last layer's gradients first); each write is outside the timed region.
    for (std::size_t i = params.size(); i-- > 0;) {
      state.PauseTiming();
      write_grad(params[i], 1e-3f);
      state.ResumeTiming();
      per_layer[i]->step();
    }
  }
  bytes_counter(state, params);
}

}  // namespace

BENCHMARK(BM_adam_cold)
    ->Name("optimizer/adam/wide_mlp/cold")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_adam_hot)
    ->Name("optimizer/adam/wide_mlp/hot")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
