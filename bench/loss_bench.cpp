// Softmax cross-entropy, forward + backward on the current thread count (EXADNN_THREADS or the
// cores), the fused op against the composition of ops it replaced in nn::cross_entropy
// (logits - logsumexp, a one-hot pick whose min and max are read back to check the targets, a
// product, a sum, a negation), both reduced by the mean, in the same process:
//   cross_entropy/fused/N/C       nn::cross_entropy(logits, target).backward()
//   cross_entropy/composed/N/C    the same loss through the composed ops
// at the CNN's and MLP's logits ([128, 10]) and a wide classifier's ([256, 1000]). Each
// iteration builds the loss, runs its backward and drops the gradient.
#include <benchmark/benchmark.h>

#include "exadnn/exadnn.h"

namespace {

using exadnn::Tensor;

Tensor composed_cross_entropy(const Tensor& logits, const Tensor& target) {
  const Tensor log_probs = logits - exadnn::logsumexp(logits, {1}, /*keepdim=*/true);
  const Tensor picked =
      exadnn::sum(log_probs * exadnn::one_hot(target, logits.size(1), logits.dtype()), {1});
  return exadnn::mean(exadnn::neg(picked));
}

template <bool kFused>
void BM_cross_entropy(benchmark::State& state) {
  const int64_t n = state.range(0), c = state.range(1);
  Tensor logits = exadnn::randn({n, c}).requires_grad_(true);
  const Tensor target = exadnn::randint(0, c, {n}, exadnn::TensorOptions(exadnn::DType::i64));
  for (auto _ : state) {
    const Tensor loss =
        kFused ? exadnn::nn::cross_entropy(logits, target) : composed_cross_entropy(logits, target);
    loss.backward();
    benchmark::DoNotOptimize(logits.grad().data_ptr());
    logits.zero_grad();
  }
}

BENCHMARK(BM_cross_entropy<true>)
    ->Name("cross_entropy/fused")
    ->Args({128, 10})
    ->Args({256, 1000})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_cross_entropy<false>)
    ->Name("cross_entropy/composed")
    ->Args({128, 10})
    ->Args({256, 1000})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
