// One material's sample for the dataset: CBED patterns along three zone axes, stacked like the
// ORNL CBED data ([3, H, W] float32 per material).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cbed/crystal.h"
#include "cbed/multislice.h"

namespace cbed {

struct StackOptions {
  MultisliceOptions multislice;  // beam, grid size, aperture, bandwidth, Debye-Waller; its tiles,
                                 // slices and cells are chosen per axis from the three sizes below
  double plane_size = 20;        // Angstrom: the tiled plane is at least this wide along x and y
  double thickness = 50;         // Angstrom: cells along the beam, rounded to the nearest (>= 1)
  double max_slice = 2;          // Angstrom: the thickest slice
  double detector_mrad = 0;      // mrad per output pixel, the same for every material and axis
                                 // (patterns resampled, resample.h); 0 keeps each axis's lambda / L
  bool kinematic = false;        // kinematic_pattern (|F(g)|^2 on discs, fast) instead of
                                 // multislice, with the same geometry
  int laue_zones = 0;            // kinematic only: the higher-order Laue zones it draws (0: the
                                 // zero layer; multislice has them all, where its slices resolve)
};

/// Three patterns of one crystal, [3, ny, nx] float32 row-major (the multislice grid's size).
struct PatternStack {
  int ny = 0, nx = 0;
  std::vector<float> data;
  std::array<std::string, 3> zone_axes;  // e.g. "[100]", or "[2-1-10]" on hexagonal axes
  std::array<std::array<double, 2>, 3> pixel_mrad{};  // detector pixel (x, y) per pattern
};

/// The patterns along the three axes of the crystal's orthogonal supercell: [100], [010], [001]
/// of an orthogonal cell, [100], [120], [001] on hexagonal axes, [100], [010], [p0q] of the
/// generator's monoclinic cells. Error for a metric with no orthogonal supercell.
PatternStack cbed_stack(const Crystal& crystal, const StackOptions& options);

}  // namespace cbed
