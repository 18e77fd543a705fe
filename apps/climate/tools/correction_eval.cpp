// correction_eval: issue 17's check of the learned correction. Runs Galewsky's jet (with the
// bump), keeps h, u, v at every output step, trains the correction (correction_trainer.h) on the
// pairs of the first `--train-days` and measures on the later steps, never trained on, the RMSE of
// each field against the original for: the DCT and ZFP compressors alone (picked per ratio by
// make_compressor), plain 8 × 8 DCT truncation (the reference), each with the
// correction, and plain subsampling with bilinear interpolation — at each ratio, against the
// storage in bytes per value (payloads of every output step, headers included, plus the
// network's f32 weights for the corrected streams, over every value of every output step).
//
//   correction_eval --ne 16 --p 4 --days 6 --train-days 3 --every-hours 3 --out eval
// writes eval/correction_eval.json and eval/correction_curves.png (h, u, v, RMSE against bytes
// per value on log axes), and prints the table.
#include <exadnn/core/host_heap.h>
#include <exadnn/io/plot.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "climate/compressor.h"
#include "climate/correction.h"
#include "climate/correction_trainer.h"
#include "climate/dct_compressor.h"
#include "climate/dct_consistency.h"
#include "climate/galewsky.h"
#include "climate/map_plot.h"
#include "climate/nudging.h"
#include "climate/simulation.h"

namespace {

using namespace climate;

const char* const kFieldNames[3] = {"h", "u", "v"};

struct Options {
  int ne = 16, p = 4;
  double days = 6, train_days = 3, every_hours = 3, cfl = 0.5;
  std::vector<double> ratios{4, 16, 64};
  int width = 16, depth = 4, epochs = 60;
  std::vector<int> dilations;  // one per convolution (none: 1 each)
  int levels = 0, halo = 0;    // a U-Net of this many levels (0: the plain CNN), its halo
  // The last training steps held out of training to fit each field's gain on (0: gains 1).
  int validation_steps = 2;
  bool phases = true;    // tell the network the element's and the compressor block's phase
  bool augment = false;  // train on the examples in random orientations (dihedral.h)
  // Keep each DCT-compressed field's correction to what the stream allows (dct_consistency.h).
  bool consistent = true;
  // "later": days 0 – train_days train, the later days test (the check); "interleaved":
  // every other step of the whole run trains and the steps between test (a control: test flow
  // like the training flow, as a correction trained on a whole run would see).
  std::string split = "later";
  // τ [h] of the model nudged towards each DCT stream (nudging.h; 0: insertion at the output
  // steps only); negative: no nudged reconstruction.
  double nudge_tau_hours = -1;
  // The nudged model's volume form: "split" (the run's own) or "divergence" (another scheme).
  std::string nudge_volume = "split";
  bool nudge_keep_mass = false;  // h's mass at each output step the stream's (nudging.h)
  // Maps of the relative vorticity at this output time [h] (negative: none): the original, and
  // each DCT stream decompressed and nudged.
  double maps_hours = -1;
  // "truncation" (plain 8 x 8 DCT truncation, the reference), "dct", "zfp" (picked).
  std::vector<std::string> compressors{"truncation", "dct", "zfp"};
  double lr = 1e-3;
  std::string out = ".";
};

struct Step {
  double hours;
  Fields fields;
};

// Galewsky with the bump from day 0 to `days`, the fields at every output step (day 0 included).
std::vector<Step> run_galewsky(const CubedSphere& mesh, const Options& o) {
  const Galewsky tc(true);
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), o.cfl);
  std::vector<Step> steps;
  const int count = static_cast<int>(std::lround(o.days * 24 / o.every_hours));
  for (int k = 0; k <= count; ++k) {
    sim.advance_to(k * o.every_hours * 3600);
    steps.push_back({k * o.every_hours, correction_fields(solver, sim.state())});
  }
  return steps;
}

// Squared errors summed per field over the test steps, and the values counted.
struct ErrorSum {
  double sq[3] = {0, 0, 0};
  double values = 0;
  void add(const Fields& approx, const Fields& truth) {
    for (int c = 0; c < 3; ++c)
      for (size_t k = 0; k < truth[c].data.size(); ++k) {
        const double d = approx[c].data[k] - truth[c].data[k];
        sq[c] += d * d;
      }
    values += static_cast<double>(truth[0].data.size());
  }
  double rmse(int c) const { return std::sqrt(sq[c] / values); }
};

struct Point {
  std::string method;
  double ratio;  // the target ratio (raw f64 : payload)
  double bytes_per_value;
  double rmse[3];
  double seconds = 0;  // training time (corrected methods)
};

// The periods of the face array's structure: the DG element (p + 1) and the compressor's block
// (the DCT's B, ZFP's 4), once each.
std::vector<int> structure_periods(int p, const Compressor& compressor) {
  const auto* dct = dynamic_cast<const DctCompressor*>(&compressor);
  const int block = dct ? dct->params().block : 4;
  return block == p + 1 ? std::vector<int>{p + 1} : std::vector<int>{p + 1, block};
}

using FieldCompressors = std::vector<std::unique_ptr<Compressor>>;  // one per field: h, u, v

// Each field's compressor of `kind` picked for `ratio` (make_compressor) on the last training step
// (`sample`): the newest field the run has seen before the test days. Not day 0: Galewsky's v is
// rounding noise there (|v| ~ 1e-12 m/s, the jet is zonal), on which the DCT's pick chose 3-bit
// codes (B = 10, k = 10) that cost v 1.06 m/s at 16:1 on the test days.
FieldCompressors picked_compressors(const Step& sample, CompressorKind kind, double ratio) {
  FieldCompressors comp;
  for (int c = 0; c < 3; ++c) comp.push_back(make_compressor(kind, ratio, sample.fields[c]));
  return comp;
}

// Plain truncation, the reference: 8 × 8 blocks, the lowest k × k coefficients kept as
// f64, k = 8 / sqrt(ratio) (4:1 → 4, 16:1 → 2, 64:1 → 1); no quantisation, no parameter search.
FieldCompressors truncation_compressors(int n, double ratio) {
  const int keep = static_cast<int>(std::lround(8 / std::sqrt(ratio)));
  EXADNN_CHECK(keep >= 1 && keep <= 8 && n % 8 == 0, "correction_eval",
               "8x8 DCT truncation needs a face size divisible by 8 (n = ", n,
               ") and a ratio from 1 to 64 (", ratio, ")");
  FieldCompressors comp;
  for (int c = 0; c < 3; ++c)
    comp.push_back(std::make_unique<DctCompressor>(DctParams{.block = 8, .keep = keep}));
  return comp;
}

// A compressed run: each step's decompressed fields, the payloads' bytes and the values stored.
struct Stream {
  std::vector<Fields> decompressed;
  double bytes = 0, values = 0;
};

Stream compress_steps(const std::vector<Step>& steps, const FieldCompressors& comp) {
  Stream stream;
  for (const Step& s : steps) {
    Fields d;
    for (int c = 0; c < 3; ++c) {
      const std::vector<std::uint8_t> payload = comp[c]->compress(s.fields[c]);
      stream.bytes += static_cast<double>(payload.size());
      stream.values += static_cast<double>(s.fields[c].data.size());
      d.push_back(comp[c]->decompress(payload));
    }
    stream.decompressed.push_back(std::move(d));
  }
  return stream;
}

// The fields `inputs` (one per step: `stream`'s decompressed fields or another reconstruction of
// it, named `name`) alone and corrected by a network trained on the training steps, measured on
// the test steps.
void correction_points(const CubedSphere& mesh, const std::vector<Step>& steps, int train_count,
                       const std::string& name, const FieldCompressors& comp, double ratio,
                       const Stream& stream, const std::vector<Fields>& inputs, const Options& o,
                       std::vector<Point>& points) {
  ErrorSum alone;
  for (size_t k = train_count; k < steps.size(); ++k) alone.add(inputs[k], steps[k].fields);
  points.push_back(
      {name, ratio, stream.bytes / stream.values, {alone.rmse(0), alone.rmse(1), alone.rmse(2)}});
  if (o.epochs == 0) return;  // the stream's reconstruction alone
  CorrectionOptions options{.fields = 3,
                            .width = o.width,
                            .depth = o.depth,
                            .dilations = o.dilations,
                            .levels = o.levels,
                            .halo = o.halo,
                            .seed = 1};
  if (o.phases) options.periods = structure_periods(mesh.degree(), *comp[0]);
  Correction correction(mesh, options);
  if (o.consistent) {  // each DCT-compressed field's correction kept to what its stream allows
    std::vector<const DctCompressor*> dct(3, nullptr);
    for (int c = 0; c < 3; ++c) dct[c] = dynamic_cast<const DctCompressor*>(comp[c].get());
    correction.set_projection([dct](int c, const FaceField& d, FaceField& correction_field) {
      if (dct[c] != nullptr) project_onto_dct_consistent(dct[c]->params(), d, correction_field);
    });
  }
  // Steps [0, fit) train; [fit, train_count) are held out to fit the gains on.
  const int fit = train_count - o.validation_steps;
  EXADNN_CHECK(fit >= 1, "correction_eval", "--validation-steps ", o.validation_steps,
               " leaves no training step of the ", train_count, " before --train-days");
  CorrectionTrainer trainer(
      correction, {.capacity = 6 * fit, .batch = 6, .lr = o.lr, .seed = 2, .augment = o.augment});
  for (int k = 0; k < fit; ++k) trainer.add(inputs[k], steps[k].fields);
  const auto start = std::chrono::steady_clock::now();
  double loss = 0;
  for (int e = 0; e < o.epochs; ++e) loss = trainer.train(trainer.buffer().size()).loss;
  std::string gains = "gains 1 (none fitted)";
  if (fit < train_count) {
    std::vector<Fields> held_inputs, held_original;
    for (int k = fit; k < train_count; ++k) {
      held_inputs.push_back(inputs[k]);
      held_original.push_back(steps[k].fields);
    }
    const std::vector<float> g = correction.fit_gains(held_inputs, held_original);
    char text[96];
    std::snprintf(text, sizeof text, "gains h %.3f, u %.3f, v %.3f (fitted on %d held-out steps)",
                  g[0], g[1], g[2], train_count - fit);
    gains = text;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ErrorSum corrected;
  for (size_t k = train_count; k < steps.size(); ++k)
    corrected.add(correction.apply(inputs[k]), steps[k].fields);
  std::string params;
  for (int c = 0; c < 3; ++c) params += (c ? "; " : "") + comp[c]->describe();
  std::printf("  %s %g:1 (%s): training %.0f s, final loss %.3g, %s\n", name.c_str(), ratio,
              params.c_str(), seconds, loss, gains.c_str());
  points.push_back({name + " + correction",
                    ratio,
                    (stream.bytes + static_cast<double>(correction.bytes())) / stream.values,
                    {corrected.rmse(0), corrected.rmse(1), corrected.rmse(2)},
                    seconds});
}

// The DCT parameters of each field's compressor, or none where one is not a DCT.
std::vector<DctParams> dct_params(const FieldCompressors& comp) {
  std::vector<DctParams> params;
  for (const auto& c : comp)
    if (const auto* dct = dynamic_cast<const DctCompressor*>(c.get()))
      params.push_back(dct->params());
  return params.size() == comp.size() ? params : std::vector<DctParams>{};
}

// The stream's reconstruction by the model nudged towards it (nudging.h), in the order of
// `steps` (which the interleaved split has reordered: the model runs in time order).
std::vector<Fields> nudged_steps(const CubedSphere& mesh, const std::vector<Step>& steps,
                                 const std::vector<Fields>& decompressed,
                                 const std::vector<DctParams>& params, const Options& o) {
  std::vector<size_t> order(steps.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return steps[a].hours < steps[b].hours; });
  std::vector<double> times;
  std::vector<Fields> in_time;
  for (size_t k : order) {
    times.push_back(steps[k].hours * 3600);
    in_time.push_back(decompressed[k]);
  }
  ShallowWaterParams model = Galewsky(true).params();
  model.volume = o.nudge_volume == "split" ? VolumeForm::split : VolumeForm::divergence;
  const ShallowWater solver(mesh, model);
  const std::vector<Fields> rec = nudged_reconstruction(
      solver, times, in_time, params,
      {.tau_hours = o.nudge_tau_hours, .cfl = o.cfl, .keep_stream_mass = o.nudge_keep_mass});
  std::vector<Fields> out(steps.size());
  for (size_t j = 0; j < order.size(); ++j) out[order[j]] = rec[j];
  return out;
}

// The relative vorticity of `fields` (h, u, v) at the step `hours` as a PNG map, `path`.
void write_vorticity_map(const CubedSphere& mesh, const Fields& fields, double hours,
                         const std::string& what, const std::string& path) {
  const ShallowWater solver(mesh, Galewsky(true).params());
  const LatLonGrid grid(180, 360);
  const PointInterpolator interp(mesh, grid.points(kEarthRadius));
  const LatLonFields ll =
      regrid_state(interp, solver, state_from_correction_fields(solver, fields));
  char title[256];
  std::snprintf(title, sizeof title, "Galewsky (bump), (Ne, p) = (%d, %d), day %.2f: %s", mesh.ne(),
                mesh.degree(), hours / 24, what.c_str());
  MapOptions options{title, "relative vorticity [1/s]"};
  options.diverging = true;
  write_map_png(path, grid, ll.vorticity, options);
  std::printf("  wrote %s\n", path.c_str());
}

// The index of the step at `hours` in `steps` (an Error naming the output interval if none).
size_t step_at(const std::vector<Step>& steps, double hours, const Options& o) {
  for (size_t k = 0; k < steps.size(); ++k)
    if (std::fabs(steps[k].hours - hours) < 1e-6) return k;
  throw exadnn::Error("correction_eval", "--maps-hours " + std::to_string(hours) +
                                             " is not an output step (every " +
                                             std::to_string(o.every_hours) + " h)");
}

// The stream of one set of compressors at one ratio, alone and corrected, named `name`; with
// --nudge-tau-hours, a DCT stream also reconstructed by the nudged model, alone and corrected.
void compressor_points(const CubedSphere& mesh, const std::vector<Step>& steps, int train_count,
                       const std::string& name, const FieldCompressors& comp, double ratio,
                       const Options& o, std::vector<Point>& points) {
  const Stream stream = compress_steps(steps, comp);
  correction_points(mesh, steps, train_count, name, comp, ratio, stream, stream.decompressed, o,
                    points);
  const std::vector<DctParams> params = dct_params(comp);
  if (o.nudge_tau_hours < 0 || params.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Fields> nudged = nudged_steps(mesh, steps, stream.decompressed, params, o);
  // h's mass against the original's, the largest relative change over the test steps.
  const FaceField weights = face_area_weights(mesh);
  double stream_mass = 0, nudged_mass = 0;
  for (size_t k = train_count; k < steps.size(); ++k) {
    const double original = integral(weights, steps[k].fields[0]);
    stream_mass = std::max(stream_mass,
                           std::fabs(integral(weights, stream.decompressed[k][0]) / original - 1));
    nudged_mass = std::max(nudged_mass, std::fabs(integral(weights, nudged[k][0]) / original - 1));
  }
  std::printf(
      "  %s %g:1 nudged (tau %g h): %.0f s; h's mass against the original's on the test steps: "
      "stream %.2e, nudged %.2e at most\n",
      name.c_str(), ratio, o.nudge_tau_hours,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), stream_mass,
      nudged_mass);
  correction_points(mesh, steps, train_count, name + " + nudging", comp, ratio, stream, nudged, o,
                    points);
  if (o.maps_hours < 0) return;
  const size_t k = step_at(steps, o.maps_hours, o);
  std::string slug = name + "_" + std::to_string(static_cast<int>(std::lround(ratio)));
  std::replace(slug.begin(), slug.end(), ' ', '_');
  const std::string base = o.out + "/vorticity_" + slug;
  char what[160];
  std::snprintf(what, sizeof what, "%s %g:1", name.c_str(), ratio);
  write_vorticity_map(mesh, stream.decompressed[k], o.maps_hours, what, base + "_stream.png");
  write_vorticity_map(mesh, nudged[k], o.maps_hours, std::string(what) + ", nudged model",
                      base + "_nudged.png");
}

// Face arrays subsampled at every s-th row and column (and the last), back by bilinear
// interpolation in the array's index coordinates. Returns the values kept per face.
int subsample(const FaceField& in, int s, FaceField& out) {
  const int n = in.n;
  std::vector<int> kept;
  for (int i = 0; i < n; i += s) kept.push_back(i);
  if (kept.back() != n - 1) kept.push_back(n - 1);
  out = FaceField(n);
  for (int f = 0; f < 6; ++f)
    for (int r = 0; r < n; ++r) {
      size_t a = 0;
      while (a + 2 < kept.size() && kept[a + 1] <= r) ++a;
      const double tr = double(r - kept[a]) / (kept[a + 1] - kept[a]);
      for (int c = 0; c < n; ++c) {
        size_t b = 0;
        while (b + 2 < kept.size() && kept[b + 1] <= c) ++b;
        const double tc = double(c - kept[b]) / (kept[b + 1] - kept[b]);
        const int r0 = kept[a], r1 = kept[a + 1], c0 = kept[b], c1 = kept[b + 1];
        out.at(f, r, c) = (1 - tr) * ((1 - tc) * in.at(f, r0, c0) + tc * in.at(f, r0, c1)) +
                          tr * ((1 - tc) * in.at(f, r1, c0) + tc * in.at(f, r1, c1));
      }
    }
  return static_cast<int>(kept.size() * kept.size());
}

void subsampling_points(const std::vector<Step>& steps, int train_count, const Options& o,
                        std::vector<Point>& points) {
  for (const double ratio : o.ratios) {
    const int s = static_cast<int>(std::lround(std::sqrt(ratio)));  // s² : 1 fewer values
    ErrorSum err;
    double bytes = 0, values = 0;
    for (size_t k = 0; k < steps.size(); ++k) {
      Fields approx(3);
      for (int c = 0; c < 3; ++c) {
        bytes += 8.0 * 6 * subsample(steps[k].fields[c], s, approx[c]);
        values += static_cast<double>(steps[k].fields[c].data.size());
      }
      if (static_cast<int>(k) >= train_count) err.add(approx, steps[k].fields);
    }
    points.push_back(
        {"subsampling", ratio, bytes / values, {err.rmse(0), err.rmse(1), err.rmse(2)}});
  }
}

// The curves of error against storage: one panel per field (h, u, v, top to bottom), each method
// a series, both axes logarithmic.
void write_curves(const std::string& path, const std::vector<Point>& points) {
  std::vector<exadnn::io::Panel> panels;
  for (int field = 0; field < 3; ++field) {
    exadnn::io::Panel panel;
    for (const Point& p : points) {
      if (!(p.rmse[field] > 0)) continue;  // exact (a 1:1 ratio): no place on a log axis
      auto it = std::find_if(panel.series.begin(), panel.series.end(),
                             [&](const exadnn::io::Series& s) { return s.name == p.method; });
      if (it == panel.series.end()) {
        panel.series.push_back({p.method, {}, {}, {}, exadnn::io::PlotStyle::lines_and_markers});
        it = panel.series.end() - 1;
      }
      it->x.push_back(p.bytes_per_value);
      it->y.push_back(p.rmse[field]);
    }
    if (panel.series.empty()) continue;  // every stream exact
    panel.chart.title = std::string("later days: RMSE of ") + kFieldNames[field];
    panel.chart.x_label = "bytes per value";
    panel.chart.y_label =
        std::string("RMSE of ") + kFieldNames[field] + (field == 0 ? " [m]" : " [m/s]");
    panel.chart.log_x = panel.chart.log_y = true;
    panel.chart.legend_outside = true;  // every corner of these curves holds data
    // One legend, right of the first panel, unless a panel lacks a method (exact in that field):
    // then its colours differ, and it gets its own.
    panel.legend = panels.empty() || panel.series.size() != panels.front().series.size();
    panels.push_back(panel);
  }
  if (panels.empty()) return;
  exadnn::io::write_panels(path, panels, 1, 1100, 380 * static_cast<int>(panels.size()));
}

// The points of a correction_eval.json that an earlier run wrote.
std::vector<Point> read_points(const std::string& path) {
  std::ifstream in(path);
  EXADNN_CHECK(in.good(), "correction_eval", "cannot open ", path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw exadnn::Error("correction_eval", path + ": not JSON: " + e.what());
  }
  EXADNN_CHECK(j.is_array(), "correction_eval", path,
               ": not a correction_eval.json (an array of points)");
  std::vector<Point> points;
  for (const auto& p : j) {
    try {
      points.push_back({p.at("method").get<std::string>(),
                        p.at("ratio").get<double>(),
                        p.at("bytes_per_value").get<double>(),
                        {p.at("rmse_h").get<double>(), p.at("rmse_u").get<double>(),
                         p.at("rmse_v").get<double>()}});
    } catch (const nlohmann::json::exception& e) {
      throw exadnn::Error("correction_eval",
                          path + ": point " + std::to_string(points.size()) + ": " + e.what());
    }
  }
  return points;
}

}  // namespace

int main(int argc, char** argv) {
  exadnn::keep_freed_host_memory();  // a training program: no page faults a step (host_heap.h)
  Options o;
  CLI::App app{"The learned correction of compressed Galewsky output (issue 17)"};
  app.add_option("--ne", o.ne, "elements per cube edge");
  app.add_option("--p", o.p, "polynomial degree");
  app.add_option("--days", o.days, "days simulated");
  app.add_option("--train-days", o.train_days, "output steps up to this day train the network");
  app.add_option("--every-hours", o.every_hours, "hours between output steps");
  app.add_option("--ratios", o.ratios, "compression ratios");
  app.add_option("--width", o.width, "hidden channels of the network");
  app.add_option("--depth", o.depth, "3x3 convolutions");
  app.add_option(
         "--dilations", o.dilations,
         "each convolution's dilation, e.g. 1,2,4,8,1 (none: 1 each); the halo is their sum")
      ->delimiter(',');
  app.add_option("--unet-levels", o.levels,
                 "a U-Net of this many levels instead of the plain CNN (0: the plain CNN)")
      ->check(CLI::Range(0, 6));
  app.add_option("--halo", o.halo,
                 "the U-Net's halo in pixels (0: 8, rounded up so the halo'd face divides by "
                 "2^levels)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--epochs", o.epochs,
                 "epochs over the training pairs (0: no learned correction, the streams alone)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--lr", o.lr, "Adam's learning rate");
  app.add_option("--augment", o.augment,
                 "train on each example in a random one of its square's 8 orientations (1 or 0)");
  app.add_option("--phases", o.phases, "phase channels of the element and the block (1 or 0)");
  app.add_option("--validation-steps", o.validation_steps,
                 "the last training steps held out to fit each field's gain on (0: none, gains 1)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--compressors", o.compressors,
                 "truncation (plain 8x8 DCT, f64 coefficients), dct, zfp (picked per ratio)")
      ->check(CLI::IsMember({"truncation", "dct", "zfp"}));
  app.add_option("--consistent", o.consistent,
                 "project each DCT field's correction onto what its stream allows (1 or 0)");
  app.add_option("--split", o.split,
                 "later (days after --train-days test) or interleaved (every other step trains)")
      ->check(CLI::IsMember({"later", "interleaved"}));
  app.add_option("--nudge-tau-hours", o.nudge_tau_hours,
                 "also reconstruct each DCT stream by the model nudged towards it with this "
                 "relaxation time [h] (0: inserted at output steps only; negative: off)");
  app.add_option("--nudge-volume", o.nudge_volume,
                 "the nudged model's volume form: split (the run's) or divergence (not the run's "
                 "scheme)")
      ->check(CLI::IsMember({"split", "divergence"}));
  app.add_option("--nudge-keep-mass", o.nudge_keep_mass,
                 "set h's mass to the stream's at every output step of the nudged model (1 or 0)");
  app.add_option("--maps-hours", o.maps_hours,
                 "with --nudge-tau-hours: vorticity maps at this output time [h] of the original "
                 "and of each DCT stream decompressed and nudged");
  app.add_option("--out", o.out, "output folder");
  std::string curves_from;
  app.add_option("--curves-from", curves_from,
                 "only draw OUT/correction_curves.png from an earlier run's correction_eval.json");
  CLI11_PARSE(app, argc, argv);
  try {
    std::filesystem::create_directories(o.out);
    if (!curves_from.empty()) {
      write_curves(o.out + "/correction_curves.png", read_points(curves_from));
      return 0;
    }
    const CubedSphere mesh(o.ne, o.p);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Step> steps = run_galewsky(mesh, o);
    int train_count = 0;
    if (o.split == "interleaved") {  // the even steps first (they train), then the odd ones
      std::stable_partition(steps.begin(), steps.end(), [&](const Step& s) {
        return std::lround(s.hours / o.every_hours) % 2 == 0;
      });
      train_count = static_cast<int>((steps.size() + 1) / 2);
    } else {
      while (train_count < static_cast<int>(steps.size()) &&
             steps[train_count].hours <= o.train_days * 24 + 1e-9)
        ++train_count;
    }
    EXADNN_CHECK(train_count >= 1 && train_count < static_cast<int>(steps.size()),
                 "correction_eval", "--train-days ", o.train_days, " leaves ", train_count,
                 " training and ", steps.size() - train_count, " test steps of ", steps.size());
    std::printf(
        "Galewsky (%d, %d), %zu output steps every %g h (%.0f s): %d train (%s), %zu test\n", o.ne,
        o.p, steps.size(), o.every_hours,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), train_count,
        o.split == "interleaved" ? "every other step" : "the first days",
        steps.size() - train_count);
    if (o.maps_hours >= 0)
      write_vorticity_map(mesh, steps[step_at(steps, o.maps_hours, o)].fields, o.maps_hours,
                          "the original", o.out + "/vorticity_original.png");
    std::vector<Point> points;
    subsampling_points(steps, train_count, o, points);
    const int n = steps[0].fields[0].n;
    for (const std::string& name : o.compressors)
      for (const double ratio : o.ratios)
        if (name == "truncation")
          compressor_points(mesh, steps, train_count, "dct 8x8 truncation",
                            truncation_compressors(n, ratio), ratio, o, points);
        else
          compressor_points(
              mesh, steps, train_count, name,
              picked_compressors(steps[train_count - 1], compressor_kind_from_name(name), ratio),
              ratio, o, points);
    std::printf(
        "\n| method | ratio | bytes/value | RMSE h [m] | RMSE u [m/s] | RMSE v [m/s] |\n"
        "| --- | --- | --- | --- | --- | --- |\n");
    nlohmann::json out = nlohmann::json::array();
    for (const Point& p : points) {
      std::printf("| %s | %g:1 | %.4f | %.3e | %.3e | %.3e |\n", p.method.c_str(), p.ratio,
                  p.bytes_per_value, p.rmse[0], p.rmse[1], p.rmse[2]);
      out.push_back({{"method", p.method},
                     {"ratio", p.ratio},
                     {"bytes_per_value", p.bytes_per_value},
                     {"rmse_h", p.rmse[0]},
                     {"rmse_u", p.rmse[1]},
                     {"rmse_v", p.rmse[2]},
                     {"training_seconds", p.seconds}});
    }
    std::ofstream(o.out + "/correction_eval.json") << out.dump(2) << "\n";
    write_curves(o.out + "/correction_curves.png", points);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "correction_eval: %s\n", e.what());
    return 1;
  }
  return 0;
}
