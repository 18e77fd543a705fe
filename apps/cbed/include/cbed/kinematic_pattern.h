// The kinematic CBED pattern, the fast check of multislice: the probe's disc repeated at every
// zero-layer reflection g of the zone axis, weighted by the weak-phase intensity of that beam,
// |sigma v_g|^2 with v_g = (2 pi a0 e / A_cell) N_cells F(hk0) the Fourier coefficient of the
// potential projected through the whole crystal (no dynamical scattering, no excitation error).
#pragma once

#include <vector>

#include "cbed/crystal.h"
#include "cbed/multislice.h"

namespace cbed {

/// The pattern for a crystal from along_axis, in multislice's layout and units ([ny, nx], zero
/// frequency at (ny / 2, nx / 2), a unit-intensity probe spread over its disc): the geometry,
/// beam, aperture, thickness, bandwidth and Debye-Waller options are multislice's (probe
/// aberrations do not change a kinematic pattern's intensities). The central disc keeps
/// 1 - sum_g I_g.
std::vector<double> kinematic_pattern(const Crystal& along_beam, const MultisliceOptions& options);

}  // namespace cbed
