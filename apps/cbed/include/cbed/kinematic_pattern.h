// The kinematic CBED pattern, the fast check of multislice: the probe's disc repeated at every
// zero-layer reflection g of the zone axis, weighted by the weak-phase intensity of that beam,
// |sigma v_g|^2 with v_g = (2 pi a0 e / A_cell) N_cells F(hk0) the Fourier coefficient of the
// potential projected through the whole crystal (no dynamical scattering, no excitation error
// in the zero layer); optionally the higher-order Laue zones, with theirs.
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
///
/// `laue_zones` = L > 0 adds the reflections (h, k, l) with 0 < |l| <= L, the higher-order Laue
/// zones, with their excitation error: a disc pixel seen from the incident direction k (its
/// offset from the disc's centre) scatters into q = g_xy + k with the z mismatch
/// delta = l / c - lambda (|q|^2 - |k|^2) / 2 and intensity
/// |sigma (2 pi a0 e / (A_cell c)) F(hkl)|^2 sin^2(pi delta t) / (pi delta)^2, t the thickness:
/// a ring where the Ewald sphere cuts the layer l (delta = 0), |q| ~ sqrt(2 l / (lambda c)).
std::vector<double> kinematic_pattern(const Crystal& along_beam, const MultisliceOptions& options,
                                      int laue_zones = 0);

}  // namespace cbed
