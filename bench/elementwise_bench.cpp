// Memory-bound elementwise ops on 16M floats (64 MiB per tensor) against memcpy of the same bytes.
//   elementwise/add        exadnn::add(a, b), out of place; the output comes from exadnn's caching
//                          allocator in every iteration (that cost counts)
//   elementwise/add_raw    the same sum as a hand-written OpenMP loop into a preallocated buffer
//                          (what the hardware allows for this access pattern, without exadnn)
//   elementwise/memcpy     std::memcpy of 64 MiB between preallocated buffers, split into one chunk
//                          per thread (one plain memcpy call for threads:1)
//   elementwise/relu, exp  exadnn::relu / exadnn::exp, for reference
// GB/s counts the bytes an op must move at least (1 GB = 1e9 bytes): add 3 x 64 MiB (two reads,
// one write), memcpy, relu and exp 2 x 64 MiB. Each runs with 1 and with 2 threads
// (exadnn::set_num_threads). compare.py prints add / memcpy from the JSON output.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "exadnn/exadnn.h"

namespace {

constexpr int64_t kElems = int64_t{16} << 20;  // 16M floats
constexpr double kTensorBytes = static_cast<double>(kElems) * sizeof(float);

void bandwidth(benchmark::State& state, double tensors_moved) {
  state.counters["GB/s"] = benchmark::Counter(tensors_moved * kTensorBytes / 1e9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

exadnn::Tensor random_input(uint64_t seed) {
  exadnn::Generator gen(seed);
  return exadnn::randn({kElems}, {}, &gen);
}

void BM_add(benchmark::State& state) {
  exadnn::set_num_threads(static_cast<int>(state.range(0)));
  const exadnn::Tensor a = random_input(1), b = random_input(2);
  benchmark::DoNotOptimize(exadnn::add(a, b));  // first touch of the cached output block
  for (auto _ : state) {
    exadnn::Tensor c = exadnn::add(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
    benchmark::ClobberMemory();
  }
  bandwidth(state, 3.0);
}

void BM_add_raw(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  exadnn::set_num_threads(threads);
  const exadnn::Tensor a = random_input(1), b = random_input(2), c = exadnn::empty({kElems});
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* pc = c.data<float>();
  std::memset(pc, 0, static_cast<size_t>(kTensorBytes));
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < kElems; ++i) pc[i] = pa[i] + pb[i];
    benchmark::DoNotOptimize(pc);
    benchmark::ClobberMemory();
  }
  bandwidth(state, 3.0);
}

void BM_memcpy(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const size_t bytes = static_cast<size_t>(kTensorBytes);
  char* src = static_cast<char*>(std::aligned_alloc(64, bytes));
  char* dst = static_cast<char*>(std::aligned_alloc(64, bytes));
  std::memset(src, 1, bytes);
  std::memset(dst, 0, bytes);
  const size_t chunk = (bytes / threads + 63) & ~size_t{63};
  for (auto _ : state) {
    if (threads == 1) {
      std::memcpy(dst, src, bytes);
    } else {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int t = 0; t < threads; ++t) {
        const size_t begin = t * chunk;
        if (begin < bytes) std::memcpy(dst + begin, src + begin, std::min(chunk, bytes - begin));
      }
    }
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  bandwidth(state, 2.0);
  std::free(src);
  std::free(dst);
}

template <exadnn::Tensor (*Op)(const exadnn::Tensor&)>
void BM_unary(benchmark::State& state) {
  exadnn::set_num_threads(static_cast<int>(state.range(0)));
  const exadnn::Tensor a = random_input(3);
  benchmark::DoNotOptimize(Op(a));
  for (auto _ : state) {
    exadnn::Tensor c = Op(a);
    benchmark::DoNotOptimize(c.data_ptr());
    benchmark::ClobberMemory();
  }
  bandwidth(state, 2.0);
}

void threads(benchmark::internal::Benchmark* b) {
  b->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_add)->Name("elementwise/add")->Apply(threads);
BENCHMARK(BM_add_raw)->Name("elementwise/add_raw")->Apply(threads);
BENCHMARK(BM_memcpy)->Name("elementwise/memcpy")->Apply(threads);
BENCHMARK(BM_unary<exadnn::relu>)->Name("elementwise/relu")->Apply(threads);
BENCHMARK(BM_unary<exadnn::exp>)->Name("elementwise/exp")->Apply(threads);

}  // namespace

BENCHMARK_MAIN();
