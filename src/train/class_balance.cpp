// Class weights, the weighted cross-entropy and the balanced sampler.
#include "exadnn/train/class_balance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "exadnn/core/error.h"
#include "exadnn/data/subset.h"
#include "exadnn/data/validate.h"
#include "exadnn/nn/loss.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"

namespace exadnn::train {
namespace {
constexpr const char* kWhere = "class_balance";
}

std::vector<int64_t> class_labels(const data::Dataset& dataset) {
  return data::read_class_labels(dataset, kWhere);
}

std::vector<int64_t> class_counts(const std::vector<int64_t>& labels, int64_t classes) {
  std::vector<int64_t> counts(static_cast<size_t>(classes), 0);
  for (size_t i = 0; i < labels.size(); ++i) {
    EXADNN_CHECK(labels[i] >= 0 && labels[i] < classes, kWhere, "example ", i, " has label ",
                 labels[i], ", outside the ", classes, " classes");
    ++counts[static_cast<size_t>(labels[i])];
  }
  return counts;
}

std::vector<double> inverse_frequency_weights(const std::vector<int64_t>& counts) {
  int64_t total = 0, present = 0;
  for (int64_t n : counts) {
    total += n;
    present += n > 0;
  }
  std::vector<double> w(counts.size(), 0.0);
  for (size_t c = 0; c < counts.size(); ++c)
    if (counts[c] > 0)
      w[c] = static_cast<double>(total) / (static_cast<double>(present * counts[c]));
  return w;
}

std::vector<double> class_weights(const ClassBalanceSpec& spec, const std::vector<int64_t>& labels,
                                  int64_t classes) {
  if (spec.loss_weights == "inverse_frequency")
    return inverse_frequency_weights(class_counts(labels, classes));
  EXADNN_CHECK(spec.loss_weights == "given", kWhere, "loss_weights '", spec.loss_weights,
               "' (allowed: none, inverse_frequency, or a list of weights)");
  EXADNN_CHECK(static_cast<int64_t>(spec.weights.size()) == classes, kWhere, "loss_weights lists ",
               spec.weights.size(), " weights; the model scores ", classes, " classes");
  return spec.weights;
}

Tensor weighted_cross_entropy(const Tensor& logits, const Tensor& target, const Tensor& weights) {
  EXADNN_CHECK(logits.dim() == 2 && weights.dim() == 1 && weights.size(0) == logits.size(1),
               "weighted_cross_entropy", "takes logits [N, C] and weights [C], got ",
               logits.shape(), " and ", weights.shape());
  const Tensor per_example = nn::cross_entropy(logits, target, 0.0, nn::Reduction::none);  // [N]
  // w[y_i] as one_hot(y) · w: [N, C] x [C] summed over C.
  const Tensor w =
      sum(nn::one_hot(target, logits.size(1), per_example.dtype()) *
              weights.to(per_example.dtype()).to(per_example.device()).reshape({1, logits.size(1)}),
          {1});
  const Tensor total = sum(w);
  EXADNN_CHECK(total.item<double>() > 0, "weighted_cross_entropy",
               "the batch's classes all have weight 0");
  return sum(per_example * w) / total;
}

BalancedSampler::BalancedSampler(const std::vector<int64_t>& labels, uint64_t seed)
    : size_(static_cast<int64_t>(labels.size())), seed_(seed) {
  std::map<int64_t, std::vector<int64_t>> by_class;
  for (size_t i = 0; i < labels.size(); ++i) by_class[labels[i]].push_back(static_cast<int64_t>(i));
  EXADNN_CHECK(!by_class.empty(), kWhere, "balanced sampling of an empty training set");
  for (auto& [c, members] : by_class) members_.push_back(std::move(members));
}

std::vector<int64_t> BalancedSampler::epoch_indices(int64_t epoch) const {
  std::seed_seq seq{seed_, static_cast<uint64_t>(epoch), uint64_t{0xba1a4ced}};
  std::mt19937_64 rng(seq);
  std::uniform_int_distribution<size_t> pick_class(0, members_.size() - 1);
  std::vector<int64_t> out(static_cast<size_t>(size_));
  for (int64_t& index : out) {
    const std::vector<int64_t>& m = members_[pick_class(rng)];
    index = m[std::uniform_int_distribution<size_t>(0, m.size() - 1)(rng)];
  }
  return out;
}

std::shared_ptr<const data::Dataset> BalancedSampler::epoch_view(
    std::shared_ptr<const data::Dataset> base, int64_t epoch) const {
  return std::make_shared<data::Subset>(std::move(base), epoch_indices(epoch));
}

}  // namespace exadnn::train
