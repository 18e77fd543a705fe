// The three GEMMs of a Linear layer (issue 21: the thin forward GEMM), f32, row-major:
//   pass 0  forward         y [rows, out] = x [rows, in] · Wᵀ      (W [out, in]: transposed B)
//   pass 1  input gradient  dx [rows, in] = dy [rows, out] · W    (no transposes)
//   pass 2  weight gradient dW [out, in] = dyᵀ · x                (transposed A, K = rows)
// each through oneDNN's dnnl_sgemm (what exadnn::matmul calls) and through oneDNN's matmul
// primitive created once for the shape (the transposes as strides), at the MLP's layer sizes
// (batch 128), the wide MLP's (batch 256), the CNN's 1024→256, and the thin 1024² case of the
// pipeline benchmark (32 rows). GFLOP/s counts
// 2·rows·in·out per call against wall time; every buffer is preallocated.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace {

struct Layer {
  int64_t rows, in, out;
  std::vector<float> x, w, y;  // [rows, in], [out, in], [rows, out]; y doubles as dy
  std::vector<float> result;   // the pass's output (largest of the three)
  Layer(int64_t r, int64_t i, int64_t o)
      : rows(r),
        in(i),
        out(o),
        x(size_t(r * i), 0.5f),
        w(size_t(o * i), 0.25f),
        y(size_t(r * o), 0.125f),
        result(size_t(std::max({r * o, r * i, o * i})), 0.f) {}
};

// M, N, K and the operands of `pass` in row-major GEMM terms: C [M, N] = op(A) [M, K] · op(B).
struct Gemm {
  char ta, tb;
  int64_t m, n, k, lda, ldb;
  const float *a, *b;
};

Gemm gemm_of(const Layer& l, int pass) {
  switch (pass) {
    case 0:
      return {'N', 'T', l.rows, l.out, l.in, l.in, l.in, l.x.data(), l.w.data()};
    case 1:
      return {'N', 'N', l.rows, l.in, l.out, l.out, l.in, l.y.data(), l.w.data()};
    default:
      return {'T', 'N', l.out, l.in, l.rows, l.out, l.in, l.y.data(), l.x.data()};
  }
}

void finish(benchmark::State& state, const Layer& l) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(l.rows * l.in * l.out) / 1e9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_sgemm(benchmark::State& state) {
  omp_set_num_threads(int(state.range(4)));
  Layer l(state.range(1), state.range(2), state.range(3));
  const Gemm g = gemm_of(l, int(state.range(0)));
  auto call = [&] {
    if (dnnl_sgemm(g.ta, g.tb, g.m, g.n, g.k, 1.f, g.a, g.lda, g.b, g.ldb, 0.f, l.result.data(),
                   g.n) != dnnl_success)
      std::abort();
  };
  call();
  for (auto _ : state) {
    call();
    benchmark::ClobberMemory();
  }
  finish(state, l);
}

void BM_primitive(benchmark::State& state) {
  omp_set_num_threads(int(state.range(4)));
  Layer l(state.range(1), state.range(2), state.range(3));
  const Gemm g = gemm_of(l, int(state.range(0)));
  using dt = dnnl::memory::data_type;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  // A transposed operand is the same memory read with swapped strides.
  auto desc = [](int64_t rows, int64_t cols, int64_t ld, bool transposed) {
    return dnnl::memory::desc({rows, cols}, dt::f32,
                              transposed ? dnnl::memory::dims{1, ld} : dnnl::memory::dims{ld, 1});
  };
  const auto a = desc(g.m, g.k, g.lda, g.ta == 'T'), b = desc(g.k, g.n, g.ldb, g.tb == 'T');
  const auto c = desc(g.m, g.n, g.n, false);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), engine);
  dnnl::matmul matmul(pd);
  dnnl::memory ma(a, engine, const_cast<float*>(g.a)), mb(b, engine, const_cast<float*>(g.b));
  dnnl::memory mc(c, engine, l.result.data());
  auto call = [&] {
    matmul.execute(stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    stream.wait();
  };
  call();
  for (auto _ : state) {
    call();
    benchmark::ClobberMemory();
  }
  state.SetLabel(pd.impl_info_str());
  finish(state, l);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"pass", "rows", "in", "out", "threads"});
  for (int threads : {1, 2})
    for (int pass : {0, 1, 2}) {
      b->Args({pass, 128, 784, 512, threads});
      b->Args({pass, 128, 512, 256, threads});
      b->Args({pass, 32, 1024, 1024, threads});
      b->Args({pass, 256, 2048, 2048, threads});  // the wide MLP (batch 256)
      b->Args({pass, 256, 2048, 10, threads});
      b->Args({pass, 128, 1024, 256, threads});  // the CNN's first Linear
    }
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_sgemm)->Name("linear/dnnl_sgemm")->Apply(shapes);
BENCHMARK(BM_primitive)->Name("linear/matmul_primitive")->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
