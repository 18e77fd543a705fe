// Colour-filled maps of a field on a latitude–longitude grid, drawn with PLplot's pngcairo device
// (Debian plplot-driver-cairo): shaded contours over longitude × latitude in degrees, a colour bar,
// a title and a line with the field's extrema.
#pragma once

#include <string>
#include <vector>

#include "climate/regrid.h"

namespace climate {

struct MapOptions {
  std::string title;       ///< top line, e.g. "Galewsky (bump), (32, 4), day 6.00"
  std::string label;       ///< the colour bar's label, e.g. "relative vorticity [1/s]"
  int width = 1200;        ///< [pixels]
  int height = 600;        ///< [pixels]
  int levels = 40;         ///< number of colour shades
  bool diverging = false;  ///< blue–white–red centred on 0 (range ±max |f|), else sequential
};

/// Writes `field` ([grid.nlat · grid.nlon], latitude slow) as a PNG map to `path`. Refused with an
/// exadnn::Error: a field of the wrong size or with a NaN or infinity (its index named), a size
/// below 100 × 100 pixels, a file that cannot be opened, PLplot without the pngcairo device.
void write_map_png(const std::string& path, const LatLonGrid& grid,
                   const std::vector<double>& field, const MapOptions& options);

/// The PNG signature's check and the image size from its IHDR chunk: false if `path` is not a
/// PNG file (unreadable, too short, wrong signature).
bool read_png_size(const std::string& path, int& width, int& height);

}  // namespace climate
