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

// Every step's fields reconstructed by the model nudged towards the stream (nudging.h).
std::vector<climate::Fields> nudged(const climate::StreamHeader& h,
                                    const std::vector<climate::StreamStep>& steps,
                                    const std::vector<climate::Fields>& decoded,
                                    const climate::NudgingOptions& options) {
  using exadnn::Error;
  if (h.kind != climate::CompressorKind::dct || h.fields != std::vector<std::string>{"h", "u", "v"})
    throw Error("climate_decompress",
                "--nudge-tau-hours needs a DCT stream of the fields h, u, v (this one: " +
                    std::string(climate::compressor_kind_name(h.kind)) + ")");
  // Each field's parameters, the same at every step (a stream's compressor is fixed).
  std::vector<climate::DctParams> params;
  for (const auto& payload : steps.front().payloads)
    params.push_back(climate::DctCompressor::payload_params(payload.data(), payload.size()));
  for (const climate::StreamStep& s : steps)
    for (std::size_t c = 0; c < params.size(); ++c) {
      const auto p =
          climate::DctCompressor::payload_params(s.payloads[c].data(), s.payloads[c].size());
      if (p.block != params[c].block || p.keep != params[c].keep || p.bits != params[c].bits ||
          p.step != params[c].step)
        throw Error("climate_decompress", "field " + h.fields[c] +
                                              " changes its DCT parameters at step " +
                                              std::to_string(s.step));
    }
  std::vector<double> times;
  for (const climate::StreamStep& s : steps) times.push_back(s.time);
  const climate::CubedSphere mesh(h.ne, h.p);
  const climate::ShallowWater solver(mesh);
  std::printf("nudging the model (Ne, p) = (%d, %d) towards the stream, tau %g h ...\n", h.ne, h.p,
              options.tau_hours);
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  return climate::nudged_reconstruction(
      solver, times, decoded, params, options, [&](std::size_t k, std::size_t n) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("  step %zu of %zu reconstructed (t = %.6g s), %.1f s\n", k, n - 1, times[k],
                    s);
        std::fflush(stdout);
      });
}

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
  // Nudging needs the whole run; otherwise each step is written as it is read.
  std::vector<climate::StreamStep> steps;
  std::vector<climate::Fields> decoded;
  climate::StreamStep step;
  std::uint64_t total = h.bytes;
  double raw = 0;
  while (reader.next(step)) {
    climate::Fields fields = reader.decode(step);
    const double step_raw = static_cast<double>(fields.size() * fields.front().raw_bytes());
    raw += step_raw;
    total += step.bytes;
    std::printf("%8llu %14.6g %12llu %10.3f\n", static_cast<unsigned long long>(step.step),
                step.time, static_cast<unsigned long long>(step.bytes), step_raw / step.bytes);
    if (dir.empty()) continue;
    if (nudge == nullptr) {
      write_step(step, fields);
    } else {
      steps.push_back(step);
      decoded.push_back(std::move(fields));
    }
  }
  std::printf("file %llu bytes, raw f64 %.0f bytes: ratio %.3f (headers included)\n",
              static_cast<unsigned long long>(total), raw, total ? raw / total : 0.0);
  if (!steps.empty()) {
    decoded = nudged(h, steps, decoded, *nudge);
    for (std::size_t k = 0; k < steps.size(); ++k) write_step(steps[k], decoded[k]);
  }
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
