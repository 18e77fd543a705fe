// Training the learned correction (correction.h) as pairs arrive: each output step's pair
// (decompressed, original) gives six examples (one per cube face) to a bounded replay buffer
// (replay_buffer.h); a training round is one epoch of exadnn's train::Trainer (Adam on the MSE
// of the normalised residual) over a uniform draw from the buffer. The Adam moments carry from
// one round to the next (the Trainer's optimizer state is kept and restored), so a run of rounds
// is one continuous optimisation on a growing, sliding data set.
#pragma once

#include <cstdint>
#include <memory>

#include "climate/correction.h"
#include "climate/replay_buffer.h"
#include "exadnn/core/state_dict.h"

namespace exadnn::data {
class TensorDataset;
}

namespace climate {

struct CorrectionTrainerOptions {
  int64_t capacity = 240;  ///< examples the replay buffer holds (6 per output step)
  int64_t batch = 6;       ///< examples per optimizer step
  double lr = 1e-3;        ///< Adam's learning rate
  uint64_t seed = 1;       ///< the draws and the shuffles (each round its own)
  /// Each example drawn is shown in one of the eight orientations of its square (dihedral.h),
  /// drawn at random: the network learns a correction that holds whichever way a structure
  /// faces, not only the orientations the flow has shown so far.
  bool augment = false;
};

/// What one training round did.
struct TrainingRound {
  int64_t examples = 0;  ///< examples trained on (one epoch over them)
  double loss = 0;       ///< the epoch's mean training loss (normalised residual MSE)
  double seconds = 0;    ///< wall time of the round, the Trainer's set-up included
};

class CorrectionTrainer {
 public:
  /// Trains `correction` (kept by reference; it must outlive the trainer).
  CorrectionTrainer(Correction& correction, const CorrectionTrainerOptions& options);

  /// Adds one output step's pair: its six face examples go into the buffer (raw), and the pair
  /// into the correction's normalisation (Correction::observe; each round's draw is normalised
  /// with the statistics of every pair seen so far).
  void add(const Fields& decompressed, const Fields& original);
  /// One epoch of the Trainer over min(examples, buffer size) examples drawn from the buffer. An
  /// Error before any pair was added.
  TrainingRound train(int64_t examples);

  const ReplayBuffer& buffer() const { return buffer_; }
  int64_t rounds() const { return rounds_; }
  /// Examples trained on over every round (an example seen twice counts twice).
  int64_t examples_trained() const { return examples_trained_; }

 private:
  // A draw from the buffer, normalised in place (it is a copy).
  std::shared_ptr<exadnn::data::TensorDataset> normalised(
      const std::shared_ptr<exadnn::data::TensorDataset>& raw) const;
  // Each example of a draw (a copy) turned in place to an orientation drawn with `seed`.
  void reorient(exadnn::data::TensorDataset& draw, uint64_t seed) const;

  Correction& correction_;
  CorrectionTrainerOptions options_;
  ReplayBuffer buffer_;
  exadnn::StateDict optimizer_state_;  // Adam's moments after the last round
  int64_t rounds_ = 0, examples_trained_ = 0;
};

}  // namespace climate
