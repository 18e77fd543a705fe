// climate_decompress: decodes a compressed-stream file (stream.h) with nothing but the file.
//
//   climate_decompress FILE [-o DIR] [--format raw|csv] [--nudge-tau-hours T]
//
// Prints the header (compressor, parameters, mesh, fields) and per step its time and bytes;
// with -o writes every step's fields into DIR as <field>_<step>.f64 (raw little-endian f64 of
// shape [6][n][n], compressor.h's per-face layout: face f, row ej (p+1) + j, column
// ei (p+1) + i) or <field>_<step>.csv (face,row,col,value), and DIR/index.txt listing them.
// With --nudge-tau-hours (a DCT stream of h, u, v) the fields written are the model's
// reconstruction nudged towards the stream (nudging.h): the shallow-water model on the stream's
// mesh with Earth's constants, run over the stream's time span. A missing, foreign, truncated or
// corrupt file stops it with one line naming the file and the fault, exit code 1.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "climate/dct_compressor.h"
#include "climate/nudging.h"
#include "climate/stream.h"
#include "exadnn/core/error.h"

namespace {

void write_field(const climate::FaceField& f, const std::string& path, bool csv) {
  std::ofstream out(path, std::ios::binary);
  if (csv) {
    out << "face,row,col,value\n";
    char line[96];
    for (int face = 0; face < 6; ++face)
      for (int r = 0; r < f.n; ++r)
        for (int c = 0; c < f.n; ++c) {
          std::snprintf(line, sizeof line, "%d,%d,%d,%.17g\n", face, r, c, f.at(face, r, c));
          out << line;
        }
  } else {
    out.write(reinterpret_cast<const char*>(f.data.data()),
              static_cast<std::streamsize>(f.raw_bytes()));  // little-endian hosts only
  }
  if (!out) throw exadnn::Error("climate_decompress", "cannot write " + path);
}

// The stream's steps reconstructed one by one by the model nudged towards it (nudging.h).
class StreamNudger {
 public:
  StreamNudger(const climate::StreamHeader& h, const climate::NudgingOptions& options)
      : header_(h), mesh_(h.ne, h.p), solver_(mesh_), options_(options) {
    if (h.kind != climate::CompressorKind::dct ||
        h.fields != std::vector<std::string>{"h", "u", "v"})
      throw exadnn::Error("climate_decompress",
                          "--nudge-tau-hours needs a DCT stream of the fields h, u, v (this one: " +
                              std::string(climate::compressor_kind_name(h.kind)) + ")");
    std::printf("nudging the model (Ne, p) = (%d, %d) towards the stream, tau %g h\n", h.ne, h.p,
                options.tau_hours);
  }

  climate::Fields next(const climate::StreamStep& step, const climate::Fields& decoded) {
    // Each field's parameters, the same at every step (a stream's compressor is fixed).
    std::vector<climate::DctParams> params;
    for (const auto& payload : step.payloads)
      params.push_back(climate::DctCompressor::payload_params(payload.data(), payload.size()));
    if (!stream_) {
      params_ = params;
      stream_ = std::make_unique<climate::NudgedStream>(solver_, params, options_);
    }
    for (std::size_t c = 0; c < params.size(); ++c) {
      const climate::DctParams &p = params[c], &q = params_[c];
      if (p.block != q.block || p.keep != q.keep || p.bits != q.bits || p.step != q.step)
        throw exadnn::Error("climate_decompress", "field " + header_.fields[c] +
                                                      " changes its DCT parameters at step " +
                                                      std::to_string(step.step));
    }
    return stream_->next(step.time, decoded);
  }

 private:
  const climate::StreamHeader& header_;
  climate::CubedSphere mesh_;
  climate::ShallowWater solver_;
  climate::NudgingOptions options_;
  std::vector<climate::DctParams> params_;
  std::unique_ptr<climate::NudgedStream> stream_;
};

int run(const std::string& file, const std::string& dir, const std::string& format,
        const climate::NudgingOptions* nudge) {
  climate::StreamReader reader(file);
  const climate::StreamHeader& h = reader.header();
  std::printf(
      "%s: stream format version %u, compressor %s, mesh (Ne, p) = (%d, %d), face size %d\n",
      file.c_str(), h.version, climate::compressor_kind_name(h.kind), h.ne, h.p, h.ne * (h.p + 1));
  std::printf("fields:");
  for (const std::string& f : h.fields) std::printf(" %s", f.c_str());
  std::printf("\n%8s %14s %12s %10s\n", "step", "time [s]", "bytes", "ratio");
  std::ofstream index;
  if (!dir.empty()) {
    std::filesystem::create_directories(dir);
    index.open(std::filesystem::path(dir) / "index.txt");
    index << "# step time_s field file n (raw: f64 [6][n][n]; csv: face,row,col,value)\n";
  }
  auto write_step = [&](const climate::StreamStep& s, const climate::Fields& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const std::string name =
          h.fields[i] + "_" + std::to_string(s.step) + (format == "csv" ? ".csv" : ".f64");
      write_field(fields[i], (std::filesystem::path(dir) / name).string(), format == "csv");
      index << s.step << ' ' << s.time << ' ' << h.fields[i] << ' ' << name << ' ' << fields[i].n
            << '\n';
    }
  };
  // Each step is written as it is read (and reconstructed, when nudging).
  std::unique_ptr<StreamNudger> nudger;
  if (nudge != nullptr) nudger = std::make_unique<StreamNudger>(h, *nudge);
  const auto start = std::chrono::steady_clock::now();
  climate::StreamStep step;
  std::uint64_t total = h.bytes;
  double raw = 0;
  while (reader.next(step)) {
    climate::Fields fields = reader.decode(step);
    const double step_raw = static_cast<double>(fields.size() * fields.front().raw_bytes());
    raw += step_raw;
    total += step.bytes;
    std::printf("%8llu %14.6g %12llu %10.3f", static_cast<unsigned long long>(step.step), step.time,
                static_cast<unsigned long long>(step.bytes), step_raw / step.bytes);
    if (nudger) {
      fields = nudger->next(step, fields);
      std::printf("  nudged, %.1f s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("\n");
    std::fflush(stdout);
    if (!dir.empty()) write_step(step, fields);
  }
  std::printf("file %llu bytes, raw f64 %.0f bytes: ratio %.3f (headers included)\n",
              static_cast<unsigned long long>(total), raw, total ? raw / total : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Decode a climate compressed-stream file"};
  std::string file, dir, format = "raw";
  climate::NudgingOptions nudge{.tau_hours = -1};
  app.add_option("file", file, "the compressed stream")->required();
  app.add_option("-o,--out", dir, "write the decoded fields into this directory");
  app.add_option("--format", format, "raw (f64 [6][n][n]) or csv")
      ->check(CLI::IsMember({"raw", "csv"}));
  app.add_option("--nudge-tau-hours", nudge.tau_hours,
                 "with -o: write the model's reconstruction nudged towards the stream with this "
                 "relaxation time [h] (0: inserted at the output steps only), not the decoded "
                 "fields (a DCT stream of h, u, v)");
  app.add_option("--nudge-keep-mass", nudge.keep_stream_mass,
                 "with --nudge-tau-hours: set h's mass to the stream's at every step (1 or 0)");
  CLI11_PARSE(app, argc, argv);
  const bool nudging = nudge.tau_hours >= 0;
  if (nudging && dir.empty()) {
    std::fprintf(stderr, "climate_decompress: --nudge-tau-hours needs -o DIR\n");
    return 1;
  }
  try {
    return run(file, dir, format, nudging ? &nudge : nullptr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "climate_decompress: %s\n", e.what());
    return 1;
  }
}
