// Lossy compression of one scalar field of the cubed sphere, and the interface every compressor
// (blockwise DCT, ZFP) implements.
//
// A field is given per cube face as a 2-D array of n × n doubles, n = Ne (p+1): the DG nodes of
// the face's Ne × Ne elements side by side, element (ei, ej)'s node (i, j) at row
// r = ej (p+1) + j (along η, the face's β angle) and column c = ei (p+1) + i (along ξ, α). The
// nodes on a shared element edge appear twice (each element keeps its own: the DG field is
// discontinuous there), so an element is a (p+1) × (p+1) tile of the array.
// compress_fields.h fills FaceFields from a solver state and back.
//
// A compressor turns a FaceField into a payload of bytes that holds everything its decoding
// needs (the face size and the compressor's parameters in a small header of its own): the
// payload's size is the storage that compression ratios count (raw f64 bytes / payload bytes,
// headers included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace climate {

/// One scalar field on the 6 cube faces: data[(f n + r) n + c], shape [6][n][n].
struct FaceField {
  FaceField() = default;
  /// A zero field of face size n ≥ 1.
  explicit FaceField(int n);

  int n = 0;
  std::vector<double> data;  // [6][n][n]

  double& at(int f, int r, int c) { return data[(static_cast<std::size_t>(f) * n + r) * n + c]; }
  double at(int f, int r, int c) const {
    return data[(static_cast<std::size_t>(f) * n + r) * n + c];
  }
  /// The bytes of the field stored as raw f64: 6 n² · 8.
  std::size_t raw_bytes() const { return data.size() * sizeof(double); }
};

/// The compressors a payload can come from (the value is stored in stream files: never renumber).
enum class CompressorKind : std::uint8_t {
  dct = 1,  ///< blockwise orthonormal DCT-II, lowest k × k coefficients kept, quantised
            ///< (dct_compressor.h)
  zfp = 2,  ///< ZFP, fixed rate or fixed accuracy (zfp_compressor.h)
};

/// "dct" or "zfp"; an unknown value is an exadnn::Error naming it.
const char* compressor_kind_name(CompressorKind kind);
/// The kind named "dct" or "zfp"; anything else is an exadnn::Error naming it.
CompressorKind compressor_kind_from_name(const std::string& name);

class Compressor {
 public:
  virtual ~Compressor() = default;

  virtual CompressorKind kind() const = 0;
  /// The parameters in one line, e.g. "dct B=8 k=2 bits=64" or "zfp rate=3.94".
  virtual std::string describe() const = 0;
  /// The parameters as bytes (what a stream file's header records; the payloads carry them too).
  virtual std::vector<std::uint8_t> parameters() const = 0;

  /// The payload of `field`. Any face size the compressor's parameters fit (an unfit one, e.g. a
  /// DCT block that does not divide n, is an exadnn::Error naming both).
  virtual std::vector<std::uint8_t> compress(const FaceField& field) const = 0;
  /// The field back from a payload made by a compressor of the same kind (whatever its
  /// parameters: they are read from the payload). A malformed payload is an exadnn::Error saying
  /// what is wrong, never a crash.
  virtual FaceField decompress(const std::uint8_t* payload, std::size_t size) const = 0;
  FaceField decompress(const std::vector<std::uint8_t>& payload) const {
    return decompress(payload.data(), payload.size());
  }
};
// Compressors are not re-entrant (they keep transform plans and scratch arrays): one per thread.

/// A compressor of `kind` whose payloads for fields like `sample` are at least `ratio` : 1 (raw
/// f64 bytes / payload bytes), its parameters picked on `sample` (dct: the block size, kept
/// coefficients and bits with the smallest RMSE on it; zfp: the largest fixed rate that fits).
/// A ratio no parameters reach (or ratio ≤ 0) is an exadnn::Error naming the ratio and the
/// best one reachable.
std::unique_ptr<Compressor> make_compressor(CompressorKind kind, double ratio,
                                            const FaceField& sample);
/// A compressor of `kind` to decode payloads with (its own parameters are the defaults).
std::unique_ptr<Compressor> make_decoder(CompressorKind kind);

/// raw f64 bytes of `field` / payload_bytes.
double compression_ratio(const FaceField& field, std::size_t payload_bytes);

/// The root-mean-square difference of two fields of the same size, and its maximum abs value
/// (sizes differing is an exadnn::Error).
double rmse(const FaceField& a, const FaceField& b);
double max_abs_error(const FaceField& a, const FaceField& b);
/// The root mean square of a field's values.
double rms(const FaceField& a);

}  // namespace climate
