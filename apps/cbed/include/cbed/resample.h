// Patterns on one angular grid: a multislice pattern's pixel is lambda / L (L the tiled plane's
// width), so it differs between materials; a dataset's patterns need the same mrad per pixel.
#pragma once

#include <array>
#include <vector>

namespace cbed {

/// The [n_out, n_out] pattern, pixel `to_mrad` wide, zero angle at (n_out / 2, n_out / 2), of an
/// [ny, nx] pattern with pixels (from_mrad[0] x from_mrad[1]) and zero at (ny / 2, nx / 2):
/// each output pixel receives every input pixel's intensity in proportion to their overlap, so
/// intensity is conserved where the output window covers the input.
std::vector<double> resample(const std::vector<double>& pattern, int ny, int nx,
                             const std::array<double, 2>& from_mrad, double to_mrad, int n_out);

}  // namespace cbed
