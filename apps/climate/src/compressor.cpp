#include "climate/compressor.h"

#include <cmath>

#include "climate/dct_compressor.h"
#include "climate/zfp_compressor.h"
#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

FaceField::FaceField(int n_) : n(n_) {
  if (n_ < 1) throw Error("FaceField", cat("face size ", n_, " must be ≥ 1"));
  data.assign(6 * static_cast<std::size_t>(n_) * n_, 0.0);
}

const char* compressor_kind_name(CompressorKind kind) {
  switch (kind) {
    case CompressorKind::dct:
      return "dct";
    case CompressorKind::zfp:
      return "zfp";
  }
  throw Error("compressor",
              cat("unknown compressor id ", static_cast<int>(kind), " (1 dct, 2 zfp)"));
}

CompressorKind compressor_kind_from_name(const std::string& name) {
  if (name == "dct") return CompressorKind::dct;
  if (name == "zfp") return CompressorKind::zfp;
  throw Error("compressor", cat("unknown compressor '", name, "' (dct or zfp)"));
}

std::unique_ptr<Compressor> make_compressor(CompressorKind kind, double ratio,
                                            const FaceField& sample) {
  switch (kind) {
    case CompressorKind::dct:
      return std::make_unique<DctCompressor>(DctCompressor::pick(ratio, sample));
    case CompressorKind::zfp:
      return std::make_unique<ZfpCompressor>(ZfpCompressor::pick(ratio, sample));
  }
  compressor_kind_name(kind);  // throws, naming the id
  return nullptr;
}

std::unique_ptr<Compressor> make_decoder(CompressorKind kind) {
  switch (kind) {
    case CompressorKind::dct:
      return std::make_unique<DctCompressor>();
    case CompressorKind::zfp:
      return std::make_unique<ZfpCompressor>();
  }
  compressor_kind_name(kind);  // throws, naming the id
  return nullptr;
}

double compression_ratio(const FaceField& field, std::size_t payload_bytes) {
  return static_cast<double>(field.raw_bytes()) / static_cast<double>(payload_bytes);
}

namespace {
void check_same_size(const FaceField& a, const FaceField& b) {
  if (a.n != b.n || a.data.size() != b.data.size())
    throw Error("rmse", cat("fields of face sizes ", a.n, " and ", b.n, " differ in size"));
}
}  // namespace

double rmse(const FaceField& a, const FaceField& b) {
  check_same_size(a, b);
  double s = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i)
    s += (a.data[i] - b.data[i]) * (a.data[i] - b.data[i]);
  return std::sqrt(s / static_cast<double>(a.data.size()));
}

double max_abs_error(const FaceField& a, const FaceField& b) {
  check_same_size(a, b);
  double m = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i)
    m = std::fmax(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

double rms(const FaceField& a) {
  double s = 0;
  for (const double v : a.data) s += v * v;
  return a.data.empty() ? 0.0 : std::sqrt(s / static_cast<double>(a.data.size()));
}

}  // namespace climate
