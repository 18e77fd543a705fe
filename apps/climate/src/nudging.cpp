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
std::vector<DctParams> exact(const std::vector<DctParams>& params) {
  std::vector<DctParams> out;
  for (const DctParams& p : params) out.push_back({.block = p.block, .keep = p.keep});
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
  project_onto_dct_consistent({.block = params.block, .keep = params.keep}, FaceField(weights.n),
                              dropped);
  const double along = climate::integral(weights, dropped);
  if (along <= 0) return;  // every coefficient kept: the stream fixes the integral already
  const double alpha = (integral - climate::integral(weights, field)) / along;
  for (size_t i = 0; i < field.data.size(); ++i) field.data[i] += alpha * dropped.data[i];
}

void check_inputs(const ShallowWater& solver, const std::vector<double>& times,
                  const std::vector<Fields>& decompressed, const std::vector<DctParams>& params,
                  const NudgingOptions& o) {
  EXADNN_CHECK(!times.empty() && times.size() == decompressed.size(), kWhere, times.size(),
               " times for ", decompressed.size(), " steps of fields");
  for (size_t k = 1; k < times.size(); ++k)
    EXADNN_CHECK(times[k] > times[k - 1], kWhere, "times must increase: step ", k, " at ", times[k],
                 " s after step ", k - 1, " at ", times[k - 1], " s");
  EXADNN_CHECK(params.size() == 3, kWhere, "one DCT parameter set per field (h, u, v), got ",
               params.size());
  const int n = solver.mesh().ne() * solver.mesh().nodes_1d();
  for (size_t k = 0; k < decompressed.size(); ++k) {
    EXADNN_CHECK(decompressed[k].size() == 3, kWhere, "step ", k, " has ", decompressed[k].size(),
                 " fields, not h, u, v");
    for (const FaceField& f : decompressed[k])
      EXADNN_CHECK(f.n == n, kWhere, "step ", k, " has a field of face size ", f.n,
                   ", the mesh's is ", n);
  }
  for (const DctParams& p : params) DctCompressor::validate(p, n);
  EXADNN_CHECK(o.tau_hours >= 0, kWhere, "tau_hours must be >= 0, got ", o.tau_hours);
  EXADNN_CHECK(o.interval_minutes > 0, kWhere, "interval_minutes must be > 0, got ",
               o.interval_minutes);
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

std::vector<Fields> nudged_reconstruction(const ShallowWater& solver,
                                          const std::vector<double>& times,
                                          const std::vector<Fields>& decompressed,
                                          const std::vector<DctParams>& params,
                                          const NudgingOptions& options,
                                          const NudgingProgress& progress) {
  check_inputs(solver, times, decompressed, params, options);
  const std::vector<DctParams> between = exact(params);
  const FaceField weights = face_area_weights(solver.mesh());
  const double interval = options.interval_minutes * 60, tau = options.tau_hours * 3600;
  std::vector<Fields> out{decompressed[0]};
  Simulation sim(solver, state_from_correction_fields(solver, decompressed[0]), options.cfl);
  for (size_t k = 1; k < times.size(); ++k) {
    // Model time runs from 0 at the stream's first step: t = times[0] + sim.time().
    const double t0 = times[k - 1] - times[0], t1 = times[k] - times[0];
    while (tau > 0 && sim.time() < t1 - 1e-9 * (t1 - t0)) {
      const double now = sim.time(), next = std::min(t1, now + interval);
      sim.advance_to(next);
      Fields f = correction_fields(solver, sim.state());
      nudge_towards(f, blend(decompressed[k - 1], decompressed[k], (next - t0) / (t1 - t0)),
                    between, std::min(1.0, (next - now) / tau));
      sim.resume(state_from_correction_fields(solver, f), sim.time(), sim.steps());
    }
    sim.advance_to(t1);
    out.push_back(stream_analysis(correction_fields(solver, sim.state()), decompressed[k], params,
                                  options.keep_stream_mass ? &weights : nullptr));
    sim.resume(state_from_correction_fields(solver, out.back()), sim.time(), sim.steps());
    if (progress) progress(k, times.size());
  }
  return out;
}

}  // namespace climate
