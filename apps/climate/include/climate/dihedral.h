// The eight symmetries of a square image (the dihedral group D4: four rotations, each with or
// without a mirror), for augmenting the learned correction's training examples. Undoing a
// truncated transform's blur is the same operation whichever way a structure faces, but the
// flow the network trains on need not show every orientation (Galewsky's jet is zonal before it
// rolls up into vortices): each example drawn is shown in one of the eight orientations.
//
// The transform maps the square's centre to itself, so a face array widened by a halo (w = n + 2H)
// and its interior (n) stay aligned when both are transformed with the same `symmetry`.
#pragma once

#include <cstdint>

namespace climate {

inline constexpr int kDihedralSymmetries = 8;

/// Writes `in` [channels][size][size] in orientation `symmetry` ∈ [0, 8) to `out` (same shape;
/// the two must not overlap): symmetry s transposes when s ≥ 4, then mirrors the rows when
/// bit 0 is set and the columns when bit 1 is set. Symmetry 0 copies. An Error names a bad
/// symmetry or size.
void dihedral_transform(const float* in, float* out, int64_t channels, int64_t size, int symmetry);

/// The symmetry that undoes `symmetry` (a transpose followed by mirrors is undone by the mirrors
/// swapped, then the transpose).
int dihedral_inverse(int symmetry);

}  // namespace climate
