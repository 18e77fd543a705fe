// The learned correction: it never changes a field's mass, it learns a residual it can see
// (through exadnn's Trainer, from a replay buffer), its stored state restores it exactly, and it
// refuses fields that do not fit.
#include <gtest/gtest.h>

#include <exadnn/exadnn.h>

#include <cmath>
#include <random>
#include <utility>

#include "climate/correction.h"
#include "climate/correction_trainer.h"

namespace climate {
namespace {

// Three smooth fields on the sphere (a height around 10 km and two velocities), their shape set
// by `seed`: sums of a few sines of the position.
Fields smooth_fields(const CubedSphere& mesh, uint64_t seed) {
  const FaceHalo layout(mesh, 0);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Fields out(3, FaceField(layout.n()));
  const double base[3] = {1e4, 0, 0}, amp[3] = {300, 30, 20};
  for (int c = 0; c < 3; ++c) {
    double k[4][3], phase[4];
    for (int m = 0; m < 4; ++m) {
      for (int d = 0; d < 3; ++d) k[m][d] = 3 * u(rng);
      phase[m] = 3 * u(rng);
    }
    for (int f = 0; f < 6; ++f)
      for (int r = 0; r < layout.n(); ++r)
        for (int col = 0; col < layout.n(); ++col) {
          const Vec3 x = (1.0 / mesh.radius()) * mesh.metric(layout.node(f, r, col)).x;
          double v = base[c];
          for (int m = 0; m < 4; ++m)
            v += amp[c] / (m + 1) *
                 std::sin(k[m][0] * x[0] + k[m][1] * x[1] + k[m][2] * x[2] + phase[m]);
          out[c].at(f, r, col) = v;
        }
  }
  return out;
}

double rms_difference(const FaceField& a, const FaceField& b) {
  double s = 0;
  for (size_t k = 0; k < a.data.size(); ++k) s += (a.data[k] - b.data[k]) * (a.data[k] - b.data[k]);
  return std::sqrt(s / static_cast<double>(a.data.size()));
}

// The weighted mean of a field over the sphere.
double sphere_mean(const CubedSphere& mesh, const FaceField& f) {
  const FaceField w = face_area_weights(mesh);
  FaceField one(f.n);
  for (double& v : one.data) v = 1;
  return integral(w, f) / integral(w, one);
}

// smooth_fields moved to the means 10 km (h) and 0 (u, v).
Fields centred_fields(const CubedSphere& mesh, uint64_t seed) {
  Fields out = smooth_fields(mesh, seed);
  for (size_t c = 0; c < out.size(); ++c) {
    const double shift = (c == 0 ? 1e4 : 0.0) - sphere_mean(mesh, out[c]);
    for (double& v : out[c].data) v += shift;
  }
  return out;
}

// A "compressor" that keeps the mass, as the real ones do, and whose error the network can learn
// from what it sees: each field (of centred_fields) pulled 20 % towards its mean M, so that the
// residual is 0.25 (decompressed − M), a local function of the decompressed field.
Fields shrunk(const CubedSphere& mesh, const Fields& original) {
  Fields out = original;
  for (FaceField& f : out) {
    const double mean = sphere_mean(mesh, f);
    for (double& v : f.data) v = 0.8 * v + 0.2 * mean;
  }
  return out;
}

// A step the trainer never saw (seed 999): the corrected fields are much closer to the original
// than the shrunk ones. Returns the corrected fields.
Fields expect_corrects_an_unseen_step(const CubedSphere& mesh, const Correction& correction) {
  const Fields original = centred_fields(mesh, 999);
  const Fields input = shrunk(mesh, original);
  Fields corrected = correction.apply(input);
  for (int c = 0; c < 3; ++c)
    EXPECT_LT(rms_difference(corrected[c], original[c]),
              0.3 * rms_difference(input[c], original[c]))
        << "field " << c;
  return corrected;
}

TEST(Correction, NeverChangesTheMassOfAField) {
  const CubedSphere mesh(3, 3);
  Correction correction(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 5});
  const Fields original = smooth_fields(mesh, 1);
  Fields noisy = original;
  std::mt19937_64 rng(2);
  std::normal_distribution<double> noise(0, 1);
  for (int c = 0; c < 3; ++c)
    for (double& v : noisy[c].data) v += (c == 0 ? 5 : 0.5) * noise(rng);
  correction.observe(noisy, original);
  const Fields corrected = correction.apply(noisy);  // untrained: a large, arbitrary correction
  const FaceField w = face_area_weights(mesh);
  double area = 0;
  for (const double a : w.data) area += a;
  EXPECT_NEAR(area / (4 * kPi * kEarthRadius * kEarthRadius), 1.0, 1e-6);
  for (int c = 0; c < 3; ++c) {
    FaceField magnitude = noisy[c];
    for (double& v : magnitude.data) v = std::abs(v);
    const double scale = integral(w, magnitude);  // ∫|field| dA: u and v have ∫ ≈ 0
    const double change = std::abs(integral(w, corrected[c]) - integral(w, noisy[c])) / scale;
    EXPECT_LT(change, 1e-6) << "field " << c;  // the bound; measured ~1e-16
    EXPECT_GT(rms_difference(corrected[c], noisy[c]), 0.005 * (c == 0 ? 5 : 0.5))
        << "field " << c << ": the correction did nothing, the check would be empty";
  }
}

// A field the compressor kept exactly has nothing to correct: an untrained network's arbitrary
// output must not reach it (it used to, scaled by 1 m/s: 0.19 m/s added to an exact u), while the
// inexact field beside it is still corrected.
TEST(Correction, LeavesAFieldCompressedExactlyUnchanged) {
  const CubedSphere mesh(2, 3);
  Correction correction(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 5});
  const Fields original = centred_fields(mesh, 7);
  Fields decompressed = original;               // h and u kept exactly
  decompressed[2] = shrunk(mesh, original)[2];  // v: a real error
  correction.observe(decompressed, original);
  correction.observe(decompressed, original);
  std::vector<float> x(6 * correction.input_channels() * correction.halo().width() *
                       correction.halo().width()),
      y(6 * 3 * correction.halo().n() * correction.halo().n());
  correction.samples(decompressed, original, x.data(), y.data());
  correction.normalise(6, x.data(), y.data());
  for (const float target : y) ASSERT_TRUE(std::isfinite(target));
  const Fields corrected = correction.apply(decompressed);
  EXPECT_EQ(corrected[0].data, decompressed[0].data);
  EXPECT_EQ(corrected[1].data, decompressed[1].data);
  EXPECT_GT(rms_difference(corrected[2], decompressed[2]), 0.0);
}

TEST(Correction, TrainerLearnsAResidualItCanSeeAndTheStateRestoresIt) {
  const CubedSphere mesh(2, 3);
  Correction correction(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 3});
  CorrectionTrainer trainer(correction, {.capacity = 36, .batch = 6, .lr = 3e-3, .seed = 4});
  double first = 0, last = 0;
  for (int step = 0; step < 40; ++step) {
    if (step < 8) {
      const Fields original = centred_fields(mesh, 100 + step);
      trainer.add(shrunk(mesh, original), original);
    }
    const TrainingRound round = trainer.train(18);
    if (step == 0) first = round.loss;
    last = round.loss;
    EXPECT_EQ(round.examples, std::min<int64_t>(18, trainer.buffer().size()));
  }
  EXPECT_EQ(trainer.buffer().size(), 36);  // 8 steps × 6 faces, capacity 36
  EXPECT_EQ(trainer.rounds(), 40);
  EXPECT_LT(last, 0.1 * first);
  const Fields input = shrunk(mesh, centred_fields(mesh, 999));
  const Fields corrected = expect_corrects_an_unseen_step(mesh, correction);
  // The stored state gives the same correction in a fresh network.
  Correction restored(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 77});
  restored.load(correction.state());
  const Fields again = restored.apply(input);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(again[c].data, corrected[c].data);
  // Parameters: 3·8·9 + 8, 8·8·9 + 8, 8·3·9 + 3; the normalisation 3 × 3 and 3 gains; f32.
  EXPECT_EQ(correction.bytes(), (224 + 584 + 219 + 9 + 3) * 4);
  // A correction that generalises keeps most of its weight when fitted on unseen pairs.
  std::vector<Fields> held_in, held_out;
  for (int k = 0; k < 2; ++k) {
    held_out.push_back(centred_fields(mesh, 500 + k));
    held_in.push_back(shrunk(mesh, held_out.back()));
  }
  for (const float g : correction.fit_gains(held_in, held_out)) EXPECT_GT(g, 0.5f);
}

// Six steps of shrunk centred_fields into the trainer, then `rounds` rounds of 36 examples after
// a first one: the first round's loss and the last one's.
std::pair<double, double> train_on_six_steps(const CubedSphere& mesh, CorrectionTrainer& trainer,
                                             int rounds) {
  for (int step = 0; step < 6; ++step) {
    const Fields original = centred_fields(mesh, 100 + step);
    trainer.add(shrunk(mesh, original), original);
  }
  const double first = trainer.train(36).loss;
  double last = first;
  for (int round = 0; round < rounds; ++round) last = trainer.train(36).loss;
  return {first, last};
}

// Trained on examples shown in random orientations (the trainer's `augment`), a residual the
// network can see is still learned: each example's input and target are turned together (were
// they not, the halo'd input and its interior would disagree and the loss would stay near 1).
TEST(Correction, TrainerLearnsFromExamplesInRandomOrientations) {
  const CubedSphere mesh(2, 3);
  Correction correction(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 3});
  CorrectionTrainer trainer(correction,
                            {.capacity = 36, .batch = 6, .lr = 3e-3, .seed = 4, .augment = true});
  const auto [first, last] = train_on_six_steps(mesh, trainer, 40);
  EXPECT_LT(last, 0.1 * first);
  expect_corrects_an_unseen_step(mesh, correction);
}

// Options the correction refuses, with `words` in the Error.
void expect_refused(const CubedSphere& mesh, const CorrectionOptions& o, const std::string& words) {
  try {
    Correction c(mesh, o);
    ADD_FAILURE() << "accepted: " << words;
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

// Dilated convolutions reach further at the same weights: the halo is the dilations' sum, the
// network still maps the halo'd face to the face, and a list that does not fit is refused.
TEST(Correction, DilatedConvolutionsWidenTheHaloToTheirSum) {
  const CubedSphere mesh(2, 3);  // n = 8
  Correction dilated(mesh, {.fields = 3, .width = 4, .depth = 3, .dilations = {1, 2, 1}});
  EXPECT_EQ(dilated.halo().halo(), 4);
  EXPECT_EQ(dilated.halo().width(), 16);
  Correction plain(mesh, {.fields = 3, .width = 4, .depth = 3});
  EXPECT_EQ(plain.halo().halo(), 3);
  EXPECT_EQ(dilated.bytes(), plain.bytes());  // the same weights, wired differently
  const Fields original = centred_fields(mesh, 5);
  const Fields input = shrunk(mesh, original);
  dilated.observe(input, original);
  const Fields corrected = dilated.apply(input);
  for (int c = 0; c < 3; ++c) {
    ASSERT_EQ(corrected[c].data.size(), input[c].data.size());
    EXPECT_GT(rms_difference(corrected[c], input[c]), 0.0) << "field " << c;
  }
  expect_refused(mesh, {.fields = 3, .width = 4, .depth = 3, .dilations = {1, 2}},
                 "2 dilations for depth 3");
  expect_refused(mesh, {.fields = 3, .width = 4, .depth = 2, .dilations = {1, 0}}, "dilation 0");
}

// The U-Net option: its halo is the requested one (8 by default) rounded up so that the halo'd
// face divides by 2^levels; it maps the halo'd face to the face, learns a residual it can see as
// the plain CNN does, and its stored state restores it in a fresh network of the same options.
// Options out of range are refused by name.
TEST(Correction, UNetLearnsAResidualItCanSeeAndTheStateRestoresIt) {
  const CubedSphere mesh(2, 3);                         // n = 8
  EXPECT_EQ(Correction::reach({.levels = 2}, 8), 8);    // 8 + 16 = 24, divisible by 4
  EXPECT_EQ(Correction::reach({.levels = 3}, 8), 8);    // 24 divisible by 8
  EXPECT_EQ(Correction::reach({.levels = 3}, 10), 11);  // 10 + 22 = 32
  EXPECT_EQ(Correction::reach({.levels = 2, .halo = 3}, 8), 4);
  const CorrectionOptions options{.fields = 3, .width = 8, .levels = 1, .halo = 4, .seed = 3};
  Correction correction(mesh, options);
  EXPECT_EQ(correction.halo().width(), 16);
  CorrectionTrainer trainer(correction, {.capacity = 36, .batch = 6, .lr = 3e-3, .seed = 4});
  const auto [first, last] = train_on_six_steps(mesh, trainer, 60);
  EXPECT_LT(last, 0.1 * first);
  const Fields input = shrunk(mesh, centred_fields(mesh, 999));
  const Fields corrected = expect_corrects_an_unseen_step(mesh, correction);
  CorrectionOptions other = options;
  other.seed = 77;
  Correction restored(mesh, other);
  restored.load(correction.state());
  const Fields again = restored.apply(input);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(again[c].data, corrected[c].data);
  // Parameters: level 0 (3 → 8, 8 → 8), bottom (8 → 16, 16 → 16), up 0 (16 + 8 → 8, 8 → 8),
  // head 8 → 3 (1×1); 3×3 weights and biases.
  const int64_t conv =
      (3 * 8 + 8 * 8 + 8 * 16 + 16 * 16 + 24 * 8 + 8 * 8) * 9 + (8 + 8 + 16 + 16 + 8 + 8);
  EXPECT_EQ(correction.bytes(), (conv + 8 * 3 + 3 + 9 + 3) * 4);
  expect_refused(mesh, {.fields = 3, .width = 4, .levels = 7}, "levels = 7");
  expect_refused(mesh, {.fields = 3, .width = 4, .levels = 1, .halo = -1}, "halo = -1");
}

// An untrained network's arbitrary correction, fitted on held-out pairs: every gain in [0, 1], and
// on those pairs the corrected error is never above the compressor's (α = 0 is among the choices
// the least squares weigh); the gains travel with the stored state, and a state stored before they
// existed loads with gains 1.
TEST(Correction, GainsFittedOnHeldOutPairsNeverLetTheCorrectionHurt) {
  const CubedSphere mesh(2, 3);
  Correction correction(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 9});
  std::vector<Fields> decompressed, original;
  for (int k = 0; k < 3; ++k) {
    original.push_back(centred_fields(mesh, 300 + k));
    decompressed.push_back(shrunk(mesh, original.back()));
    correction.observe(decompressed.back(), original.back());
  }
  for (const float g : correction.gains()) EXPECT_EQ(g, 1.0f);
  const auto error = [&](int c) {
    double alone = 0, corrected = 0;
    for (size_t k = 0; k < original.size(); ++k) {
      alone += std::pow(rms_difference(decompressed[k][c], original[k][c]), 2);
      corrected +=
          std::pow(rms_difference(correction.apply(decompressed[k])[c], original[k][c]), 2);
    }
    return std::pair{alone, corrected};
  };
  bool hurt_before = false;
  for (int c = 0; c < 3; ++c) hurt_before |= error(c).second > error(c).first;
  EXPECT_TRUE(hurt_before) << "the untrained correction helped every field: the check is empty";
  const std::vector<float> gains = correction.fit_gains(decompressed, original);
  for (int c = 0; c < 3; ++c) {
    EXPECT_GE(gains[c], 0.0f);
    EXPECT_LE(gains[c], 1.0f);
    const auto [alone, corrected] = error(c);
    EXPECT_LE(corrected, alone * (1 + 1e-12)) << "field " << c << ", gain " << gains[c];
  }
  Correction restored(mesh, {.fields = 3, .width = 8, .depth = 3, .seed = 1});
  restored.load(correction.state());
  EXPECT_EQ(restored.gains(), gains);
  exadnn::StateDict old;
  for (const auto& [name, t] : correction.state())
    if (name != "gain") old.insert(name, t);
  restored.load(old);
  for (const float g : restored.gains()) EXPECT_EQ(g, 1.0f);
}

TEST(Correction, PhaseChannelsFollowTheFaceIndexingIntoTheHalo) {
  const CubedSphere mesh(2, 3);  // n = 8
  Correction correction(mesh, {.fields = 3, .width = 4, .depth = 2, .periods = {4, 3}});
  EXPECT_EQ(correction.input_channels(), 7);
  const int w = correction.halo().width(), H = 2;
  EXPECT_EQ(correction.input_floats(), 7 * w * w);
  const Fields fields = centred_fields(mesh, 1);
  std::vector<float> x(static_cast<size_t>(6 * correction.input_floats()));
  std::vector<float> y(static_cast<size_t>(6 * correction.target_floats()));
  correction.samples(fields, fields, x.data(), y.data());
  const float* face5 = x.data() + 5 * correction.input_floats();
  for (int r = 0; r < w; ++r)
    for (int c = 0; c < w; ++c) {
      const int k = r * w + c;
      const auto phase = [](int i, int period) {
        return 2.0f * static_cast<float>(((i % period) + period) % period) / (period - 1) - 1;
      };
      EXPECT_EQ(face5[3 * w * w + k], phase(r - H, 4));  // period 4: rows, then columns
      EXPECT_EQ(face5[4 * w * w + k], phase(c - H, 4));
      EXPECT_EQ(face5[5 * w * w + k], phase(r - H, 3));
      EXPECT_EQ(face5[6 * w * w + k], phase(c - H, 3));
    }
  correction.observe(fields, fields);
  correction.normalise(1, x.data(), y.data());    // the fields only
  EXPECT_EQ(x[3 * w * w], -1.0f + 2.0f * 2 / 3);  // row −2: phase 2 of 4
  EXPECT_THROW(Correction(mesh, {.periods = {1}}), exadnn::Error);
}

TEST(Correction, RefusesFieldsThatDoNotFit) {
  const CubedSphere mesh(2, 3);
  EXPECT_THROW(Correction(mesh, {.fields = 0}), exadnn::Error);
  EXPECT_THROW(Correction(mesh, {.depth = 1}), exadnn::Error);
  EXPECT_THROW(Correction(mesh, {.depth = 9}), exadnn::Error);  // halo wider than a face (n = 8)
  Correction correction(mesh, {.fields = 3, .width = 4, .depth = 2});
  const Fields two(2, FaceField(8));
  EXPECT_THROW(correction.apply(two), exadnn::Error);
  try {
    correction.apply(Fields{FaceField(8), FaceField(8), FaceField(6)});
    FAIL() << "a field of face size 6 was taken";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("field 2 has face size 6"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace climate
