#include "climate/dct_compressor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "climate/compress_bytes.h"
#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

namespace {

constexpr int kHeaderBytes = 8;   // u32 n, u8 B, u8 k, u8 q, u8 mode; + f64 step in mode 1
constexpr double kMaxCode = 1e9;  // the largest |X / Δ|: a folded code fits 31 bits

std::size_t header_bytes(const DctParams& p) {
  return kHeaderBytes + (p.step > 0 ? 8 : 0);
}

// Signed codes as unsigned: 0, −1, 1, −2, 2 … → 0, 1, 2, 3, 4 …
std::uint64_t fold(std::int64_t c) {
  return c < 0 ? 2 * static_cast<std::uint64_t>(-c) - 1 : 2 * static_cast<std::uint64_t>(c);
}
std::int64_t unfold(std::uint64_t z) {
  return (z & 1) ? -static_cast<std::int64_t>((z + 1) / 2) : static_cast<std::int64_t>(z / 2);
}
constexpr int kMaxBlock = 64;
constexpr int kMaxFace = 1 << 15;  // a face side beyond this is taken as a corrupt header

std::size_t bits_per_block(const DctParams& p) {
  if (p.bits == 64) return 64u * p.keep * p.keep;
  if (p.keep == 1) return 64;
  return 64 + 32 + static_cast<std::size_t>(p.keep * p.keep - 1) * p.bits;
}

// The kept coefficients of one transformed block (row-major B × B) into the bit stream.
void encode_block(const DctParams& p, const double* block, BitWriter& bits) {
  const int b = p.block, k = p.keep;
  std::uint64_t word;
  if (p.step == 0 && (p.bits == 64 || k == 1)) {
    for (int u = 0; u < k; ++u)
      for (int v = 0; v < k; ++v) {
        std::memcpy(&word, &block[u * b + v], sizeof word);
        bits.put(word, 64);
      }
    return;
  }
  std::memcpy(&word, &block[0], sizeof word);  // DC as f64: the block mean, exactly
  bits.put(word, 64);
  if (k == 1) return;
  if (p.step > 0) {
    // Uniform step: codes round(X / Δ) as sign-folded integers of the width the block needs.
    std::int64_t codes[kMaxBlock * kMaxBlock];
    std::uint64_t largest = 0;
    int m = 0;
    for (int u = 0; u < k; ++u)
      for (int v = (u == 0); v < k; ++v) {
        const double c = block[u * b + v] / p.step;
        if (!(std::fabs(c) <= kMaxCode))
          throw Error("DctCompressor",
                      cat("quantisation step ", p.step,
                          " too small for a "
                          "coefficient ",
                          block[u * b + v], " (codes up to ", kMaxCode, " steps)"));
        codes[m] = std::llround(c);
        largest = std::max(largest, fold(codes[m++]));
      }
    int width = 0;
    while (width < 32 && (largest >> width) != 0) ++width;
    bits.put(static_cast<std::uint64_t>(width), 6);
    if (width > 0)
      for (int i = 0; i < m; ++i) bits.put(fold(codes[i]), width);
    return;
  }
  const std::int64_t levels = (std::int64_t{1} << (p.bits - 1)) - 1;
  double smax = 0;
  for (int u = 0; u < k; ++u)
    for (int v = (u == 0); v < k; ++v) smax = std::fmax(smax, std::fabs(block[u * b + v]));
  float s = static_cast<float>(smax);
  if (static_cast<double>(s) < smax) s = std::nextafter(s, std::numeric_limits<float>::max());
  std::uint32_t sbits;
  std::memcpy(&sbits, &s, sizeof sbits);
  bits.put(sbits, 32);
  for (int u = 0; u < k; ++u)
    for (int v = (u == 0); v < k; ++v) {
      std::int64_t code =
          s > 0 ? std::llround(block[u * b + v] / static_cast<double>(s) * levels) : 0;
      code = std::max(-levels, std::min(levels, code));
      bits.put(static_cast<std::uint64_t>(code + levels), p.bits);
    }
}

// Names block (br, bc) of face f in errors.
std::string block_name(const int where[3]) {
  return cat("face ", where[0], " block (", where[1], ", ", where[2], ")");
}

// The inverse of encode_block: fills the kept coefficients of `block` (zeroed by the caller).
// `where` = {face, block row, block column}, for errors.
void decode_block(const DctParams& p, BitReader& bits, double* block, const int where[3]) {
  const int b = p.block, k = p.keep;
  std::uint64_t word;
  if (p.step == 0 && (p.bits == 64 || k == 1)) {
    for (int u = 0; u < k; ++u)
      for (int v = 0; v < k; ++v) {
        word = bits.get(64);
        std::memcpy(&block[u * b + v], &word, sizeof word);
      }
    return;
  }
  word = bits.get(64);
  std::memcpy(&block[0], &word, sizeof word);
  if (k == 1) return;
  if (p.step > 0) {
    const int width = static_cast<int>(bits.get(6));
    if (width > 32)
      throw Error("dct payload",
                  cat("corrupt: code width ", width, " (at most 32) in ", block_name(where)));
    for (int u = 0; u < k; ++u)
      for (int v = (u == 0); v < k; ++v)
        block[u * b + v] = width ? static_cast<double>(unfold(bits.get(width))) * p.step : 0.0;
    return;
  }
  const std::int64_t levels = (std::int64_t{1} << (p.bits - 1)) - 1;
  const auto sbits = static_cast<std::uint32_t>(bits.get(32));
  float s;
  std::memcpy(&s, &sbits, sizeof s);
  if (!(s >= 0) || std::isinf(s))
    throw Error("dct payload", cat("corrupt: block scale ", s, " in ", block_name(where)));
  for (int u = 0; u < k; ++u)
    for (int v = (u == 0); v < k; ++v) {
      const auto code = static_cast<std::int64_t>(bits.get(p.bits));
      if (code > 2 * levels)
        throw Error("dct payload", cat("corrupt: coefficient code ", code, " above ", 2 * levels,
                                       " in ", block_name(where)));
      block[u * b + v] = static_cast<double>(code - levels) * s / levels;
    }
}

// Encodes every block of `field` into `out` (after its header): faces, block rows, block
// columns in order.
void encode(const BlockDct& dct, const DctParams& p, const FaceField& field,
            std::vector<std::uint8_t>& out) {
  const int b = p.block, nb = field.n / b;
  std::vector<double> block(static_cast<std::size_t>(b) * b);
  BitWriter bits(out);
  for (int f = 0; f < 6; ++f)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc) {
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i) block[j * b + i] = field.at(f, br * b + j, bc * b + i);
        dct.forward(block.data(), block.data());
        encode_block(p, block.data(), bits);
      }
  bits.flush();
}

// Decodes the blocks of [data, data + size) into `field` (face size already set); bytes left
// over after the last block (beyond its padding) are an error.
void decode(const BlockDct& dct, const DctParams& p, const std::uint8_t* data, std::size_t size,
            FaceField& field) {
  const int b = p.block, nb = field.n / b;
  std::vector<double> block(static_cast<std::size_t>(b) * b);
  BitReader bits(data, size, "dct payload");
  for (int f = 0; f < 6; ++f)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc) {
        std::fill(block.begin(), block.end(), 0.0);
        const int where[3] = {f, br, bc};
        decode_block(p, bits, block.data(), where);
        dct.inverse(block.data(), block.data());
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i) field.at(f, br * b + j, bc * b + i) = block[j * b + i];
      }
  if (bits.bytes_read() != size)
    throw Error("dct payload",
                cat("corrupt: ", size - bits.bytes_read(), " bytes follow the last block"));
}

// The payload of `field` under p (header included) and the RMSE of its round trip.
std::pair<std::size_t, double> roundtrip(const BlockDct& dct, const DctParams& p,
                                         const FaceField& field) {
  std::vector<std::uint8_t> bytes;
  encode(dct, p, field, bytes);
  FaceField back(field.n);
  decode(dct, p, bytes.data(), bytes.size(), back);
  return {bytes.size() + header_bytes(p), rmse(field, back)};
}

}  // namespace

namespace {
// The block sizes a pick tries: `block` alone (checked) when > 0, else those from 4 to 32
// dividing n.
// A constant sample is represented exactly by every candidate (its DC alone), so it cannot tell
// them apart: the pick would fall on the first (B = 4, k = 1: block means) whatever the fields
// to come need. Galewsky's v at day 0 is such a field (the jet is zonal).
void check_has_structure(const FaceField& sample, const char* where) {
  if (sample.data.empty()) return;
  const auto [lo, hi] = std::minmax_element(sample.data.begin(), sample.data.end());
  if (*lo == *hi)
    throw Error(where, cat("the sample field is constant (every value ", *lo,
                           "): every block size and coefficient count represents it exactly, so "
                           "it cannot choose between them; pick on a field with structure"));
}

std::vector<int> candidate_blocks(int n, int block) {
  std::vector<int> blocks;
  if (block > 0) {
    DctCompressor::validate({block, 1, 64}, n);
    blocks.push_back(block);
  } else {
    for (int b = 4; b <= 32; ++b)
      if (n % b == 0) blocks.push_back(b);
  }
  return blocks;
}
}  // namespace

void DctCompressor::validate(const DctParams& p, int n) {
  if (p.block < 2 || p.block > kMaxBlock)
    throw Error("DctCompressor",
                cat("block size B = ", p.block, " out of range (2 to ", kMaxBlock, ")"));
  if (p.keep < 1 || p.keep > p.block)
    throw Error("DctCompressor",
                cat("kept coefficients k = ", p.keep, " out of range (1 to B = ", p.block, ")"));
  if (!(p.step >= 0) || !std::isfinite(p.step))
    throw Error("DctCompressor", cat("quantisation step ", p.step, " must be finite and ≥ 0"));
  if (p.bits != 64 && (p.bits < 2 || p.bits > 32))
    throw Error("DctCompressor", cat("bits q = ", p.bits, " invalid (2 to 32, or 64 for f64)"));
  if (n > 0 && n % p.block != 0)
    throw Error("DctCompressor",
                cat("block size B = ", p.block, " does not divide the face size n = ", n));
}

DctCompressor::DctCompressor(DctParams params) : params_(params) {
  validate(params_);
}

std::string DctCompressor::describe() const {
  if (params_.step > 0)
    return cat("dct B=", params_.block, " k=", params_.keep, " step=", params_.step);
  return cat("dct B=", params_.block, " k=", params_.keep, " bits=", params_.bits);
}

std::vector<std::uint8_t> DctCompressor::parameters() const {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u8(static_cast<std::uint8_t>(params_.block));
  w.u8(static_cast<std::uint8_t>(params_.keep));
  w.u8(static_cast<std::uint8_t>(params_.bits));
  w.u8(params_.step > 0 ? 1 : 0);
  if (params_.step > 0) w.f64(params_.step);
  return out;
}

std::size_t DctCompressor::payload_bytes(int n, const DctParams& p) {
  if (p.step > 0)
    throw Error("DctCompressor::payload_bytes",
                "a uniform step's payload size depends on the data");
  const std::size_t blocks = 6 * static_cast<std::size_t>(n / p.block) * (n / p.block);
  return kHeaderBytes + (blocks * bits_per_block(p) + 7) / 8;
}

const BlockDct& DctCompressor::transform(int block) const {
  if (!dct_ || dct_->block() != block) dct_ = std::make_unique<BlockDct>(block);
  return *dct_;
}

std::vector<std::uint8_t> DctCompressor::compress(const FaceField& field) const {
  validate(params_, field.n);
  if (field.data.size() != 6 * static_cast<std::size_t>(field.n) * field.n)
    throw Error("DctCompressor", cat("field of face size ", field.n, " holds ", field.data.size(),
                                     " values, not 6 n²"));
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u32(static_cast<std::uint32_t>(field.n));
  w.u8(static_cast<std::uint8_t>(params_.block));
  w.u8(static_cast<std::uint8_t>(params_.keep));
  w.u8(static_cast<std::uint8_t>(params_.bits));
  w.u8(params_.step > 0 ? 1 : 0);
  if (params_.step > 0) w.f64(params_.step);
  encode(transform(params_.block), params_, field, out);
  return out;
}

DctParams DctCompressor::payload_params(const std::uint8_t* payload, std::size_t size, int* face) {
  ByteReader r(payload, size, "dct payload");
  const std::uint32_t n = r.u32("the face size");
  DctParams p;
  p.block = r.u8("the block size");
  p.keep = r.u8("the kept coefficients");
  p.bits = r.u8("the bits");
  const std::uint8_t mode = r.u8("the quantisation mode");
  if (mode > 1) throw Error("dct payload", cat("corrupt header: quantisation mode ", int(mode)));
  if (mode == 1) p.step = r.f64("the step");
  if (n < 1 || n > kMaxFace)
    throw Error("dct payload", cat("corrupt: face size ", n, " (1 to ", kMaxFace, ")"));
  try {
    validate(p, static_cast<int>(n));
  } catch (const Error& e) {
    throw Error("dct payload", cat("corrupt header: ", e.what()));
  }
  if (face != nullptr) *face = static_cast<int>(n);
  return p;
}

FaceField DctCompressor::decompress(const std::uint8_t* payload, std::size_t size) const {
  int n = 0;
  const DctParams p = payload_params(payload, size, &n);
  // Every block starts with its DC as 64 bits: checked before the field (6 n² f64) is allocated,
  // so a corrupt face size cannot ask for gigabytes.
  const std::size_t blocks = 6 * std::size_t(n / p.block) * (n / p.block);
  if (p.step > 0 && size < header_bytes(p) + 8 * blocks)
    throw Error("dct payload",
                cat("truncated: ", size, " bytes cannot hold the ", blocks, " blocks of n = ", n,
                    ", B = ", p.block, " (8 bytes or more each)"));
  const std::size_t expected = p.step > 0 ? size : payload_bytes(static_cast<int>(n), p);
  if (size != expected)
    throw Error("dct payload", cat(size < expected ? "truncated" : "corrupt", ": ", size,
                                   " bytes, expected ", expected, " for n = ", n, ", B = ", p.block,
                                   ", k = ", p.keep, ", bits = ", p.bits));
  FaceField field(static_cast<int>(n));
  decode(transform(p.block), p, payload + header_bytes(p), size - header_bytes(p), field);
  return field;
}

DctParams DctCompressor::pick(double ratio, const FaceField& sample, int block) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw Error("DctCompressor::pick", cat("compression ratio ", ratio, " must be > 0"));
  check_has_structure(sample, "DctCompressor::pick");
  const int n = sample.n;
  const std::vector<int> blocks = candidate_blocks(n, block);
  const double budget = static_cast<double>(sample.raw_bytes()) / ratio;  // payload bytes allowed
  DctParams best{};
  double best_rmse = std::numeric_limits<double>::infinity();
  double reachable = 0;
  for (const int b : blocks) {
    const BlockDct dct(b);
    for (int k = 1; k <= b; ++k) {
      DctParams p{b, k, 64};
      if (k > 1 && payload_bytes(n, p) > budget)
        for (p.bits = 32; p.bits >= 2 && payload_bytes(n, p) > budget; --p.bits) {
        }
      if (p.bits < 2) break;  // larger k only costs more
      reachable = std::fmax(reachable, sample.raw_bytes() / double(payload_bytes(n, p)));
      if (payload_bytes(n, p) > budget) continue;
      const double e = roundtrip(dct, p, sample).second;
      if (e < best_rmse) best_rmse = e, best = p;
    }
    reachable = std::fmax(reachable, sample.raw_bytes() / double(payload_bytes(n, {b, 1, 64})));
  }
  if (!std::isfinite(best_rmse)) {
    std::ostringstream tried;
    for (const int b : blocks) tried << (tried.tellp() > 0 ? " " : "") << b;
    throw Error(
        "DctCompressor::pick",
        cat("compression ratio ", ratio, " is out of reach for face size n = ", n,
            " (block sizes tried: ", blocks.empty() ? "none from 4 to 32 divides n" : tried.str(),
            "; the largest ratio they reach is ", reachable, ")"));
  }
  return best;
}

DctParams DctCompressor::pick_step(double ratio, const FaceField& sample, int block) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw Error("DctCompressor::pick_step", cat("compression ratio ", ratio, " must be > 0"));
  check_has_structure(sample, "DctCompressor::pick_step");
  const int n = sample.n;
  const std::vector<int> blocks = candidate_blocks(n, block);
  const double budget = static_cast<double>(sample.raw_bytes()) / ratio;
  double range = 0;
  for (const double v : sample.data) range = std::fmax(range, std::fabs(v));
  range = std::fmax(range, std::numeric_limits<double>::min());
  DctParams best{};
  double best_rmse = std::numeric_limits<double>::infinity();
  for (const int b : blocks) {
    const BlockDct dct(b);
    for (int k = 2; k <= b; ++k) {
      // |X| ≤ 2 B · range, so a step of 4 B · range codes every coefficient as 0 (the cheapest)
      // and one of 4 B · range / kMaxCode is the finest whose codes all fit.
      double hi = 4 * b * range, lo = hi / kMaxCode;
      if (roundtrip(dct, {b, k, 64, hi}, sample).first > budget) break;  // k only adds widths
      if (roundtrip(dct, {b, k, 64, lo}, sample).first <= budget) {
        hi = lo;
      } else {
        while (hi / lo > 1.02) {  // the payload shrinks as the step grows
          const double mid = std::sqrt(hi * lo);
          (roundtrip(dct, {b, k, 64, mid}, sample).first <= budget ? hi : lo) = mid;
        }
      }
      const double e = roundtrip(dct, {b, k, 64, hi}, sample).second;
      if (e < best_rmse) best_rmse = e, best = {b, k, 64, hi};
    }
  }
  if (!std::isfinite(best_rmse))
    throw Error("DctCompressor::pick_step",
                cat("compression ratio ", ratio, " is out of reach for face size n = ", n,
                    " with a uniform step (64 + 6 bits per block at the least)"));
  return best;
}

}  // namespace climate
