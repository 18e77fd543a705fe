#include "climate/nudging.h"

#include <exadnn/core/error.h>

#include <algorithm>

#include "climate/dct_consistency.h"
#include "climate/simulation.h"

namespace climate {

namespace {

constexpr const char* kWhere = "nudged_reconstruction";

// The same blocks and kept coefficients, stored exactly: between output steps the interpolated
// stream has no quantisation cells, its kept coefficients are the target.
DctParams exact(const DctParams& p) {
  return {.block = p.block, .keep = p.keep};
}
std::vector<DctParams> exact(const std::vector<DctParams>& params) {
  std::vector<DctParams> out;
  for (const DctParams& p : params) out.push_back(exact(p));
  return out;
}

// (1 − w) a + w b, field by field.
Fields blend(const Fields& a, const Fields& b, double w) {
  Fields out = a;
  for (size_t c = 0; c < out.size(); ++c)
    for (size_t i = 0; i < out[c].data.size(); ++i)
      out[c].data[i] = (1 - w) * a[c].data[i] + w * b[c].data[i];
  return out;
}

// Moves `field` within the dropped coefficients of `params` (each block's kept coefficients, and
// so its place in the stream's consistent set, unchanged) until its integral Σ weights · field is
// `integral`: by the multiple of the weights' dropped part that does it, the smallest such change
// (the transform is orthonormal, so Σ w · D(w) = |D(w)|² > 0).
void match_integral(const FaceField& weights, const DctParams& params, double integral,
                    FaceField& field) {
  FaceField dropped = weights;
  project_onto_dct_consistent(exact(params), FaceField(weights.n), dropped);
  const double along = climate::integral(weights, dropped);
  if (along <= 0) return;  // every coefficient kept: the stream fixes the integral already
  const double alpha = (integral - climate::integral(weights, field)) / along;
  for (size_t i = 0; i < field.data.size(); ++i) field.data[i] += alpha * dropped.data[i];
}

void check_fields(const Fields& f, int n, long step) {
  EXADNN_CHECK(f.size() == 3, kWhere, "step ", step, " has ", f.size(), " fields, not h, u, v");
  for (const FaceField& field : f)
    EXADNN_CHECK(field.n == n, kWhere, "step ", step, " has a field of face size ", field.n,
                 ", the mesh's is ", n);
}

}  // namespace

Fields stream_consistent(const Fields& model, const Fields& target,
                         const std::vector<DctParams>& params) {
  EXADNN_CHECK(model.size() == target.size() && model.size() == params.size(), "stream_consistent",
               model.size(), " model fields, ", target.size(), " target fields, ", params.size(),
               " parameter sets");
  Fields out = target;
  for (size_t c = 0; c < model.size(); ++c) {
    FaceField correction = model[c];
    for (size_t i = 0; i < correction.data.size(); ++i) correction.data[i] -= target[c].data[i];
    project_onto_dct_consistent(params[c], target[c], correction);
    for (size_t i = 0; i < correction.data.size(); ++i) out[c].data[i] += correction.data[i];
  }
  return out;
}

Fields stream_analysis(const Fields& model, const Fields& decompressed,
                       const std::vector<DctParams>& params, const FaceField* weights) {
  Fields out = stream_consistent(model, decompressed, params);
  if (weights != nullptr)
    match_integral(*weights, params[0], integral(*weights, decompressed[0]), out[0]);
  return out;
}

void nudge_towards(Fields& model, const Fields& target, const std::vector<DctParams>& params,
                   double gamma) {
  EXADNN_CHECK(gamma >= 0 && gamma <= 1, "nudge_towards", "gamma must lie in [0, 1], got ", gamma);
  const Fields pulled = stream_consistent(model, target, params);
  for (size_t c = 0; c < model.size(); ++c)
    for (size_t i = 0; i < model[c].data.size(); ++i)
      model[c].data[i] += gamma * (pulled[c].data[i] - model[c].data[i]);
}

NudgedStream::NudgedStream(const ShallowWater& solver, std::vector<DctParams> params,
                           NudgingOptions options)
    : solver_(solver),
      params_(std::move(params)),
      between_(exact(params_)),
      options_(options),
      weights_(face_area_weights(solver.mesh())) {
  EXADNN_CHECK(params_.size() == 3, kWhere, "one DCT parameter set per field (h, u, v), got ",
               params_.size());
  const int n = solver.mesh().ne() * solver.mesh().nodes_1d();
  for (const DctParams& p : params_) DctCompressor::validate(p, n);
  EXADNN_CHECK(options_.tau_hours >= 0, kWhere, "tau_hours must be >= 0, got ", options_.tau_hours);
  EXADNN_CHECK(options_.interval_minutes > 0, kWhere, "interval_minutes must be > 0, got ",
               options_.interval_minutes);
}

NudgedStream::~NudgedStream() = default;

Fields NudgedStream::next(double time, const Fields& decompressed) {
  check_fields(decompressed, solver_.mesh().ne() * solver_.mesh().nodes_1d(), steps_);
  if (!sim_) {
    sim_ = std::make_unique<Simulation>(
        solver_, state_from_correction_fields(solver_, decompressed), options_.cfl);
    first_time_ = last_time_ = time;
    last_ = decompressed;
    ++steps_;
    return decompressed;
  }
  EXADNN_CHECK(time > last_time_, kWhere, "times must increase: step ", steps_, " at ", time,
               " s after step ", steps_ - 1, " at ", last_time_, " s");
  // Model time runs from 0 at the first step.
  const double t0 = last_time_ - first_time_, t1 = time - first_time_;
  const double interval = options_.interval_minutes * 60, tau = options_.tau_hours * 3600;
  while (tau > 0 && sim_->time() < t1 - 1e-9 * (t1 - t0)) {
    const double now = sim_->time(), later = std::min(t1, now + interval);
    sim_->advance_to(later);
    Fields f = correction_fields(solver_, sim_->state());
    nudge_towards(f, blend(last_, decompressed, (later - t0) / (t1 - t0)), between_,
                  std::min(1.0, (later - now) / tau));
    sim_->resume(state_from_correction_fields(solver_, f), sim_->time(), sim_->steps());
  }
  sim_->advance_to(t1);
  Fields out = stream_analysis(correction_fields(solver_, sim_->state()), decompressed, params_,
                               options_.keep_stream_mass ? &weights_ : nullptr);
  sim_->resume(state_from_correction_fields(solver_, out), sim_->time(), sim_->steps());
  last_time_ = time;
  last_ = decompressed;
  ++steps_;
  return out;
}

std::vector<Fields> nudged_reconstruction(const ShallowWater& solver,
                                          const std::vector<double>& times,
                                          const std::vector<Fields>& decompressed,
                                          const std::vector<DctParams>& params,
                                          const NudgingOptions& options,
                                          const NudgingProgress& progress) {
  EXADNN_CHECK(!times.empty() && times.size() == decompressed.size(), kWhere, times.size(),
               " times for ", decompressed.size(), " steps of fields");
  NudgedStream stream(solver, params, options);
  std::vector<Fields> out;
  for (size_t k = 0; k < times.size(); ++k) {
    out.push_back(stream.next(times[k], decompressed[k]));
    if (progress && k > 0) progress(k, times.size());
  }
  return out;
}

}  // namespace climate
