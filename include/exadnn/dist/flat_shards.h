// FlatShards: how a list of parameters is laid end to end in one flat f32 buffer and split into
// P equal blocks, one per rank (the layout of ZeRO's sharded parameters, gradients and optimizer
// state). Shared by ShardedOptimizer (one layout for the whole model) and FullyShardedModel (one
// per layer), together with the translation of an optimizer's state over the blocks to and from
// the one-process layout.
//
//   flat [P·S]: parameter 0's values (row-major), parameter 1's, ..., then zeros up to P·S
//   rank r's block: flat[r·S, (r+1)·S),  S = ⌈N / P⌉,  N = Σ numel
#pragma once

#include <string>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/dist/communicator.h"

namespace exadnn::dist {

class FlatShards {
 public:
  FlatShards() = default;
  /// `shapes`: the parameters' shapes in order; `first_index`: the index of the first of them in
  /// the model's parameter list (the optimizer state's "i.<buffer>" names); `ranks`: P.
  FlatShards(std::vector<Shape> shapes, size_t first_index, int ranks);

  int64_t total() const { return total_; }            ///< N
  int64_t block() const { return block_; }            ///< S
  int64_t padded() const { return block_ * ranks_; }  ///< P·S
  size_t count() const { return shapes_.size(); }
  size_t first_index() const { return first_; }
  const std::vector<Shape>& shapes() const { return shapes_; }

  /// [P·S]: `tensors` (one per parameter, the shapes above; an undefined one counts as zeros)
  /// end to end, zero-padded.
  Tensor flatten(const std::vector<Tensor>& tensors) const;
  /// Rank `rank`'s block [S] of flatten(tensors), copying only what falls in it.
  Tensor block_of(const std::vector<Tensor>& tensors, int rank) const;
  /// Views of `flat` ([P·S] or [N + …]) shaped as the parameters.
  std::vector<Tensor> unflatten(const Tensor& flat) const;

 private:
  std::vector<Shape> shapes_;
  size_t first_ = 0;
  int ranks_ = 1;
  int64_t total_ = 0, block_ = 0;
};

/// [P·S]: every rank's block [S], in rank order (collective).
Tensor gather_blocks(const Tensor& block, const Communicator& comm);

/// The names of an optimizer's per-parameter buffers ("momentum_buffer", "exp_avg", ...), read
/// from the entries of its parameter 0 in `state`.
std::vector<std::string> buffer_names(const StateDict& state);

/// The one-process layout ("step", "lr", "i.step", "i.<buffer>" for the model's parameter i) of
/// the state of an optimizer whose parameter u is this rank's block of `layouts[u]` (collective:
/// every buffer's blocks are gathered).
StateDict one_process_state(const StateDict& inner, const std::vector<FlatShards>& layouts,
                            const Communicator& comm);

/// The inverse: the state of the optimizer over this rank's blocks, from a one-process-layout
/// `state` (from either kind of run). `buffers` are the inner optimizer's buffer names. A missing
/// entry or one of the wrong shape is an Error naming it (with `where`), raised before anything
/// is returned.
StateDict sharded_state(const StateDict& state, const std::vector<FlatShards>& layouts,
                        const std::vector<std::string>& buffers, const Communicator& comm,
                        const char* where);

}  // namespace exadnn::dist
