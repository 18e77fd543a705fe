// The classifiers' input scale of a CBED pattern: each pattern (one zone axis, H x W) becomes
// log10(I / max (1 - 1e-4) + 1e-4) / 4 + 1, so its brightest pixel is 1 and anything below 1e-4
// of it is near 0 (the intensities of a pattern span many orders of magnitude). Used by the
// in-memory classification set and, as a batch transform, by the shard dataset kinds.
#pragma once

#include <cstdint>

#include <exadnn/data/transforms.h>

namespace cbed {

/// Rescales `patterns` consecutive patterns of `pixels` values each, in place. `decades` = d sets
/// the floor: log10(I / max (1 - 10^-d) + 10^-d) / d + 1 (d = 4 above; a larger d shows fainter
/// features, e.g. a Laue zone's ring at ~1e-5 of the brightest pixel).
void log_scale_patterns(float* data, int64_t patterns, int64_t pixels, int decades = 4);

/// A pattern's largest value (at least 1e-30): the `max` of its scale.
float pattern_max(const float* pattern, int64_t pixels);

/// The scale of one pattern with its `max` given: `pixels` values of it (all, or a band of its
/// rows, whose own largest value may be lower) in place.
void log_scale_pixels(float* values, int64_t pixels, float max, int decades = 4);

/// log_scale_patterns on a batch of stacks: x [B, C, H, W] f32 -> a new [B, C, H, W] f32.
class LogPatternScale : public exadnn::data::Transform {
 public:
  exadnn::Tensor apply(const exadnn::Tensor& x, exadnn::Generator& gen) const override;
};

}  // namespace cbed
