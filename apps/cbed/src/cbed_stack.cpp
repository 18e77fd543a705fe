#include "cbed/cbed_stack.h"

#include <algorithm>
#include <cmath>

#include "cbed/crystal_generator.h"
#include "cbed/orthogonal_cell.h"

namespace cbed {

PatternStack cbed_stack(const Crystal& crystal, const StackOptions& options) {
  const CellParameters p = cell_parameters(crystal);
  const bool hexagonal_axes = std::abs(p.gamma - 120) < 1e-6;
  const Crystal cell = orthogonal_setting(crystal);  // Error for cells it cannot handle
  PatternStack stack;
  stack.nx = options.multislice.grid.nx;
  stack.ny = options.multislice.grid.ny;
  stack.zone_axes = hexagonal_axes ? std::array<std::string, 3>{"[2-1-10]", "[01-10]", "[0001]"}
                                   : std::array<std::string, 3>{"[100]", "[010]", "[001]"};
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
    Multislice ms(turned, o);
    const std::vector<double> pattern = ms.pattern();
    std::copy(pattern.begin(), pattern.end(), stack.data.begin() + axis * n);
    stack.pixel_mrad[axis] = ms.pixel_mrad();
  }
  return stack;
}

}  // namespace cbed
