// Class imbalance, chosen in a training config's `class_balance` section: a class-weighted
// cross-entropy (weights from the training set's inverse class frequencies, or given) and/or
// balanced sampling (each example of an epoch drawn from a class chosen uniformly).
//
//   class_balance: {loss_weights: inverse_frequency, sampling: balanced}
//   class_balance: {loss_weights: [1, 4, 0.5]}
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/data/dataset.h"

namespace exadnn::train {

struct ClassBalanceSpec {
  /// none, inverse_frequency (w_c = N / (K·n_c) over the K classes present in the training
  /// set, 0 for an absent class), or given (the `weights` list, one per class).
  std::string loss_weights = "none";
  std::vector<double> weights;       ///< given: one finite w_c >= 0 per class, some > 0
  std::string sampling = "shuffle";  ///< shuffle (every example once an epoch) or balanced
  bool weighted() const { return loss_weights != "none"; }
  bool balanced() const { return sampling == "balanced"; }
};

/// The class index of every example of `dataset` (integer targets of shape []), read in chunks.
std::vector<int64_t> class_labels(const data::Dataset& dataset);

/// Examples per class c in [0, classes); a label outside is an Error naming it.
std::vector<int64_t> class_counts(const std::vector<int64_t>& labels, int64_t classes);

/// w_c = N / (K·n_c) for each class present (n_c > 0; K of them, N examples), 0 otherwise: a
/// balanced set gets weights 1, and each present class carries the same total weight.
std::vector<double> inverse_frequency_weights(const std::vector<int64_t>& counts);

/// The weights `spec` asks for, for a training set of `classes` classes with these `labels`;
/// a given list of the wrong length is an Error naming both lengths.
std::vector<double> class_weights(const ClassBalanceSpec& spec, const std::vector<int64_t>& labels,
                                  int64_t classes);

/// Class-weighted softmax cross-entropy of logits [N, C] against class indices [N]:
/// sum_i w[y_i]·CE_i / sum_i w[y_i] (the weighted mean, as PyTorch's `weight=`), weights [C]
/// (no gradient). A batch whose weights sum to 0 is an Error naming it.
Tensor weighted_cross_entropy(const Tensor& logits, const Tensor& target, const Tensor& weights);

/// Draws each epoch's examples with classes equally likely: for each of the N draws, a class
/// uniform over the classes present, then an example of it uniform (with replacement). Epoch e's
/// draw depends on (seed, e) only, so a resumed run draws what the uninterrupted one did.
class BalancedSampler {
 public:
  BalancedSampler(const std::vector<int64_t>& labels, uint64_t seed);
  /// The dataset's indices drawn for `epoch` (as many as labels).
  std::vector<int64_t> epoch_indices(int64_t epoch) const;
  /// `base` seen through epoch_indices(epoch).
  std::shared_ptr<const data::Dataset> epoch_view(std::shared_ptr<const data::Dataset> base,
                                                  int64_t epoch) const;

 private:
  std::vector<std::vector<int64_t>> members_;  // indices of each class present
  int64_t size_ = 0;
  uint64_t seed_ = 0;
};

}  // namespace exadnn::train
