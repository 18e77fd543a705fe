// A PNG of one sample's three patterns side by side (libpng), for looking at generated data.
#pragma once

#include <string>

namespace cbed::shard {

/// Writes the stack [3, h, w] (intensities >= 0) as an 8-bit grey PNG: each pattern on a log
/// scale, log10(I + 1e-6 max) mapped to 0..255 per pattern, enlarged `scale` times, 4-pixel
/// white gaps between them. Error naming `path` when it cannot be written.
void write_stack_png(const std::string& path, const float* stack, int h, int w, int scale = 1);

}  // namespace cbed::shard
