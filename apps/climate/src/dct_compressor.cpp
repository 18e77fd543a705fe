#include "climate/dct_compressor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "climate/compress_bytes.h"
#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

namespace {

constexpr int kHeaderBytes = 8;
constexpr int kMaxBlock = 64;
constexpr int kMaxFace = 1 << 15;  // a face side beyond this is taken as a corrupt header

std::size_t bits_per_block(const DctParams& p) {
  if (p.bits == 64) return 64u * p.keep * p.keep;
  if (p.keep == 1) return 64;
  return 64 + 32 + static_cast<std::size_t>(p.keep * p.keep - 1) * p.bits;
}

// Encodes every block of `field` into `out` (after its header).
void encode(const BlockDct& dct, const DctParams& p, const FaceField& field,
            std::vector<std::uint8_t>& out) {
  const int b = p.block, k = p.keep, n = field.n, nb = n / b;
  const std::int64_t levels = (std::int64_t{1} << (p.bits == 64 ? 1 : p.bits - 1)) - 1;
  std::vector<double> block(static_cast<std::size_t>(b) * b);
  BitWriter bits(out);
  for (int f = 0; f < 6; ++f)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc) {
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i) block[j * b + i] = field.at(f, br * b + j, bc * b + i);
        dct.forward(block.data(), block.data());
        if (p.bits == 64 || k == 1) {
          for (int u = 0; u < k; ++u)
            for (int v = 0; v < k; ++v) {
              std::uint64_t word;
              std::memcpy(&word, &block[u * b + v], sizeof word);
              bits.put(word, 64);
            }
          continue;
        }
        std::uint64_t dc;
        std::memcpy(&dc, &block[0], sizeof dc);
        bits.put(dc, 64);
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
  bits.flush();
}

// Decodes the blocks that follow a payload's header into `field` (face size already set).
void decode(const BlockDct& dct, const DctParams& p, const std::uint8_t* data, std::size_t size,
            FaceField& field) {
  const int b = p.block, k = p.keep, n = field.n, nb = n / b;
  const std::int64_t levels = (std::int64_t{1} << (p.bits == 64 ? 1 : p.bits - 1)) - 1;
  std::vector<double> block(static_cast<std::size_t>(b) * b);
  BitReader bits(data, size, "dct payload");
  for (int f = 0; f < 6; ++f)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc) {
        std::fill(block.begin(), block.end(), 0.0);
        if (p.bits == 64 || k == 1) {
          for (int u = 0; u < k; ++u)
            for (int v = 0; v < k; ++v) {
              const std::uint64_t word = bits.get(64);
              std::memcpy(&block[u * b + v], &word, sizeof word);
            }
        } else {
          const std::uint64_t dc = bits.get(64);
          std::memcpy(&block[0], &dc, sizeof dc);
          const auto sbits = static_cast<std::uint32_t>(bits.get(32));
          float s;
          std::memcpy(&s, &sbits, sizeof s);
          if (!(s >= 0) || std::isinf(s))
            throw Error("dct payload", cat("corrupt: block scale ", s, " in face ", f, " block (",
                                           br, ", ", bc, ")"));
          for (int u = 0; u < k; ++u)
            for (int v = (u == 0); v < k; ++v) {
              const auto code = static_cast<std::int64_t>(bits.get(p.bits));
              if (code > 2 * levels)
                throw Error("dct payload", cat("corrupt: coefficient code ", code, " above ",
                                               2 * levels, " in face ", f));
              block[u * b + v] = static_cast<double>(code - levels) * s / levels;
            }
        }
        dct.inverse(block.data(), block.data());
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i) field.at(f, br * b + j, bc * b + i) = block[j * b + i];
      }
}

double roundtrip_rmse(const BlockDct& dct, const DctParams& p, const FaceField& field) {
  std::vector<std::uint8_t> bytes;
  encode(dct, p, field, bytes);
  FaceField back(field.n);
  decode(dct, p, bytes.data(), bytes.size(), back);
  return rmse(field, back);
}

}  // namespace

void DctCompressor::validate(const DctParams& p, int n) {
  if (p.block < 2 || p.block > kMaxBlock)
    throw Error("DctCompressor",
                cat("block size B = ", p.block, " out of range (2 to ", kMaxBlock, ")"));
  if (p.keep < 1 || p.keep > p.block)
    throw Error("DctCompressor",
                cat("kept coefficients k = ", p.keep, " out of range (1 to B = ", p.block, ")"));
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
  return cat("dct B=", params_.block, " k=", params_.keep, " bits=", params_.bits);
}

std::vector<std::uint8_t> DctCompressor::parameters() const {
  return {static_cast<std::uint8_t>(params_.block), static_cast<std::uint8_t>(params_.keep),
          static_cast<std::uint8_t>(params_.bits)};
}

std::size_t DctCompressor::payload_bytes(int n, const DctParams& p) {
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
  out.reserve(payload_bytes(field.n, params_));
  ByteWriter w(out);
  w.u32(static_cast<std::uint32_t>(field.n));
  w.u8(static_cast<std::uint8_t>(params_.block));
  w.u8(static_cast<std::uint8_t>(params_.keep));
  w.u8(static_cast<std::uint8_t>(params_.bits));
  w.u8(0);
  encode(transform(params_.block), params_, field, out);
  return out;
}

FaceField DctCompressor::decompress(const std::uint8_t* payload, std::size_t size) const {
  ByteReader r(payload, size, "dct payload");
  const std::uint32_t n = r.u32("the face size");
  DctParams p;
  p.block = r.u8("the block size");
  p.keep = r.u8("the kept coefficients");
  p.bits = r.u8("the bits");
  r.u8("the reserved byte");
  if (n < 1 || n > kMaxFace)
    throw Error("dct payload", cat("corrupt: face size ", n, " (1 to ", kMaxFace, ")"));
  try {
    validate(p, static_cast<int>(n));
  } catch (const Error& e) {
    throw Error("dct payload", cat("corrupt header: ", e.what()));
  }
  const std::size_t expected = payload_bytes(static_cast<int>(n), p);
  if (size != expected)
    throw Error("dct payload", cat(size < expected ? "truncated" : "corrupt", ": ", size,
                                   " bytes, expected ", expected, " for n = ", n, ", B = ", p.block,
                                   ", k = ", p.keep, ", bits = ", p.bits));
  FaceField field(static_cast<int>(n));
  decode(transform(p.block), p, payload + kHeaderBytes, size - kHeaderBytes, field);
  return field;
}

DctParams DctCompressor::pick(double ratio, const FaceField& sample, int block) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw Error("DctCompressor::pick", cat("compression ratio ", ratio, " must be > 0"));
  const int n = sample.n;
  std::vector<int> blocks;
  if (block > 0) {
    validate({block, 1, 64}, n);
    blocks.push_back(block);
  } else {
    for (int b = 4; b <= 32; ++b)
      if (n % b == 0) blocks.push_back(b);
  }
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
      const double e = roundtrip_rmse(dct, p, sample);
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

}  // namespace climate
