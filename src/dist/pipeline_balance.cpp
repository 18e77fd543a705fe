// Pipeline stage cuts from measured layer costs (dist/pipeline_balance.h).
#include "exadnn/dist/pipeline_balance.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "seconds_since.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::measure_layer_costs";
using detail::Clock;
using detail::seconds_since;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Puts the model back in its mode and its parameters' gradients back as they were.
class ModelRestorer {
 public:
  explicit ModelRestorer(const nn::Sequential& model)
      : model_(const_cast<nn::Sequential&>(model)), training_(model.is_training()) {
    for (const Tensor& p : model_.parameters()) {
      params_.push_back(p);
      grads_.push_back(p.grad().defined() ? p.grad().clone() : Tensor());  // backward adds in place
    }
  }
  ~ModelRestorer() {
    for (size_t i = 0; i < params_.size(); ++i) params_[i].set_grad(grads_[i]);
    model_.train(training_);
  }
  ModelRestorer(const ModelRestorer&) = delete;
  ModelRestorer& operator=(const ModelRestorer&) = delete;

 private:
  nn::Sequential& model_;
  bool training_;
  std::vector<Tensor> params_, grads_;
};

}  // namespace

std::vector<double> measure_layer_costs(const nn::Sequential& model, const Tensor& micro_batch,
                                        int repeats) {
  EXADNN_CHECK(micro_batch.defined() && micro_batch.dim() >= 1 && micro_batch.size(0) >= 1, kWhere,
               "needs a micro-batch [b, ...], got ",
               micro_batch.defined() ? micro_batch.shape() : Shape{});
  EXADNN_CHECK(repeats >= 1, kWhere, "repeats must be >= 1, got ", repeats);
  const ModelRestorer restore(model);
  const_cast<nn::Sequential&>(model).eval();
  EnableGradGuard grad_on;
  std::vector<double> costs;
  Tensor x = micro_batch.detach();
  for (size_t i = 0; i < model.size(); ++i) {
    nn::Module& layer = *model[i];
    std::vector<double> each;
    Tensor out;
    for (int r = 0; r <= repeats; ++r) {  // r = 0: warm-up (allocations, primitive choice)
      Tensor in = x.detach();
      in.requires_grad_(is_floating(in.dtype()));
      const auto t0 = Clock::now();
      out = layer.forward(in);
      if (out.requires_grad()) out.backward(ones_like(out));
      if (r > 0) each.push_back(seconds_since(t0));
    }
    costs.push_back(median(each));
    x = out.detach();
  }
  return costs;
}

std::vector<size_t> cut_evenly(const std::vector<double>& costs, int parts) {
  const size_t n = costs.size();
  EXADNN_CHECK(parts >= 1 && n >= static_cast<size_t>(parts), "dist::cut_evenly", n,
               " layers do not make ", parts, " non-empty stages");
  for (double c : costs)
    EXADNN_CHECK(c >= 0, "dist::cut_evenly", "layer costs must be >= 0, got ", c);
  std::vector<double> prefix(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + costs[i];
  // best[k][j]: the smallest largest-stage sum of layers [0, j) in k stages; from[k][j]: where
  // the last of those stages starts.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(parts + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<size_t>> from(parts + 1, std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  for (int k = 1; k <= parts; ++k)
    for (size_t j = static_cast<size_t>(k); j <= n; ++j)
      for (size_t i = static_cast<size_t>(k - 1); i < j; ++i) {
        const double worst = std::max(best[k - 1][i], prefix[j] - prefix[i]);
        if (worst < best[k][j]) {
          best[k][j] = worst;
          from[k][j] = i;
        }
      }
  std::vector<size_t> cuts(static_cast<size_t>(parts - 1));
  size_t end = n;
  for (int k = parts; k > 1; --k) {
    end = from[k][end];
    cuts[static_cast<size_t>(k - 2)] = end;
  }
  return cuts;
}

}  // namespace exadnn::dist
