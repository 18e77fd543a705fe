// f32 matmul: exadnn::matmul against the fastest GEMMs on the machine called directly on the same
// shapes and the same input memory:
//   matmul/exadnn         exadnn::matmul (provider chosen by exadnn; EXADNN_GEMM=blas|onednn)
//   matmul/cblas_sgemm    OpenBLAS (or whichever CBLAS is linked), its own CPU detection; run the
//                         binary again under OPENBLAS_CORETYPE=SkylakeX for the forced AVX-512
//                         kernels (bench/run_matmul.sh does both; OpenBLAS reads the variable only
//                         when the library loads, so it cannot change inside one process)
//   matmul/dnnl_sgemm     oneDNN's dnnl_sgemm
// Shapes are M x K x N (a: [M, K], b: [K, N], row-major, no transposes); each runs with 1 and with
// 2 threads. GFLOP/s counts 2*M*N*K flops per iteration against wall time.
//
// The exadnn case preallocates its inputs; the output tensor is allocated in every iteration (by
// exadnn's caching allocator), which is part of what a user pays for. The baselines write into a
// preallocated buffer.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "exadnn/exadnn.h"

namespace {

// OpenBLAS extensions, looked up at run time so any CBLAS links (null when absent).
template <class Fn>
Fn* blas_symbol(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_DEFAULT, name));
}

std::string blas_core() {
  if (auto* f = blas_symbol<char*()>("openblas_get_corename")) return f();
  return "cblas";
}

// Thread count for the direct calls: OpenMP (oneDNN's runtime) and the BLAS pool.
void set_direct_threads(int n) {
  omp_set_num_threads(n);
  if (auto* f = blas_symbol<void(int)>("openblas_set_num_threads")) f(n);
}

struct Problem {
  int64_t m, k, n;
  exadnn::Tensor a, b;  // a: [m, k], b: [k, n]
  float* c;             // [m, n] for the direct calls

  Problem(int64_t m_, int64_t k_, int64_t n_) : m(m_), k(k_), n(n_) {
    exadnn::Generator gen(1234);
    a = exadnn::randn({m, k}, {}, &gen);
    b = exadnn::randn({k, n}, {}, &gen);
    c = static_cast<float*>(
        std::aligned_alloc(64, static_cast<size_t>(m * n) * sizeof(float) + 64));
    for (int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
  }
  ~Problem() { std::free(c); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
  const float* pa() const { return a.data<float>(); }
  const float* pb() const { return b.data<float>(); }
};

void finish(benchmark::State& state, const Problem& p) {
  const double flops =
      2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void cblas_call(const Problem& p) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(p.m),
              static_cast<int>(p.n), static_cast<int>(p.k), 1.0f, p.pa(), static_cast<int>(p.k),
              p.pb(), static_cast<int>(p.n), 0.0f, p.c, static_cast<int>(p.n));
}

void dnnl_call(const Problem& p) {
  const dnnl_status_t st =
      dnnl_sgemm('N', 'N', p.m, p.n, p.k, 1.0f, p.pa(), p.k, p.pb(), p.n, 0.0f, p.c, p.n);
  if (st != dnnl_success) std::abort();
}

void BM_exadnn(benchmark::State& state) {
  exadnn::set_num_threads(static_cast<int>(state.range(3)));
  Problem p(state.range(0), state.range(1), state.range(2));
  benchmark::DoNotOptimize(exadnn::matmul(p.a, p.b));  // warm-up: JIT, thread pools, cache
  for (auto _ : state) {
    exadnn::Tensor c = exadnn::matmul(p.a, p.b);
    benchmark::DoNotOptimize(c.data_ptr());
    benchmark::ClobberMemory();
  }
  finish(state, p);
}

void BM_cblas(benchmark::State& state) {
  set_direct_threads(static_cast<int>(state.range(3)));
  Problem p(state.range(0), state.range(1), state.range(2));
  cblas_call(p);
  for (auto _ : state) {
    cblas_call(p);
    benchmark::DoNotOptimize(p.c);
    benchmark::ClobberMemory();
  }
  state.SetLabel(blas_core());
  finish(state, p);
}

void BM_dnnl(benchmark::State& state) {
  set_direct_threads(static_cast<int>(state.range(3)));
  Problem p(state.range(0), state.range(1), state.range(2));
  dnnl_call(p);
  for (auto _ : state) {
    dnnl_call(p);
    benchmark::DoNotOptimize(p.c);
    benchmark::ClobberMemory();
  }
  finish(state, p);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "K", "N", "threads"});
  for (int threads : {1, 2}) {
    b->Args({128, 784, 512, threads});
    b->Args({512, 512, 512, threads});
    b->Args({2048, 2048, 2048, threads});
  }
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_exadnn)->Name("matmul/exadnn")->Apply(shapes);
BENCHMARK(BM_cblas)->Name("matmul/cblas_sgemm")->Apply(shapes);
BENCHMARK(BM_dnnl)->Name("matmul/dnnl_sgemm")->Apply(shapes);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  benchmark::AddCustomContext("openblas_core", blas_core());
  benchmark::AddCustomContext("OPENBLAS_CORETYPE", core ? core : "(unset)");
  const char* provider = std::getenv("EXADNN_GEMM");
  benchmark::AddCustomContext("EXADNN_GEMM", provider ? provider : "(unset)");
  std::fprintf(stderr, "%s", exadnn::runtime_info().c_str());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
