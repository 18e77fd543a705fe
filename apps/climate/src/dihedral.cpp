#include "climate/dihedral.h"

#include <exadnn/core/error.h>

namespace climate {

void dihedral_transform(const float* in, float* out, int64_t channels, int64_t size, int symmetry) {
  EXADNN_CHECK(symmetry >= 0 && symmetry < kDihedralSymmetries, "climate::dihedral_transform",
               "symmetry ", symmetry, " is not in [0, 8)");
  EXADNN_CHECK(channels >= 1 && size >= 1, "climate::dihedral_transform", "an empty image (",
               channels, " channels of ", size, " x ", size, ")");
  const bool transpose = symmetry >= 4, flip_rows = (symmetry & 1) != 0,
             flip_cols = (symmetry & 2) != 0;
  const int64_t plane = size * size;
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = in + c * plane;
    float* dst = out + c * plane;
    for (int64_t r = 0; r < size; ++r)
      for (int64_t q = 0; q < size; ++q) {
        // out[r][q] = t[r'][q'], t the (optionally transposed) input, mirrored as asked.
        const int64_t tr = flip_rows ? size - 1 - r : r, tq = flip_cols ? size - 1 - q : q;
        dst[r * size + q] = transpose ? src[tq * size + tr] : src[tr * size + tq];
      }
  }
}

int dihedral_inverse(int symmetry) {
  EXADNN_CHECK(symmetry >= 0 && symmetry < kDihedralSymmetries, "climate::dihedral_inverse",
               "symmetry ", symmetry, " is not in [0, 8)");
  if (symmetry < 4) return symmetry;  // mirrors undo themselves
  // out = M(T(in)) with M mirroring rows (bit 0) and columns (bit 1); T M = M' T with the
  // mirrors' axes swapped, so the inverse T M⁻¹ = M' T swaps bits 0 and 1.
  const int rows = symmetry & 1, cols = (symmetry >> 1) & 1;
  return 4 | (rows << 1) | cols;
}

}  // namespace climate
