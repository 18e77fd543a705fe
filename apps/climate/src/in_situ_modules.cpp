// The workflow modules of the in-situ learned correction (workflows/climate_in_situ.yaml):
//   climate_simulate          Galewsky's jet (with the bump) on one rank; every output step it
//                             compresses h, u, v into the compressed stream (stream.h: the only
//                             output it writes) and sends each original field with its payload
//                             over a channel; it waits for the trainer only when more than
//                             `in_flight` output steps are still undelivered, and reports that wait
//   climate_train_correction  trains the correction (correction_trainer.h) on the pairs as they
//                             arrive: it decodes each payload as a reader of the stream would,
//                             scores the correction on the new step before training on it (a step
//                             it has never seen), then trains in rounds for as long as the
//                             simulation takes to make the next step; at the end it stores the
//                             network (an exadnn checkpoint) beside the stream
// Channel protocol: an i64 tensor [Ne, p, output steps after the initial one, compressor id,
// the compressor's block side (the DCT's B, ZFP's 4)];
// then per output step an f64 tensor [model time (s), the simulation's wall seconds since the
// previous output step] and per field (h, u, v) the original f64 [6, n, n], then its payload (u8).
#include <exadnn/exadnn.h>
#include <exadnn/flow/channel.h>
#include <exadnn/flow/module.h>
#include <exadnn/io/checkpoint.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "climate/compressor.h"
#include "climate/correction.h"
#include "climate/correction_metadata.h"
#include "climate/correction_trainer.h"
#include "climate/dct_compressor.h"
#include "climate/dct_consistency.h"
#include "climate/galewsky.h"
#include "climate/simulation.h"
#include "climate/stream.h"

namespace exadnn::apps::climate_modules {

using namespace ::climate;
using Clock = std::chrono::steady_clock;

namespace {

const std::vector<std::string> kFields{"h", "u", "v"};
constexpr int kParts = 64;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// args: ne (8), p (3), days (1), output_hours (3), cfl (0.5), bump (true), compressor (dct | zfp),
// ratio (16), stream (climate.czs), channel (fields), in_flight (2: output steps sent but not yet
// delivered before the simulation waits for the trainer).
void climate_simulate(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const auto start = Clock::now();
  const int ne = ctx.arg<int>("ne", 8), p = ctx.arg<int>("p", 3);
  const double every = ctx.arg<double>("output_hours", 3) * 3600;
  const int steps = static_cast<int>(std::lround(ctx.arg<double>("days", 1) * 86400 / every));
  const int in_flight = ctx.arg<int>("in_flight", 2);
  EXADNN_CHECK(steps >= 1 && in_flight >= 1, "climate_simulate", ctx.describe(),
               ": need days of at least one output step and in_flight >= 1");
  const CubedSphere mesh(ne, p);
  const Galewsky tc(ctx.arg<bool>("bump", true));
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), ctx.arg<double>("cfl", 0.5));
  const Fields first = correction_fields(solver, sim.state());
  const CompressorKind kind = compressor_kind_from_name(ctx.arg<std::string>("compressor", "dct"));
  const auto compressor = make_compressor(kind, ctx.arg<double>("ratio", 16), first[0]);
  const std::string stream_path = ctx.arg<std::string>("stream", "climate.czs");
  StreamWriter stream(stream_path, *compressor, ne, p, kFields);
  flow::Channel& out = ctx.channel(ctx.arg<std::string>("channel", "fields"));
  const auto* dct = dynamic_cast<const DctCompressor*>(compressor.get());
  const int64_t block = dct ? dct->params().block : 4;
  out.send(from_vector<int64_t>({ne, p, steps, static_cast<int64_t>(kind), block})).wait();

  std::deque<std::vector<dist::Work>> pending;  // per output step in flight, its sends
  double waited = 0, compress_s = 0;
  auto wait_for = [&](std::vector<dist::Work>& works) {
    const auto t = Clock::now();
    for (dist::Work& w : works) w.wait();
    waited += since(t);
  };
  auto progress = [&] {  // drives the transfers in flight without waiting
    for (auto& works : pending)
      for (dist::Work& w : works) w.test();
  };
  const int n = ne * (p + 1);
  auto previous = Clock::now();
  for (int k = 0; k <= steps; ++k) {
    // The output step in kParts pieces, the sends in flight driven between them: Open MPI moves
    // a large message's data only inside MPI calls of the sender, so without them the transfer
    // waits for the next wait() (measured: 8 pieces per output step left the simulation waiting
    // 13 % of its run).
    for (int part = 1; k > 0 && part <= kParts; ++part) {
      sim.advance_to((k - 1 + static_cast<double>(part) / kParts) * every);
      progress();
    }
    const Fields fields = k == 0 ? first : correction_fields(solver, sim.state());
    const auto t = Clock::now();
    std::vector<std::vector<std::uint8_t>> payloads;
    for (const FaceField& f : fields) payloads.push_back(compressor->compress(f));
    stream.write_payloads(static_cast<std::uint64_t>(k), sim.time(), payloads);
    compress_s += since(t);
    while (static_cast<int>(pending.size()) >= in_flight) {
      wait_for(pending.front());
      pending.pop_front();
    }
    std::vector<dist::Work> works;
    works.push_back(out.move(from_vector<double>({sim.time(), since(previous)})));
    previous = Clock::now();
    for (size_t c = 0; c < fields.size(); ++c) {
      works.push_back(out.move(from_vector<double>(fields[c].data, {6, n, n})));
      works.push_back(out.move(from_vector<std::uint8_t>(payloads[c])));
    }
    pending.push_back(std::move(works));
  }
  while (!pending.empty()) {
    wait_for(pending.front());
    pending.pop_front();
  }
  const double run = since(start);
  const double raw = 3.0 * 6 * n * n * 8 * (steps + 1);
  std::printf(
      "simulation: Galewsky (%d, %d), %d output steps every %g h in %.2f s (%.3f s per "
      "output step; compression %.2f s); stream %s: %llu bytes, %.1f:1 (%s)\n",
      ne, p, steps + 1, every / 3600, run, run / (steps + 1), compress_s, stream_path.c_str(),
      static_cast<unsigned long long>(stream.bytes_written()),
      raw / static_cast<double>(stream.bytes_written()), compressor->describe().c_str());
  std::printf("simulation: waited %.3f s for the trainer, %.2f %% of its run time\n", waited,
              100 * waited / run);
  std::fflush(stdout);
}

// Squared error sums of fields against the originals, per field.
void add_squares(const Fields& a, const Fields& truth, std::vector<double>& sq) {
  for (size_t c = 0; c < truth.size(); ++c)
    for (size_t k = 0; k < truth[c].data.size(); ++k)
      sq[c] += (a[c].data[k] - truth[c].data[k]) * (a[c].data[k] - truth[c].data[k]);
}

// args: channel (fields), width (12), depth (4), dilations ("": 1 each; e.g. "1,2,4,2,1", one
// per convolution, Correction's halo their sum), levels (0: the plain CNN; ≥ 1 a U-Net of that
// many levels, CorrectionOptions::levels) and halo (the U-Net's, 0: 8), phases (true:
// CorrectionOptions::periods of the element and the compressor's block), capacity (240 examples),
// batch (6), lr (1e-3), round_examples (12: examples per training round), pace (0.9: the fraction
// of the time between two output steps it trains for), final_seconds (0: training after the last
// step), validation_steps (2: the newest pairs wait this many output steps before they train, and
// those left at the end fit each field's gain, Correction::fit_gains), weights
// (climate_correction.ckpt), report ("" = none: a JSON file of the figures).
void climate_train_correction(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const auto start = Clock::now();
  flow::Channel& in = ctx.channel(ctx.arg<std::string>("channel", "fields"));
  const std::vector<int64_t> head = to_vector<int64_t>(in.recv());
  EXADNN_CHECK(head.size() == 5, "climate_train_correction", ctx.describe(),
               ": the stream's first message has ", head.size(), " values, expected 5");
  const int ne = static_cast<int>(head[0]), p = static_cast<int>(head[1]);
  const int steps = static_cast<int>(head[2]);
  const auto decoder = make_decoder(static_cast<CompressorKind>(head[3]));
  const CubedSphere mesh(ne, p);
  const int n = ne * (p + 1);
  CorrectionOptions options{.fields = 3,
                            .width = ctx.arg<int>("width", 12),
                            .depth = ctx.arg<int>("depth", 4),
                            .dilations = whole_numbers(ctx.arg<std::string>("dilations", ""),
                                                       "climate_train_correction's dilations"),
                            .levels = ctx.arg<int>("levels", 0),
                            .halo = ctx.arg<int>("halo", 0),
                            .seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1))};
  if (ctx.arg<bool>("phases", true)) {  // the element's and the compressor block's phase
    options.periods = {p + 1};
    if (head[4] != p + 1) options.periods.push_back(static_cast<int>(head[4]));
  }
  Correction correction(mesh, options);
  CorrectionTrainer trainer(correction,
                            {.capacity = ctx.arg<int64_t>("capacity", 240),
                             .batch = ctx.arg<int64_t>("batch", 6),
                             .lr = ctx.arg<double>("lr", 1e-3),
                             .seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1))});
  const int64_t round_examples = ctx.arg<int64_t>("round_examples", 12);
  const int validation_steps = ctx.arg<int>("validation_steps", 2);
  EXADNN_CHECK(validation_steps >= 0, "climate_train_correction", ctx.describe(),
               ": validation_steps is ", validation_steps, " (0 or more)");
  std::deque<std::pair<Fields, Fields>> held;  // (decompressed, original), newest last
  const double pace = ctx.arg<double>("pace", 0.9);
  double idle = 0, training = 0;
  std::vector<double> alone_sq(3, 0.0), corrected_sq(3, 0.0);
  double scored_values = 0;
  for (int k = 0; k <= steps; ++k) {
    const auto t = Clock::now();
    // The simulation's wall time for this output step: the time the trainer has for it.
    const double interval = to_vector<double>(in.recv()).at(1);
    Fields original, decompressed;
    std::vector<std::vector<std::uint8_t>> payloads(3);
    for (int c = 0; c < 3; ++c) {
      FaceField f(n);
      Tensor values = in.recv();
      EXADNN_CHECK(values.numel() == static_cast<int64_t>(f.data.size()),
                   "climate_train_correction", ctx.describe(), ": field ", kFields[c],
                   " of output step ", k, " has ", values.numel(), " values, expected ",
                   f.data.size());
      f.data = to_vector<double>(values);
      original.push_back(std::move(f));
      payloads[c] = to_vector<std::uint8_t>(in.recv());
      decompressed.push_back(decoder->decompress(payloads[c]));
    }
    // A DCT stream keeps one compressor for the run: the first step's payloads give the
    // consistency projection every step's correction is kept to (dct_consistency.h), as
    // climate_correct keeps it.
    if (k == 0 && decoder->kind() == CompressorKind::dct)
      correction.set_projection(dct_consistency(payloads));
    const auto arrived = Clock::now();
    idle += std::chrono::duration<double>(arrived - t).count();
    if (trainer.rounds() > 0) {  // the correction on a step it has not trained on
      add_squares(decompressed, original, alone_sq);
      add_squares(correction.apply(decompressed), original, corrected_sq);
      scored_values += static_cast<double>(original[0].data.size());
    }
    held.emplace_back(std::move(decompressed), std::move(original));
    if (static_cast<int>(held.size()) > validation_steps) {  // the oldest held pair trains now
      trainer.add(held.front().first, held.front().second);
      held.pop_front();
    }
    if (trainer.buffer().size() == 0) continue;  // nothing to train on yet
    // Train for `pace` of the simulation's time per output step (at least one round), or
    // final_seconds after the last step.
    const double budget = k == steps ? ctx.arg<double>("final_seconds", 0.0) : pace * interval;
    double last_round = 0;
    do {
      last_round = trainer.train(round_examples).seconds;
      training += last_round;
    } while (since(arrived) + last_round < budget);
  }
  EXADNN_CHECK(trainer.rounds() > 0, "climate_train_correction", ctx.describe(), ": ", steps + 1,
               " output steps and validation_steps ", validation_steps,
               " left nothing to train on");
  // The gains, on the newest pairs, which the network never trained on.
  std::vector<Fields> held_decompressed, held_original;
  for (auto& [d, o] : held) {
    held_decompressed.push_back(std::move(d));
    held_original.push_back(std::move(o));
  }
  const std::vector<float> gains =
      held.empty() ? correction.gains() : correction.fit_gains(held_decompressed, held_original);
  const double run = since(start);
  const double examples_per_s = static_cast<double>(trainer.examples_trained()) / training;
  const double output_rate = 6.0 * (steps + 1) / run;  // examples the simulation made per second
  std::printf(
      "trainer: %lld rounds, %lld examples trained in %.2f s: %.1f examples/s; the "
      "simulation made %.2f examples/s (6 per output step); idle (waiting for steps) "
      "%.2f s\n",
      static_cast<long long>(trainer.rounds()), static_cast<long long>(trainer.examples_trained()),
      training, examples_per_s, output_rate, idle);
  nlohmann::json report{{"rounds", trainer.rounds()},
                        {"examples_trained", trainer.examples_trained()},
                        {"training_seconds", training},
                        {"examples_per_second", examples_per_s},
                        {"output_examples_per_second", output_rate},
                        {"idle_seconds", idle},
                        {"network_bytes", correction.bytes()},
                        {"gains", gains},
                        {"validation_steps", static_cast<int>(held_original.size())}};
  std::printf(
      "trainer: gains h %.3f, u %.3f, v %.3f (fitted on the last %zu output steps, not "
      "trained on)\n",
      gains[0], gains[1], gains[2], held_original.size());
  for (int c = 0; c < 3 && scored_values > 0; ++c) {
    const double alone = std::sqrt(alone_sq[c] / scored_values);
    const double corrected = std::sqrt(corrected_sq[c] / scored_values);
    std::printf(
        "trainer: %s on steps not yet trained on: RMSE compressed %.4g, corrected %.4g "
        "(%.2fx)\n",
        kFields[c].c_str(), alone, corrected, alone / corrected);
    report["rmse_" + kFields[c]] = {{"compressed", alone}, {"corrected", corrected}};
  }
  const std::string weights = ctx.arg<std::string>("weights", "climate_correction.ckpt");
  Metadata metadata = correction_metadata(correction.options());
  metadata.insert({{"fields", "h,u,v"}, {"ne", std::to_string(ne)}, {"p", std::to_string(p)}});
  io::save_checkpoint(weights, correction.state(), metadata);
  std::printf("trainer: the correction (%lld bytes of f32 weights) stored in %s\n",
              static_cast<long long>(correction.bytes()), weights.c_str());
  if (const std::string path = ctx.arg<std::string>("report", ""); !path.empty()) {
    std::ofstream file(path);
    EXADNN_CHECK(file.good(), "climate_train_correction", "cannot write '", path, "'");
    file << report.dump(2) << "\n";
  }
  std::fflush(stdout);
}

}  // namespace

EXADNN_FLOW_MODULE(climate_simulate, climate_simulate);
EXADNN_FLOW_MODULE(climate_train_correction, climate_train_correction);

}  // namespace exadnn::apps::climate_modules
