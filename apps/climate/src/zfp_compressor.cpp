#include "climate/zfp_compressor.h"

#include <zfp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "climate/compress_bytes.h"
#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

namespace {

constexpr std::size_t kHeaderBytes = 4 + 4 + 8 + 6 * 4;
constexpr int kMaxFace = 1 << 15;  // a face side beyond this is taken as a corrupt header

// An open zfp_stream set to `p`, closed (with its bit stream) on scope exit.
class ZfpStream {
 public:
  explicit ZfpStream(const ZfpParams& p) : zfp_(zfp_stream_open(nullptr)) {
    if (p.mode == ZfpParams::Mode::rate)
      zfp_stream_set_rate(zfp_, p.value, zfp_type_double, 2, zfp_false);
    else
      zfp_stream_set_accuracy(zfp_, p.value);
  }
  ~ZfpStream() {
    if (bits_) stream_close(bits_);
    zfp_stream_close(zfp_);
  }
  ZfpStream(const ZfpStream&) = delete;
  ZfpStream& operator=(const ZfpStream&) = delete;
  void attach(void* buffer, std::size_t bytes) {
    if (bits_) stream_close(bits_);
    bits_ = stream_open(buffer, bytes);
    zfp_stream_set_bit_stream(zfp_, bits_);
    zfp_stream_rewind(zfp_);
  }
  zfp_stream* get() const { return zfp_; }

 private:
  zfp_stream* zfp_;
  bitstream* bits_ = nullptr;
};

// A zfp_field over one face (n × n doubles, columns fastest), freed on scope exit.
class FaceView {
 public:
  FaceView(double* face, int n)
      : field_(zfp_field_2d(face, zfp_type_double, static_cast<std::size_t>(n),
                            static_cast<std::size_t>(n))) {}
  ~FaceView() { zfp_field_free(field_); }
  FaceView(const FaceView&) = delete;
  FaceView& operator=(const FaceView&) = delete;
  zfp_field* get() const { return field_; }

 private:
  zfp_field* field_;
};

}  // namespace

void ZfpCompressor::validate(const ZfpParams& p) {
  if (p.mode == ZfpParams::Mode::rate) {
    if (!(p.value > 0 && p.value <= 64))
      throw Error("ZfpCompressor", cat("rate ", p.value, " bits per value out of range (0, 64]"));
  } else if (p.mode == ZfpParams::Mode::accuracy) {
    if (!(p.value > 0) || !std::isfinite(p.value))
      throw Error("ZfpCompressor", cat("accuracy tolerance ", p.value, " must be finite and > 0"));
  } else {
    throw Error("ZfpCompressor",
                cat("unknown mode ", static_cast<int>(p.mode), " (1 rate, 2 accuracy)"));
  }
}

ZfpCompressor::ZfpCompressor(ZfpParams params) : params_(params) {
  validate(params_);
}

std::string ZfpCompressor::describe() const {
  return cat("zfp ", params_.mode == ZfpParams::Mode::rate ? "rate=" : "accuracy=", params_.value);
}

std::vector<std::uint8_t> ZfpCompressor::parameters() const {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u8(static_cast<std::uint8_t>(params_.mode));
  w.f64(params_.value);
  return out;
}

std::vector<std::uint8_t> ZfpCompressor::compress(const FaceField& field) const {
  const int n = field.n;
  const std::size_t face_values = static_cast<std::size_t>(n) * n;
  if (n < 1 || field.data.size() != 6 * face_values)
    throw Error("ZfpCompressor",
                cat("field of face size ", n, " holds ", field.data.size(), " values, not 6 n²"));
  std::vector<std::uint8_t> out(kHeaderBytes);
  std::vector<double> face(face_values);  // zfp_field takes a non-const pointer
  std::uint32_t face_bytes[6];
  for (int f = 0; f < 6; ++f) {
    std::memcpy(face.data(), field.data.data() + f * face_values, face_values * sizeof(double));
    const FaceView view(face.data(), n);
    ZfpStream zfp(params_);
    std::vector<std::uint8_t> buffer(zfp_stream_maximum_size(zfp.get(), view.get()));
    zfp.attach(buffer.data(), buffer.size());
    const std::size_t bytes = zfp_compress(zfp.get(), view.get());
    if (bytes == 0)
      throw Error("ZfpCompressor", cat("zfp_compress failed on face ", f, " (", describe(), ")"));
    face_bytes[f] = static_cast<std::uint32_t>(bytes);
    out.insert(out.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(bytes));
  }
  std::vector<std::uint8_t> header;
  ByteWriter w(header);
  w.u32(static_cast<std::uint32_t>(n));
  w.u8(static_cast<std::uint8_t>(params_.mode));
  w.u8(0), w.u8(0), w.u8(0);
  w.f64(params_.value);
  for (const std::uint32_t b : face_bytes) w.u32(b);
  std::memcpy(out.data(), header.data(), kHeaderBytes);
  return out;
}

FaceField ZfpCompressor::decompress(const std::uint8_t* payload, std::size_t size) const {
  ByteReader r(payload, size, "zfp payload");
  const std::uint32_t n = r.u32("the face size");
  ZfpParams p;
  p.mode = static_cast<ZfpParams::Mode>(r.u8("the mode"));
  r.u8("padding"), r.u8("padding"), r.u8("padding");
  p.value = r.f64("the rate or tolerance");
  if (n < 1 || n > kMaxFace)
    throw Error("zfp payload", cat("corrupt: face size ", n, " (1 to ", kMaxFace, ")"));
  try {
    validate(p);
  } catch (const Error& e) {
    throw Error("zfp payload", cat("corrupt header: ", e.what()));
  }
  std::uint32_t face_bytes[6];
  std::size_t total = 0;
  for (std::uint32_t& b : face_bytes) total += b = r.u32("the face byte counts");
  if (r.left() != total)
    throw Error("zfp payload", cat(r.left() < total ? "truncated" : "corrupt", ": the faces' ",
                                   "streams need ", total, " bytes, ", r.left(), " follow"));
  // ZFP spends at least one bit on every 4 × 4 block: checked before the field (6 n² f64) is
  // allocated, so a corrupt face size cannot ask for gigabytes.
  const std::size_t blocks = std::size_t((n + 3) / 4) * ((n + 3) / 4);
  for (int f = 0; f < 6; ++f)
    if (8 * std::size_t(face_bytes[f]) < blocks)
      throw Error("zfp payload", cat("truncated: face ", f, "'s stream of ", face_bytes[f],
                                     " bytes cannot hold the ", blocks, " blocks of n = ", n,
                                     " (a bit or more each)"));
  FaceField field(static_cast<int>(n));
  const std::size_t face_values = static_cast<std::size_t>(n) * n;
  for (int f = 0; f < 6; ++f) {
    const std::uint8_t* data = r.bytes(face_bytes[f], "a face's stream");
    double* face = field.data.data() + f * face_values;
    const FaceView view(face, static_cast<int>(n));
    ZfpStream zfp(p);
    // ZFP reads without bounds checks: a corrupt stream could read past its end, so it is
    // decoded from a zero-padded copy as long as the longest stream these parameters allow.
    const std::size_t room = zfp_stream_maximum_size(zfp.get(), view.get());
    std::vector<std::uint8_t> buffer(std::max<std::size_t>(room, face_bytes[f]) + 64, 0);
    std::memcpy(buffer.data(), data, face_bytes[f]);
    zfp.attach(buffer.data(), buffer.size());
    const std::size_t used = zfp_decompress(zfp.get(), view.get());
    if (used == 0 || used > face_bytes[f])
      throw Error("zfp payload", cat("corrupt: face ", f, "'s stream of ", face_bytes[f],
                                     " bytes does not decode (ZFP read ", used, ")"));
  }
  return field;
}

ZfpParams ZfpCompressor::pick(double ratio, const FaceField& sample) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw Error("ZfpCompressor::pick", cat("compression ratio ", ratio, " must be > 0"));
  const double budget = static_cast<double>(sample.raw_bytes()) / ratio;
  // Whole bits per 4 × 4 block: the rate in steps of 1/16, from the largest at or below 64/ratio.
  for (int block_bits = std::min(64 * 16, static_cast<int>(std::floor(64.0 * 16 / ratio)));
       block_bits >= 1; --block_bits) {
    const ZfpParams p{ZfpParams::Mode::rate, block_bits / 16.0};
    if (static_cast<double>(ZfpCompressor(p).compress(sample).size()) <= budget) return p;
  }
  throw Error("ZfpCompressor::pick",
              cat("compression ratio ", ratio, " is out of reach for face size n = ", sample.n,
                  " (the lowest rate, 1/16 bit per value, does not fit with the 40-byte header)"));
}

ZfpParams ZfpCompressor::pick_accuracy(double ratio, const FaceField& sample) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw Error("ZfpCompressor::pick_accuracy", cat("compression ratio ", ratio, " must be > 0"));
  const double budget = static_cast<double>(sample.raw_bytes()) / ratio;
  double range = 0;
  for (const double v : sample.data) range = std::fmax(range, std::fabs(v));
  const auto fits = [&](double tol) {
    const ZfpParams p{ZfpParams::Mode::accuracy, tol};
    return static_cast<double>(ZfpCompressor(p).compress(sample).size()) <= budget;
  };
  double hi = std::fmax(range, std::numeric_limits<double>::min());  // fits, or nothing does
  if (!fits(hi))
    throw Error("ZfpCompressor::pick_accuracy",
                cat("compression ratio ", ratio, " is out of reach for face size n = ", sample.n,
                    " (a tolerance of the field's largest value ", hi, " does not fit)"));
  double lo = hi * 1e-30;  // far below the f64 precision of the field's values
  if (fits(lo)) return {ZfpParams::Mode::accuracy, lo};
  while (hi / lo > 1.01) {
    const double mid = std::sqrt(hi * lo);
    (fits(mid) ? hi : lo) = mid;
  }
  return {ZfpParams::Mode::accuracy, hi};
}

}  // namespace climate
