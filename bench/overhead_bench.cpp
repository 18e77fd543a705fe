// Fixed cost of one op, measured on 1-element f32 tensors where the arithmetic is free.
//   overhead/empty                  exadnn::empty({1}): one tensor header + one cached allocation
//   overhead/mul/no_grad            y = x * x under NoGradGuard (x requires grad): no recording
//   overhead/mul/plain              y = c * c, c not requiring grad, grad mode on
//   overhead/mul/recorded           y = x * x, x a leaf requiring grad: forward + graph node; the
//                                   graph dies with y at the end of each iteration
//   overhead/add/recorded           y = x + w, two leaves requiring grad
//   overhead/forward_backward       z = (x * w + x) * w, then z.backward() and zero_grad: 3 ops
//                                   forward, their gradients backward
// "per_op" is wall time per op (per iteration divided by the ops in it). Goal: <= 1 us per
// recorded op.
#include <benchmark/benchmark.h>

#include "exadnn/exadnn.h"

namespace {

using exadnn::Tensor;

Tensor leaf(double value, bool requires_grad) {
  Tensor t = exadnn::full({1}, value);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

void per_op(benchmark::State& state, double ops) {
  state.counters["per_op"] = benchmark::Counter(
      ops, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_empty(benchmark::State& state) {
  for (auto _ : state) {
    Tensor t = exadnn::empty({1});
    benchmark::DoNotOptimize(t.data_ptr());
  }
  per_op(state, 1);
}

void BM_mul_no_grad(benchmark::State& state) {
  const Tensor x = leaf(1.5, true);
  exadnn::NoGradGuard no_grad;
  for (auto _ : state) {
    Tensor y = x * x;
    benchmark::DoNotOptimize(y.data_ptr());
  }
  per_op(state, 1);
}

void BM_mul_plain(benchmark::State& state) {
  const Tensor c = leaf(1.5, false);
  for (auto _ : state) {
    Tensor y = c * c;
    benchmark::DoNotOptimize(y.data_ptr());
  }
  per_op(state, 1);
}

void BM_mul_recorded(benchmark::State& state) {
  const Tensor x = leaf(1.5, true);
  for (auto _ : state) {
    Tensor y = x * x;
    benchmark::DoNotOptimize(y.data_ptr());
  }
  if (!(x * x).requires_grad()) state.SkipWithError("x * x was not recorded");
  per_op(state, 1);
}

void BM_add_recorded(benchmark::State& state) {
  const Tensor x = leaf(1.5, true), w = leaf(0.5, true);
  for (auto _ : state) {
    Tensor y = x + w;
    benchmark::DoNotOptimize(y.data_ptr());
  }
  per_op(state, 1);
}

void BM_forward_backward(benchmark::State& state) {
  Tensor x = leaf(1.5, true), w = leaf(0.5, true);
  for (auto _ : state) {
    Tensor z = (x * w + x) * w;
    z.backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
    x.zero_grad();
    w.zero_grad();
  }
  // dz/dx = w (w + 1) = 0.75; dz/dw = 2 x w + x = 3.0
  Tensor z = (x * w + x) * w;
  z.backward();
  if (x.grad().item<double>() != 0.75 || w.grad().item<double>() != 3.0)
    state.SkipWithError("wrong gradient");
  per_op(state, 3);
}

BENCHMARK(BM_empty)->Name("overhead/empty");
BENCHMARK(BM_mul_no_grad)->Name("overhead/mul/no_grad");
BENCHMARK(BM_mul_plain)->Name("overhead/mul/plain");
BENCHMARK(BM_mul_recorded)->Name("overhead/mul/recorded");
BENCHMARK(BM_add_recorded)->Name("overhead/add/recorded");
BENCHMARK(BM_forward_backward)->Name("overhead/forward_backward");

}  // namespace

BENCHMARK_MAIN();
