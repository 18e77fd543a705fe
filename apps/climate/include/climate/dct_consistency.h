// Data consistency for a correction of DCT-compressed data: the stream says more about the
// original field than its decompressed values. In every block, the coefficients the compressor
// kept pin the original's down exactly (f64, and the DC in every mode) or to a quantisation cell
// around the stored value (half-width s / (2L) in q-bit mode, Δ / 2 with a step); only the dropped
// coefficients are free. A correction c of the decompressed field d is made consistent by moving
// each kept coefficient of c into its cell (0 where exact) and leaving the dropped ones: the
// Euclidean projection onto the fields d + c the stream allows. The original lies in that set and
// the set is convex, so the projection never moves a correction further from the true residual,
// in any block: ‖x − (d + P c)‖ ≤ ‖x − (d + c)‖ (dct_compressor.h's transform is orthonormal).
//
// Half-widths in q-bit mode: the stored scale s of a block is max |X| over its kept non-DC
// coefficients rounded up to f32, so that coefficient's code is ±L and it decodes to ±s: s is
// read off the decompressed block as the largest |kept non-DC coefficient|.
#pragma once

#include <cstdint>
#include <vector>

#include "climate/compressor.h"
#include "climate/correction.h"
#include "climate/dct_compressor.h"

namespace climate {

/// Projects `correction` (face layout, the size of `decompressed`) onto the corrections that
/// `decompressed`, made by a DctCompressor with `params`, allows. A block size that does not
/// divide the face size, or fields of different sizes, are an Error naming both.
void project_onto_dct_consistent(const DctParams& params, const FaceField& decompressed,
                                 FaceField& correction);

/// The projection for a learned correction (Correction::set_projection) of one output step whose
/// fields were DCT-compressed into `payloads` (one per field, in the correction's field order):
/// each field's parameters are read from its payload's header (an Error if it is malformed).
Correction::Projection dct_consistency(const std::vector<std::vector<std::uint8_t>>& payloads);

}  // namespace climate
