// Pipeline parallelism: a Sequential cut into consecutive stages, one per rank of a Communicator;
// a batch is split into micro-batches that flow through the stages, activations forward and their
// gradients backward as non-blocking point-to-point messages.
//
//   schedule gpipe: every micro-batch's forward, then every backward (the last stage first).
//     Stage s holds all m micro-batches' activations at once.
//   schedule one_f_one_b: p − s − 1 forwards to fill the pipe, then one forward and one backward
//     in turn, then the remaining backwards. Stage s holds at most p − s micro-batches'
//     activations.
// Stages: given boundaries, or balanced by parameter count, or by measured time (balance_by,
// pipeline_balance.h).
// With equal stage costs both leave each stage idle for (p − 1)/(m + p − 1) of a step (the bubble);
// last_stats() reports what was measured.
//
// The result equals one process on the whole batch when the loss is a mean over samples: each
// micro-batch's loss is divided by m and the gradients accumulate over the micro-batches. Layers
// whose output depends on the rest of the batch (batch norm) see one micro-batch at a time: their
// batch statistics are per micro-batch (as in GPipe), so they match one process only for m = 1.
// With recompute on, a stage keeps only each micro-batch's input and runs its forward again in the
// backward (memory: one activation per micro-batch instead of every layer's); random layers
// (dropout) then draw different masks in the second forward.
//
// Every rank builds the whole model the same way (same seed) and passes it in; the pipeline keeps
// only its stage's layers (the rest can be dropped by the caller) and remembers the names and
// shapes of all, so full_state_dict() gathers the one-process layout (checkpoints move between
// pipeline and one-process runs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/nn/container.h"

namespace exadnn::dist {

enum class PipelineSchedule { gpipe, one_f_one_b };
/// "gpipe", "1f1b".
const char* to_string(PipelineSchedule schedule);
/// Parses "gpipe" or "1f1b"; anything else is an Error listing both.
PipelineSchedule parse_pipeline_schedule(const std::string& name);

/// How the model is cut and run. Chained setters.
class PipelineOptions {
 public:
  /// Micro-batches per batch (≥ 1; the batch size must be divisible by it).
  PipelineOptions& micro_batches(int64_t m) {
    micro_batches_ = m;
    return *this;
  }
  PipelineOptions& schedule(PipelineSchedule s) {
    schedule_ = s;
    return *this;
  }
  PipelineOptions& recompute(bool on) {
    recompute_ = on;
    return *this;
  }
  /// The first layer of stages 1 .. p−1 (p − 1 increasing indices). Empty (the default): stages
  /// balanced by parameter count, every stage at least one layer, or by measured time with
  /// balance_by().
  PipelineOptions& boundaries(std::vector<size_t> first_layers) {
    boundaries_ = std::move(first_layers);
    return *this;
  }
  /// Without boundaries: cut where the stages' measured forward + backward times on
  /// `micro_batch` [b, ...] (a micro-batch of the inputs, any values) are the most even
  /// (pipeline_balance.h; every rank measures every layer, the mean over the ranks decides).
  PipelineOptions& balance_by(Tensor micro_batch) {
    balance_sample_ = std::move(micro_batch);
    return *this;
  }
  /// With balance_by: the ranks whose measurements are averaged and that all take one cut (their
  /// rank 0's). Default: the pipeline's own ranks. Every rank that must cut alike belongs in it —
  /// the data-parallel replicas of a pipeline (their stages' gradients are averaged parameter for
  /// parameter) and, with tensor-parallel stages, every tensor rank — and all of them construct
  /// their PipelineParallel together (e.g. a ProcessGrid's whole world).
  PipelineOptions& measured_over(Communicator group) {
    measured_over_ = std::move(group);
    return *this;
  }
  int64_t micro_batches() const { return micro_batches_; }
  PipelineSchedule schedule() const { return schedule_; }
  bool recompute() const { return recompute_; }
  const std::vector<size_t>& boundaries() const { return boundaries_; }
  const Tensor& balance_sample() const { return balance_sample_; }
  const std::optional<Communicator>& measured_over() const { return measured_over_; }

 private:
  int64_t micro_batches_ = 1;
  PipelineSchedule schedule_ = PipelineSchedule::one_f_one_b;
  bool recompute_ = false;
  std::vector<size_t> boundaries_;
  Tensor balance_sample_;
  std::optional<Communicator> measured_over_;
};

/// What the last step measured on this rank.
struct PipelineStats {
  /// The whole step on this rank, from entering forward_backward to its last send: a stage that
  /// ends first leaves out the tail the others still run, so the step's makespan is the largest
  /// wall over the ranks (an allreduce with ReduceOp::max, after a barrier before the step).
  double wall_seconds = 0;
  double busy_seconds = 0;      ///< this stage's forward and backward compute
  double forward_seconds = 0;   ///< of which forward (the loss's included on the last stage)
  double backward_seconds = 0;  ///< and backward (recomputation included)
  /// Per micro-batch (by index), this stage's forward and backward compute: what a replay of the
  /// schedule needs to tell the bubble its costs imply from time lost to messages.
  std::vector<double> forward_each, backward_each;
  double idle_fraction = 0;          ///< 1 − busy / wall (of this rank's wall)
  int64_t max_live_activations = 0;  ///< micro-batches whose forward was kept for backward, at most
};

/// Loss of the model's output on the target (a mean over the samples, e.g. nn::cross_entropy).
using PipelineLoss = std::function<Tensor(const Tensor& output, const Tensor& target)>;

class PipelineParallel {
 public:
  /// Collective. Errors (every rank raises them, before any message): fewer layers than ranks,
  /// boundaries that are not p − 1 increasing indices inside the model, micro_batches < 1.
  PipelineParallel(const nn::Sequential& model, Communicator comm, PipelineOptions options = {});

  /// Forward and backward of one batch through the pipeline (collective): every rank passes the
  /// same x [N, ...] and target (only the first stage reads x and the last the target); the
  /// gradients accumulate into this stage's parameters. Returns the batch's mean loss, on every
  /// rank. N must be divisible by micro_batches.
  double forward_backward(const Tensor& x, const Tensor& target, const PipelineLoss& loss);
  /// The model's output for x (collective, no graph), on every rank.
  Tensor forward(const Tensor& x);

  /// This rank's layers (parameters, optimizer, train/eval mode).
  nn::Sequential& stage() { return *stage_; }
  /// Layers [first_layer, end_layer) of the model are this rank's.
  size_t first_layer() const { return first_; }
  size_t end_layer() const { return end_; }
  /// The first layer of each stage 0 .. p−1, then the number of layers.
  const std::vector<size_t>& cuts() const { return cuts_; }
  /// Seconds per layer (forward + backward, the mean over the ranks) that balance_by() measured;
  /// empty otherwise.
  const std::vector<double>& layer_costs() const { return layer_costs_; }
  const PipelineStats& last_stats() const { return stats_; }

  /// The whole model's state in the one-process layout ("3.weight"), on every rank (collective).
  StateDict full_state_dict() const;
  /// Loads this stage's entries of a one-process-layout state (missing ones are an Error).
  void load_full_state_dict(const StateDict& state);

 private:
  struct Entry {
    std::string name;  // one-process name
    Shape shape;
    DType dtype;
    int stage;
  };
  struct MicroBatch;

  // The cut balance_by() measures (collective).
  std::vector<size_t> measured_boundaries(const nn::Sequential& model, const Tensor& micro_batch);
  bool is_first() const { return comm_.rank() == 0; }
  bool is_last() const { return comm_.rank() == comm_.size() - 1; }
  void run_forward(MicroBatch& mb, const Tensor& x, const Tensor& target);
  void run_backward(MicroBatch& mb);
  // The micro-batch's loss / m (last stage).
  Tensor micro_batch_loss(const Tensor& output, const Tensor& target) const;
  void send_tensor(const Tensor& t, int dst, int tag);
  Tensor recv_tensor(int src, int tag);

  Communicator comm_;
  PipelineOptions options_;
  std::shared_ptr<nn::Sequential> stage_;
  size_t first_ = 0, end_ = 0;
  std::vector<size_t> cuts_;
  std::vector<double> layer_costs_;
  std::vector<Entry> entries_;  // every stage's state, in one-process order
  std::vector<Work> pending_sends_;
  PipelineStats stats_;
  // During forward_backward: the loss function and the sum of the micro-batches' losses.
  const PipelineLoss* loss_ = nullptr;
  double loss_sum_ = 0;
};

}  // namespace exadnn::dist
