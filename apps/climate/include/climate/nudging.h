// The model as a decompressor: a run's output steps reconstructed from their DCT-compressed stream
// by running the shallow-water model again, nudged towards the stream.
//
// A DCT stream pins each block's kept (lowest) coefficients of h, u, v at every output step and
// says nothing about the dropped ones. Between two output steps the model carries the state
// forward, so the dropped scales it produces are those the dynamics make of the kept ones (what
// data assimilation calls nudging, or Newtonian relaxation). Starting from the first step's
// decompressed fields:
//   - every `interval` of model time t in (t_k-1, t_k], the state's fields F are relaxed towards
//     the stream: F += γ (P(F) − F), γ = min(1, interval / τ), where P(F) is F with each block's
//     kept coefficients replaced by those of the stream's fields interpolated linearly in time
//     (the dropped coefficients stay the model's);
//   - at each output step t_k the state is put into the stream's consistent set exactly (the
//     Euclidean projection of dct_consistency.h, against that step's decompressed fields), and
//     (optionally) h's integral over the sphere, the mass, made the stream's within the dropped
//     coefficients: the reconstruction of step k, consistent with what the stream stores.
// τ = 0 means the last step alone (the stream inserted at its output steps, the model free in
// between).
//
// The reconstruction needs the model (mesh, degree, the sphere's constants) but not the run's
// initial state: it starts from the stream's first step. It costs a run of the model over the
// stream's time span, so it is a check of what the stream and the dynamics determine together,
// not a cheap decoder.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "climate/correction.h"
#include "climate/dct_compressor.h"
#include "climate/shallow_water.h"

namespace climate {

class Simulation;

struct NudgingOptions {
  /// τ: the relaxation time; 0 (the default): insertion at the output steps only, no parameter
  /// and the better choice for accurate streams; τ ≈ 10 h helps coarse ones (README).
  double tau_hours = 0;
  double interval_minutes = 10;  ///< how often the relaxation is applied (operator splitting)
  double cfl = 0.5;              ///< the model's Courant number (simulation.h)
  /// At every output step, h's integral (the mass) set to the stream's, the letter of the issue's
  /// rule for a correction. Off by default: the stream's mass is itself off the original's (the
  /// DCT's DC is the unweighted block mean, the mass the quadrature's weighted sum, so the dropped
  /// coefficients carry mass), and the model's dropped scales restore most of it: the
  /// reconstruction's mass is closer to the original's than the stream's is (README, "The model
  /// as the decompressor").
  bool keep_stream_mass = false;
};

/// The reconstruction one output step at a time, for a stream read step by step (memory for two
/// steps, whatever the run's length). Keeps a reference to `solver`.
class NudgedStream {
 public:
  /// `params[c]`: field c's DCT parameters (h, u, v); out of range, or options out of range, are
  /// an exadnn::Error naming them.
  NudgedStream(const ShallowWater& solver, std::vector<DctParams> params,
               NudgingOptions options = {});
  ~NudgedStream();

  /// The reconstruction of the next output step, at `time` [s], from its decompressed fields: the
  /// first step's is its decompressed fields, each later one the model run on from the last and
  /// nudged. A time not after the last one's, or fields of the wrong count or size, are an
  /// exadnn::Error naming them.
  Fields next(double time, const Fields& decompressed);

 private:
  const ShallowWater& solver_;
  std::vector<DctParams> params_, between_;
  NudgingOptions options_;
  FaceField weights_;
  std::unique_ptr<Simulation> sim_;  // from the first step on; its time 0 is that step's
  double first_time_ = 0, last_time_ = 0;
  Fields last_;  // the last step's decompressed fields
  long steps_ = 0;
};

/// Called after each output step k (1 … steps − 1) is reconstructed: progress for long runs.
using NudgingProgress = std::function<void(std::size_t k, std::size_t steps)>;

/// The reconstruction of every output step: `times[k]` [s] increasing, `decompressed[k]` the
/// stream's fields h, u, v at that time, `params[c]` field c's DCT parameters (as stored in its
/// payloads). Returns one Fields per step; step 0 is its decompressed fields. Sizes that differ,
/// times that do not increase, or options out of range are an exadnn::Error naming them; a run
/// that blows up stops with the simulation's Error (the step and element).
std::vector<Fields> nudged_reconstruction(const ShallowWater& solver,
                                          const std::vector<double>& times,
                                          const std::vector<Fields>& decompressed,
                                          const std::vector<DctParams>& params,
                                          const NudgingOptions& options = {},
                                          const NudgingProgress& progress = {});

/// `model` with each block's kept coefficients of field c moved into the set `target` allows
/// under params[c] (dct_consistency.h): the dropped coefficients are the model's.
Fields stream_consistent(const Fields& model, const Fields& target,
                         const std::vector<DctParams>& params);

/// The reconstruction at an output step (data assimilation's "analysis"): stream_consistent(model,
/// decompressed, params), then, with `weights` (the quadrature's, face_area_weights), h's integral
/// Σ weights · h set to the stream's by the smallest change of its dropped coefficients; without
/// weights (null) the projection alone.
Fields stream_analysis(const Fields& model, const Fields& decompressed,
                       const std::vector<DctParams>& params, const FaceField* weights);

/// One relaxation: model += gamma (stream_consistent(model, target, params) − model), so each
/// block's kept coefficients move the fraction gamma ∈ [0, 1] of the way to the target's and the
/// dropped ones stay.
void nudge_towards(Fields& model, const Fields& target, const std::vector<DctParams>& params,
                   double gamma);

}  // namespace climate
