#include "climate/dct_consistency.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "climate/dct.h"

namespace climate {

namespace {

// Block (f, br, bc) of `field` into `block` [B][B], and back.
void load_block(const FaceField& field, int f, int br, int bc, int b, std::vector<double>& block) {
  for (int j = 0; j < b; ++j)
    for (int i = 0; i < b; ++i) block[j * b + i] = field.at(f, br * b + j, bc * b + i);
}
void store_block(const std::vector<double>& block, int f, int br, int bc, int b, FaceField& field) {
  for (int j = 0; j < b; ++j)
    for (int i = 0; i < b; ++i) field.at(f, br * b + j, bc * b + i) = block[j * b + i];
}

// This thread's transform for block size b, planned again only when b changes (a projection runs
// for every field of every step; BlockDct is one per thread).
const BlockDct& transform(int b) {
  thread_local std::unique_ptr<BlockDct> dct;
  if (!dct || dct->block() != b) dct = std::make_unique<BlockDct>(b);
  return *dct;
}

// The half-width of the quantisation cell of the kept non-DC coefficients of one block, from
// the decompressed block's coefficients D (0: stored exactly).
double half_width(const DctParams& p, const std::vector<double>& D) {
  if (p.step > 0) return p.step / 2;
  if (p.bits == 64 || p.keep == 1) return 0;
  double s = 0;
  for (int u = 0; u < p.keep; ++u)
    for (int v = 0; v < p.keep; ++v)
      if (u + v > 0) s = std::max(s, std::abs(D[u * p.block + v]));
  const double levels = std::ldexp(1.0, p.bits - 1) - 1;
  return s / (2 * levels);
}

}  // namespace

void project_onto_dct_consistent(const DctParams& params, const FaceField& decompressed,
                                 FaceField& correction) {
  DctCompressor::validate(params, decompressed.n);
  EXADNN_CHECK(correction.n == decompressed.n && correction.data.size() == decompressed.data.size(),
               "project_onto_dct_consistent", "a correction of face size ", correction.n,
               " for a decompressed field of face size ", decompressed.n);
  const int b = params.block, k = params.keep, nb = decompressed.n / b;
  const BlockDct& dct = transform(b);
  std::vector<double> D(static_cast<size_t>(b) * b), C(D.size());
  for (int f = 0; f < 6; ++f)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc) {
        load_block(decompressed, f, br, bc, b, D);
        dct.forward(D.data(), D.data());
        const double cell = half_width(params, D);
        load_block(correction, f, br, bc, b, C);
        dct.forward(C.data(), C.data());
        for (int u = 0; u < k; ++u)
          for (int v = 0; v < k; ++v) {
            double& x = C[u * b + v];
            x = u + v == 0 ? 0.0 : std::clamp(x, -cell, cell);  // the DC is always exact
          }
        dct.inverse(C.data(), C.data());
        store_block(C, f, br, bc, b, correction);
      }
}

Correction::Projection dct_consistency(const std::vector<std::vector<std::uint8_t>>& payloads) {
  std::vector<DctParams> params;
  for (const auto& payload : payloads)
    params.push_back(DctCompressor::payload_params(payload.data(), payload.size()));
  return [params](int field, const FaceField& decompressed, FaceField& correction) {
    EXADNN_CHECK(field >= 0 && field < static_cast<int>(params.size()), "dct_consistency", "field ",
                 field, " of a step with ", params.size(), " payloads");
    project_onto_dct_consistent(params[field], decompressed, correction);
  };
}

}  // namespace climate
