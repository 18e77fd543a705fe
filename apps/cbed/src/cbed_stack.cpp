#include "cbed/cbed_stack.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>

#include "cbed/electron_optics.h"
#include "cbed/kinematic_pattern.h"
#include "cbed/orthogonal_cell.h"
#include "cbed/resample.h"

namespace cbed {

PatternStack cbed_stack(const Crystal& crystal, const StackOptions& options) {
  EXADNN_CHECK(options.kinematic || options.laue_zones == 0, "cbed::cbed_stack", "laue_zones (",
               options.laue_zones,
               ") is for kinematic stacks; multislice has every Laue zone its slices resolve");
  const OrthogonalCell orthogonal = orthogonal_supercell(crystal);  // Error for oblique metrics
  const Crystal& cell = orthogonal.crystal;
  PatternStack stack;
  stack.nx = options.multislice.grid.nx;
  stack.ny = options.multislice.grid.ny;
  for (int axis = 0; axis < 3; ++axis)
    stack.zone_axes[axis] = zone_axis_symbol(orthogonal.vectors[axis]);
  const size_t n = size_t(stack.nx) * stack.ny;
  stack.data.resize(3 * n);
  for (int axis = 0; axis < 3; ++axis) {
    const Crystal turned = along_axis(cell, axis);
    const double lx = turned.lattice[0][0], ly = turned.lattice[1][1], lz = turned.lattice[2][2];
    MultisliceOptions o = options.multislice;
    o.grid.tiles_x = std::max(1, int(std::ceil(options.plane_size / lx)));
    o.grid.tiles_y = std::max(1, int(std::ceil(options.plane_size / ly)));
    o.grid.slices_per_cell = std::max(1, int(std::ceil(lz / options.max_slice)));
    o.cells = std::max(1, int(std::lround(options.thickness / lz)));
    std::vector<double> pattern;
    if (options.kinematic) {
      pattern = kinematic_pattern(turned, o, options.laue_zones);
      const double lambda_mrad = 1e3 * electron_wavelength(o.kilovolts);  // pixel = lambda / L
      stack.pixel_mrad[axis] = {lambda_mrad / (lx * o.grid.tiles_x),
                                lambda_mrad / (ly * o.grid.tiles_y)};
    } else {
      Multislice ms(turned, o);
      pattern = ms.pattern();
      stack.pixel_mrad[axis] = ms.pixel_mrad();
    }
    if (options.detector_mrad > 0) {
      EXADNN_CHECK(stack.nx == stack.ny, "cbed::cbed_stack", "resampling needs a square grid, not ",
                   stack.ny, " x ", stack.nx);
      pattern = resample(pattern, stack.ny, stack.nx, stack.pixel_mrad[axis], options.detector_mrad,
                         stack.nx);
      stack.pixel_mrad[axis] = {options.detector_mrad, options.detector_mrad};
    }
    std::copy(pattern.begin(), pattern.end(), stack.data.begin() + axis * n);
  }
  return stack;
}

}  // namespace cbed
