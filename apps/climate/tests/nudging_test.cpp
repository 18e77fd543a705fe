// The model nudged towards a compressed stream (nudging.h): Galewsky with the bump at (4, 3)
// (face size 16), one day every 3 h, 8 x 8 DCT truncation keeping 2 x 2 coefficients (16:1).
#include "climate/nudging.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "climate/galewsky.h"
#include "climate/simulation.h"
#include "compress_test_fields.h"

namespace climate {
namespace {

const DctParams kTruncation{.block = 8, .keep = 2};

struct StreamRun {
  std::vector<double> times;
  std::vector<Fields> original, decompressed;
};

const StreamRun& galewsky_run() {
  static const StreamRun run = [] {
    const CubedSphere mesh(4, 3);
    const Galewsky tc(true);
    const ShallowWater solver(mesh, tc.params());
    Simulation sim(solver, tc.state(solver));
    const DctCompressor dct(kTruncation);
    StreamRun r;
    for (int k = 0; k <= 8; ++k) {
      sim.advance_to(k * 3 * 3600.0);
      r.times.push_back(sim.time());
      r.original.push_back(correction_fields(solver, sim.state()));
      Fields d;
      for (const FaceField& f : r.original.back()) d.push_back(dct.decompress(dct.compress(f)));
      r.decompressed.push_back(d);
    }
    return r;
  }();
  return run;
}

double max_abs_difference(const FaceField& a, const FaceField& b) {
  double m = 0;
  for (size_t k = 0; k < a.data.size(); ++k) m = std::max(m, std::fabs(a.data[k] - b.data[k]));
  return m;
}

// Round-off of a field's values: 1e-9 of its largest magnitude.
double round_off(const FaceField& f) {
  double m = 0;
  for (double x : f.data) m = std::max(m, std::fabs(x));
  return 1e-9 * m;
}

TEST(Nudging, StreamConsistentTakesTheKeptCoefficientsFromTheTargetAndTheRestFromTheModel) {
  const StreamRun& run = galewsky_run();
  const DctCompressor dct(kTruncation);
  const std::vector<DctParams> params(3, kTruncation);
  // The model: the last step's original fields; the target: the first step's stream.
  const Fields& model = run.original.back();
  const Fields& target = run.decompressed.front();
  const Fields out = stream_consistent(model, target, params);
  for (int c = 0; c < 3; ++c) {
    const FaceField out_kept = dct.decompress(dct.compress(out[c]));
    const FaceField model_kept = dct.decompress(dct.compress(model[c]));
    EXPECT_LE(max_abs_difference(out_kept, target[c]), round_off(model[c])) << c;
    // The dropped part (the field less its kept coefficients) is the model's.
    FaceField out_dropped = out[c], model_dropped = model[c];
    for (size_t i = 0; i < out_dropped.data.size(); ++i) {
      out_dropped.data[i] -= out_kept.data[i];
      model_dropped.data[i] -= model_kept.data[i];
    }
    EXPECT_LE(max_abs_difference(out_dropped, model_dropped), round_off(model[c])) << c;
  }
}

TEST(Nudging, ANudgeMovesTheKeptCoefficientsItsFractionOfTheWay) {
  const StreamRun& run = galewsky_run();
  const DctCompressor dct(kTruncation);
  const std::vector<DctParams> params(3, kTruncation);
  Fields model = run.original.back();
  const Fields& target = run.decompressed.front();
  nudge_towards(model, target, params, 0.25);
  for (int c = 0; c < 3; ++c) {
    const FaceField kept = dct.decompress(dct.compress(model[c]));
    const FaceField was_kept = dct.decompress(dct.compress(run.original.back()[c]));
    FaceField expected = was_kept;
    for (size_t i = 0; i < expected.data.size(); ++i)
      expected.data[i] = 0.75 * was_kept.data[i] + 0.25 * target[c].data[i];
    EXPECT_LE(max_abs_difference(kept, expected), round_off(model[c])) << c;
    FaceField dropped = model[c], was_dropped = run.original.back()[c];
    for (size_t i = 0; i < dropped.data.size(); ++i) {
      dropped.data[i] -= kept.data[i];
      was_dropped.data[i] -= was_kept.data[i];
    }
    EXPECT_LE(max_abs_difference(dropped, was_dropped), round_off(model[c])) << c;
  }
  testing::expect_error([&] { nudge_towards(model, target, params, 1.5); },
                        {"gamma must lie in [0, 1], got 1.5"});
}

// With τ = 0 each step is the model run on from the step before's reconstruction, put into the
// stream's consistent set with the stream's mass.
TEST(Nudging, WithoutRelaxationEachStepIsTheModelRunOnFromTheLast) {
  const StreamRun& run = galewsky_run();
  const CubedSphere mesh(4, 3);
  const ShallowWater solver(mesh, Galewsky(true).params());
  const std::vector<DctParams> params(3, kTruncation);
  const std::vector<Fields> rec = nudged_reconstruction(solver, run.times, run.decompressed, params,
                                                        {.tau_hours = 0, .keep_stream_mass = true});
  for (const size_t k : {1, 4, 8}) {
    Simulation sim(solver, state_from_correction_fields(solver, rec[k - 1]));
    sim.advance_to(run.times[k] - run.times[k - 1]);
    const FaceField weights = face_area_weights(mesh);
    const Fields expected = stream_analysis(correction_fields(solver, sim.state()),
                                            run.decompressed[k], params, &weights);
    for (int c = 0; c < 3; ++c)
      EXPECT_LE(max_abs_difference(rec[k][c], expected[c]), round_off(expected[c]))
          << "step " << k << " field " << c;
  }
}

// The reconstruction starts from the stream's first step, keeps the stream at every step and its
// mass, and by the last half of the day is closer to the original than the stream alone: the model
// turns the kept scales into dropped ones as the original run did. Stated before measuring; both τ.
TEST(Nudging, TheReconstructionKeepsTheStreamAndEndsCloserToTheOriginal) {
  const StreamRun& run = galewsky_run();
  const CubedSphere mesh(4, 3);
  const ShallowWater solver(mesh, Galewsky(true).params());
  const DctCompressor dct(kTruncation);
  const std::vector<DctParams> params(3, kTruncation);
  for (const double tau : {0.0, 10.0}) {
    SCOPED_TRACE(tau);
    const std::vector<Fields> rec = nudged_reconstruction(
        solver, run.times, run.decompressed, params, {.tau_hours = tau, .keep_stream_mass = true});
    ASSERT_EQ(rec.size(), run.times.size());
    for (int c = 0; c < 3; ++c) EXPECT_EQ(rec[0][c].data, run.decompressed[0][c].data);
    for (size_t k = 0; k < rec.size(); ++k)
      for (int c = 0; c < 3; ++c)
        EXPECT_LT(
            max_abs_difference(dct.decompress(dct.compress(rec[k][c])), run.decompressed[k][c]),
            round_off(run.original[k][c]))
            << "step " << k << " field " << c;
    // h's integral, the mass, is the stream's (the rule for a correction: 1e-6 relative).
    const FaceField w = face_area_weights(mesh);
    for (size_t k = 0; k < rec.size(); ++k)
      EXPECT_NEAR(integral(w, rec[k][0]) / integral(w, run.decompressed[k][0]), 1.0, 1e-12)
          << "step " << k;
    for (int c = 0; c < 2; ++c)  // h and u (v starts at 0 and grows from the bump)
      EXPECT_LT(testing::steps_rmse(rec, run.original, c, 5),
                testing::steps_rmse(run.decompressed, run.original, c, 5))
          << "field " << c;
  }
}

// Left free (the default), the reconstruction's mass over the last half of the day is closer to
// the original's than the stream's is: the stream's DC is an unweighted block mean, so the dropped
// coefficients carry mass, and the model's dropped scales restore it. Stated before measuring.
TEST(Nudging, LeftFreeTheMassIsCloserToTheOriginalsThanTheStreams) {
  const StreamRun& run = galewsky_run();
  const CubedSphere mesh(4, 3);
  const ShallowWater solver(mesh, Galewsky(true).params());
  const std::vector<Fields> rec = nudged_reconstruction(solver, run.times, run.decompressed,
                                                        std::vector<DctParams>(3, kTruncation), {});
  const FaceField w = face_area_weights(mesh);
  double stream = 0, nudged = 0;
  for (size_t k = 5; k < rec.size(); ++k) {
    const double original = integral(w, run.original[k][0]);
    stream = std::max(stream, std::fabs(integral(w, run.decompressed[k][0]) / original - 1));
    nudged = std::max(nudged, std::fabs(integral(w, rec[k][0]) / original - 1));
  }
  std::printf("h's mass against the original's, steps 5-8: stream %.3e, nudged %.3e\n", stream,
              nudged);
  EXPECT_LT(nudged, stream);
}

TEST(Nudging, RefusesWhatItCannotUse) {
  const StreamRun& run = galewsky_run();
  const CubedSphere mesh(4, 3);
  const ShallowWater solver(mesh, Galewsky(true).params());
  const std::vector<DctParams> params(3, kTruncation);
  std::vector<double> times = run.times;
  std::swap(times[3], times[4]);
  testing::expect_error([&] { nudged_reconstruction(solver, times, run.decompressed, params); },
                        {"times must increase: step 4"});
  testing::expect_error(
      [&] {
        nudged_reconstruction(solver, run.times, run.decompressed, {kTruncation, kTruncation});
      },
      {"one DCT parameter set per field", "got 2"});
  std::vector<Fields> two = run.decompressed;
  two[2].pop_back();
  testing::expect_error([&] { nudged_reconstruction(solver, run.times, two, params); },
                        {"step 2 has 2 fields"});
  testing::expect_error(
      [&] {
        nudged_reconstruction(solver, run.times, run.decompressed, params, {.tau_hours = -1});
      },
      {"tau_hours must be >= 0"});
  const CubedSphere other(2, 3);
  const ShallowWater small(other, Galewsky(true).params());
  testing::expect_error([&] { nudged_reconstruction(small, run.times, run.decompressed, params); },
                        {"face size 16", "the mesh's is 8"});
}

}  // namespace
}  // namespace climate
