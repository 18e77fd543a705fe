// Tensor parallelism: layers whose weights are split over the ranks of a Communicator (the
// "tensor-parallel group"), built from the differentiable collectives of dist/parallel_ops.h.
//
//   ColumnParallelLinear  weight [out/P, in]: rank r computes output features block r
//   RowParallelLinear     weight [out, in/P]: rank r multiplies input features block r; the
//                         partial products are summed over the group (one allreduce)
//   ParallelMLP           column → activation → row: one allreduce forward and one backward
//   class_parallel_cross_entropy  the loss of logits split by class over the group
//
// Each layer is initialised exactly like the nn::Linear of the same sizes would be on one process
// (every rank draws the full weight from the same generator state, then keeps its block), so with
// equal seeds a tensor-parallel model and its one-process twin start equal; full_weight()/
// full_bias() gather the single-process layout back (for checkpoints and comparisons).
// Inputs and losses are replicated over the group (see the convention in parallel_ops.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "exadnn/dist/communicator.h"
#include "exadnn/nn/module.h"

namespace exadnn::dist {

/// y = x·Wᵀ + b with W's rows (output features) split over the group. x: [..., in] replicated →
/// y: [..., out/P] on each rank (its block), or [..., out] replicated with gather_output.
class ColumnParallelLinear : public nn::Module {
 public:
  ColumnParallelLinear(int64_t in_features, int64_t out_features, Communicator comm,
                       bool gather_output = true, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "ColumnParallelLinear"; }
  std::string extra_repr() const override;
  /// The whole [out, in] weight (and [out] bias) in one-process layout, on every rank.
  Tensor full_weight() const;
  Tensor full_bias() const;

  Tensor weight;  ///< [out/P, in]: rows rank·out/P .. (rank+1)·out/P of the full weight
  Tensor bias;    ///< [out/P]; undefined without bias

 private:
  int64_t in_, out_;
  Communicator comm_;
  bool gather_output_;
};

/// y = x·Wᵀ + b with W's columns (input features) split over the group. x: [..., in/P] (this
/// rank's block, input_is_split) or [..., in] replicated → y: [..., out] replicated; the bias is
/// whole on every rank and added once, after the sum over the group.
class RowParallelLinear : public nn::Module {
 public:
  RowParallelLinear(int64_t in_features, int64_t out_features, Communicator comm,
                    bool input_is_split = false, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "RowParallelLinear"; }
  std::string extra_repr() const override;
  Tensor full_weight() const;

  Tensor weight;  ///< [out, in/P]: columns rank·in/P .. (rank+1)·in/P of the full weight
  Tensor bias;    ///< [out], replicated; undefined without bias

 private:
  int64_t in_, out_;
  Communicator comm_;
  bool input_is_split_;
};

/// in → hidden → out with the hidden features split over the group: ColumnParallelLinear (no
/// gather) → activation ("relu", "tanh", "gelu") → RowParallelLinear (split input). x: [..., in]
/// replicated → y: [..., out] replicated. Communication: one allreduce forward, one backward.
class ParallelMLP : public nn::Module {
 public:
  ParallelMLP(int64_t in_features, int64_t hidden_features, int64_t out_features, Communicator comm,
              const std::string& activation = "relu");
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "ParallelMLP"; }

  std::shared_ptr<ColumnParallelLinear> up;
  std::shared_ptr<nn::Module> activation;
  std::shared_ptr<RowParallelLinear> down;
};

/// Mean cross-entropy of logits split by class over the group: `logits` [N, C/P] holds classes
/// rank·C/P .. (rank+1)·C/P, `target` [N] (i64) the class indices in 0..C-1, the same on every
/// rank. Returns the replicated scalar loss; no rank ever holds [N, C]. Three allreduces of [N]
/// forward (max, Σexp, target logit), one backward.
Tensor class_parallel_cross_entropy(const Tensor& logits, const Tensor& target,
                                    const Communicator& comm);

}  // namespace exadnn::dist
