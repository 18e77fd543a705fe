// The learned correction of compressed fields: an exadnn CNN that maps a decompressed field to
// the residual (original − decompressed), applied on each cube face's node array widened by a
// halo from the neighbouring faces (halo_face.h), so that the correction is seamless across face
// edges. Several fields (h, u, v) go through one network as channels; each is normalised by its
// own statistics, kept in the model as buffers so the stored weights are self-contained.
//
// The correction never changes a field's total mass: after the network, its weighted mean
// (the DG quadrature weights w_i w_j J) is subtracted, so ∫ corrected dA = ∫ decompressed dA to
// round-off.
//
//   Correction c(mesh, {.fields = 3});
//   c.observe(decompressed, original);            // the normalisation, from every pair so far
//   c.samples(decompressed, original, x, y);      // 6 raw training examples (one per face)
//   c.normalise(6, x, y);                         // as the network sees them
//   Fields corrected = c.apply(decompressed);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "climate/cubed_sphere.h"
#include "climate/halo_face.h"
#include "climate/shallow_water.h"

namespace exadnn {
class StateDict;
namespace nn {
class Module;
}
}  // namespace exadnn

namespace climate {

/// C fields of one output step, each in compressor.h's face layout [6][n][n].
using Fields = std::vector<FaceField>;

struct CorrectionOptions {
  int fields = 3;  ///< C: the fields corrected (output channels)
  int width = 16;  ///< channels of the hidden layers
  int depth = 4;   ///< 3×3 convolutions (≥ 2); the halo H = Σ dilations (each trims its own)
  /// Each convolution's dilation (empty: 1 for all, H = depth; else `depth` values ≥ 1): a
  /// dilation d widens a 3×3 convolution's reach to d pixels each way at the same cost, so
  /// 1, 2, 4, 8, 1 sees 16 pixels around a node, two DCT blocks, where plain ones see `depth`.
  std::vector<int> dilations{};
  /// A U-shaped network instead (Ronneberger, Fischer, Brox 2015) of `levels` ≥ 1 levels:
  /// at each, two padded 3×3 convolutions (ReLU, `width` · 2^level channels) and 2×2 average
  /// pooling down; at the bottom two more; back up by nearest upsampling, the same level's map
  /// concatenated, two convolutions; a 1×1 convolution to the C residual channels, cropped to
  /// the face. It sees the whole halo'd face (`depth` and `dilations` are then unused). 0: the
  /// plain CNN above.
  int levels = 0;
  /// The U-Net's halo: at least this many pixels (0: 8, one DCT block), more if needed so that
  /// the halo'd face's width n + 2H divides by 2^levels.
  int halo = 0;
  uint64_t seed = 1;  ///< initial weights
  /// Periods P ≥ 2 of the face array's structure that the network is told: for each, two more
  /// input channels, a pixel's row and column phase (index mod P, mapped onto [−1, 1]; halo
  /// pixels continue the face's indexing). A convolution cannot tell where it is otherwise, and
  /// the errors repeat with the DG element (P = p + 1: the LGL nodes are not evenly spaced) and
  /// with the compressor's block (the DCT's B).
  std::vector<int> periods{};
};

class Correction {
 public:
  /// Keeps a reference to `mesh`. Bad options are an Error naming the option.
  Correction(const CubedSphere& mesh, const CorrectionOptions& options);
  ~Correction();
  Correction(Correction&&) noexcept;

  const CorrectionOptions& options() const { return options_; }
  const FaceHalo& halo() const { return halo_; }
  /// The halo H the network's input carries around a face of n × n nodes: the plain CNN's reach,
  /// Σ dilations; the U-Net's `halo` option (8 by default), rounded up so that n + 2H divides by
  /// 2^levels.
  static int reach(const CorrectionOptions& options, int n);
  /// The network, as the train layer takes it: x [B, C', n+2H, n+2H] (normalised decompressed
  /// fields and the phase channels) → [B, C, n, n] (the residual, divided by each field's
  /// residual scale).
  std::shared_ptr<exadnn::nn::Module> model() const;

  /// Adds a pair to each field's running statistics and resets the normalisation from all pairs
  /// seen: the input mean and scale (of the decompressed field) and the residual scale (the RMS of
  /// original − decompressed). An input scale of round-off size (under 1e-9 in the field's SI
  /// unit: a field constant so far) counts as 1; a residual one (under 1e-12: the field
  /// compressed exactly so far) makes the residual scale 0, so that field's correction is zero.
  void observe(const Fields& decompressed, const Fields& original);
  /// The six examples (one per face) of a pair, raw (not normalised: the normalisation moves as
  /// pairs arrive): inputs [6, C', w, w] (C' = input_channels(): the decompressed fields with
  /// their halos, then the phase channels) and targets
  /// [6, C, n, n] (original − decompressed), f32, w = n + 2H. Sizes are checked (an Error naming
  /// the field).
  void samples(const Fields& decompressed, const Fields& original, float* inputs,
               float* targets) const;
  /// Normalises `count` raw examples in place as the network sees them, with the current
  /// normalisation: inputs (x − mean) / scale, targets r / residual scale.
  void normalise(int64_t count, float* inputs, float* targets) const;
  /// Input channels: C + 2 per period.
  int input_channels() const;
  /// Floats per example: input_channels() w² (inputs) and C n² (targets).
  int64_t input_floats() const;
  int64_t target_floats() const;

  /// The corrected fields: decompressed + each field's gain × the network's residual, made
  /// mass-neutral.
  Fields apply(const Fields& decompressed) const;
  /// The network's residual for each field, made mass-neutral, before the gains.
  Fields corrections(const Fields& decompressed) const;

  /// A projection of each field's correction (SI units, face layout), applied to the network's
  /// output before it is made mass-neutral and scaled by the gain: e.g. onto the corrections the
  /// compressed stream allows (dct_consistency.h). None by default; it is not stored with the
  /// weights (it belongs to the stream: whoever applies the correction sets it).
  using Projection =
      std::function<void(int field, const FaceField& decompressed, FaceField& correction)>;
  void set_projection(Projection projection) { projection_ = std::move(projection); }

  /// Fits each field's gain on held-out pairs (steps never trained on): the α in [0, 1] that
  /// minimises Σ |original − decompressed − α · correction|² over them (least squares, clamped),
  /// so that the stored correction is scaled down, or off (0), where it does not generalise: on
  /// those pairs the corrected error is never above the compressor's. Stored with the weights
  /// (buffer "gain"); 1 until fitted. Returns the gains.
  std::vector<float> fit_gains(const std::vector<Fields>& decompressed,
                               const std::vector<Fields>& original);
  std::vector<float> gains() const;

  /// Weights, normalisation and gains (what the workflow stores beside the compressed stream); a
  /// state stored before the gains existed loads with gains 1.
  exadnn::StateDict state() const;
  void load(const exadnn::StateDict& state);
  /// Bytes the stored network takes: its parameters and buffers as f32.
  int64_t bytes() const;

 private:
  // The network's inputs for a step, raw: [6, C', w, w].
  void inputs(const Fields& decompressed, float* x) const;

  struct Net;
  const CubedSphere& mesh_;
  CorrectionOptions options_;
  FaceHalo halo_;
  FaceField weights_;          // the quadrature weights in the face layout
  std::vector<float> phases_;  // the phase channels, the same on every face: [2 periods][w][w]
  // Per field: values seen, Σ decompressed, Σ decompressed², Σ residual².
  std::vector<double> seen_, sum_, sum_sq_, res_sq_;
  std::shared_ptr<Net> net_;
  Projection projection_;
};

/// The fields the correction works on, from a state: h [m], u, v (east, north) [m/s].
Fields correction_fields(const ShallowWater& solver, const SwState& U);
/// The state whose h, u, v are `fields` (the inverse of correction_fields, to round-off).
SwState state_from_correction_fields(const ShallowWater& solver, const Fields& fields);

/// The mesh's quadrature weights (w_i w_j J, m²) in the face layout [6][n][n].
FaceField face_area_weights(const CubedSphere& mesh);
/// ∫ field dA = Σ weights · field (sizes differing is an Error).
double integral(const FaceField& weights, const FaceField& field);
/// Subtracts from `correction` its weighted mean, so that Σ weights · correction = 0.
void remove_weighted_mean(const FaceField& weights, FaceField& correction);

}  // namespace climate
