// climate_correct: the corrected output of a compressed stream — decodes every step of a stream
// file (stream.h) and applies the learned correction stored beside it (the checkpoint the
// in-situ workflow's trainer wrote), with nothing else. On a DCT stream each field's correction
// is first kept to what its payload allows (dct_consistency.h: the kept coefficients stay in
// their quantisation cells), which never moves it further from the original.
//
//   climate_correct STREAM CHECKPOINT [-o DIR]
//
// Prints per step the largest change the correction made to each field and its relative change
// of the field's mass (∫ field dA, which the correction keeps); with -o writes
// DIR/<field>_<step>.f64 (raw little-endian f64 [6][n][n], the layout of climate_decompress). A
// missing or foreign file, or a network that does not fit the stream's mesh, stops it with one line
// naming the fault.
#include <exadnn/io/checkpoint.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "climate/correction.h"
#include "climate/correction_metadata.h"
#include "climate/dct_consistency.h"
#include "climate/stream.h"
#include "exadnn/core/error.h"

namespace {

using namespace climate;

// The metadata entry `key` of the checkpoint, or an Error naming the file.
std::string entry(const exadnn::io::Checkpoint& ckpt, const std::string& key) {
  const auto it = ckpt.metadata.find(key);
  if (it == ckpt.metadata.end())
    throw exadnn::Error("climate_correct", ckpt.path + " has no '" + key +
                                               "': not a correction written by the workflow");
  return it->second;
}

int run(const std::string& stream_path, const std::string& weights, const std::string& dir) {
  const exadnn::io::Checkpoint ckpt = exadnn::io::load_checkpoint(weights);
  StreamReader reader(stream_path);
  const StreamHeader& h = reader.header();
  const CorrectionOptions options =
      correction_options(ckpt.metadata, static_cast<int>(h.fields.size()), weights);
  if (std::to_string(h.ne) != entry(ckpt, "ne") || std::to_string(h.p) != entry(ckpt, "p"))
    throw exadnn::Error("climate_correct", weights + " was trained on (Ne, p) = (" +
                                               entry(ckpt, "ne") + ", " + entry(ckpt, "p") + "), " +
                                               stream_path + " holds (" + std::to_string(h.ne) +
                                               ", " + std::to_string(h.p) + ")");
  const CubedSphere mesh(h.ne, h.p);
  Correction correction(mesh, options);
  correction.load(ckpt.tensors);
  const FaceField weights_field = face_area_weights(mesh);
  if (!dir.empty()) std::filesystem::create_directories(dir);
  StreamStep step;
  while (reader.next(step)) {
    const Fields decoded = reader.decode(step);
    if (h.kind == CompressorKind::dct)  // kept to what the stream allows (dct_consistency.h)
      correction.set_projection(dct_consistency(step.payloads));
    const Fields corrected = correction.apply(decoded);
    std::printf("step %llu (t = %.0f s):", static_cast<unsigned long long>(step.step), step.time);
    for (size_t c = 0; c < decoded.size(); ++c) {
      double change = 0, magnitude = 0;
      for (size_t k = 0; k < decoded[c].data.size(); ++k) {
        change = std::max(change, std::abs(corrected[c].data[k] - decoded[c].data[k]));
        // ∫(|field| + |correction|) dA: a field with mean zero (v at rest, ~1e-12 noise) has
        // almost no ∫|field|, so its round-off is measured against the correction's size.
        magnitude += weights_field.data[k] * (std::abs(decoded[c].data[k]) +
                                              std::abs(corrected[c].data[k] - decoded[c].data[k]));
      }
      const double mass_change =
          std::abs(integral(weights_field, corrected[c]) - integral(weights_field, decoded[c]));
      std::printf(" %s max change %.3g, mass change %.1e;", h.fields[c].c_str(), change,
                  magnitude > 0 ? mass_change / magnitude : mass_change);
      if (!dir.empty()) {
        const std::string path = dir + "/" + h.fields[c] + "_" + std::to_string(step.step) + ".f64";
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(corrected[c].data.data()),
                  static_cast<std::streamsize>(corrected[c].raw_bytes()));
        if (!out) throw exadnn::Error("climate_correct", "cannot write " + path);
      }
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string stream, weights, dir;
  CLI::App app{"Applies the learned correction to a compressed stream"};
  app.add_option("stream", stream, "the compressed-stream file")->required();
  app.add_option("checkpoint", weights, "the correction the workflow stored")->required();
  app.add_option("-o,--out", dir, "write the corrected fields here");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(stream, weights, dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "climate_correct: %s\n", e.what());
    return 1;
  }
}
