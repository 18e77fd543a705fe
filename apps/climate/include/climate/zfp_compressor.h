// ZFP (Lindstrom 2014; Debian's libzfp, the one place this application calls it) behind the
// Compressor interface: each cube face compressed as its own 2-D n × n array of doubles, in
// fixed-rate mode (bits per value: every 4 × 4 block gets 16 · rate bits, so equal-storage
// comparisons are exact) or fixed-accuracy mode (every value within the tolerance).
//
// Payload: a 40-byte header (u32 n, u8 mode, 3 bytes 0, f64 rate or tolerance, u32 bytes of each
// of the 6 faces' ZFP streams), then the 6 streams (ZFP's own header is not written: ours holds
// what decoding needs).
#pragma once

#include <cstddef>
#include <cstdint>

#include "climate/compressor.h"

namespace climate {

struct ZfpParams {
  enum class Mode : std::uint8_t { rate = 1, accuracy = 2 };
  Mode mode = Mode::rate;
  /// Bits per value (rate mode, 0 < rate ≤ 64) or the absolute error tolerance (accuracy, > 0).
  double value = 4;
};

class ZfpCompressor : public Compressor {
 public:
  /// A mode or value out of range is an exadnn::Error naming it.
  explicit ZfpCompressor(ZfpParams params = {});

  const ZfpParams& params() const { return params_; }
  CompressorKind kind() const override { return CompressorKind::zfp; }
  std::string describe() const override;
  std::vector<std::uint8_t> parameters() const override;
  std::vector<std::uint8_t> compress(const FaceField& field) const override;
  using Compressor::decompress;
  FaceField decompress(const std::uint8_t* payload, std::size_t size) const override;

  /// The largest fixed rate (a multiple of 1/16 bit: whole bits per 4 × 4 block) whose payload
  /// for `sample` is at least `ratio` : 1. A ratio no rate reaches is an exadnn::Error.
  static ZfpParams pick(double ratio, const FaceField& sample);
  /// Fixed-accuracy mode for a ratio: the smallest tolerance (to 1 %, by bisection on its
  /// logarithm) whose payload for `sample` is at least `ratio` : 1 (sizes then vary with the
  /// data: another field may miss the ratio). None up to the field's range is an exadnn::Error.
  static ZfpParams pick_accuracy(double ratio, const FaceField& sample);
  /// Throws unless params are valid (names the bad value).
  static void validate(const ZfpParams& params);

 private:
  ZfpParams params_;
};

}  // namespace climate
