// Orthogonal cells for multislice, whose FFT grid is rectangular: a crystal's cell in an
// orthogonal setting, turned so that one of its axes is the beam direction.
#pragma once

#include "cbed/crystal.h"

namespace cbed {

/// The same crystal in an orthogonal cell: an orthogonal cell is returned as it is; a cell on
/// hexagonal axes (a = b, alpha = beta = 90, gamma = 120 degrees: the hexagonal and trigonal
/// groups) becomes the C-centred orthohexagonal cell a' = a, b' = a + 2b (|b'| = sqrt(3) a),
/// c' = c, with twice the atoms. Error naming the cell parameters for any other cell (monoclinic,
/// triclinic: those need a search for an orthogonal supercell, not done yet).
Crystal orthogonal_setting(const Crystal& crystal);

/// The crystal with cell axis `axis` (0: a, 1: b, 2: c) along the beam z, the other two along x
/// and y (a cyclic relabelling, so the cell stays right-handed): the zone axes [100], [010], [001]
/// of an orthogonal cell. Error naming the angles when the cell is not orthogonal; the result's
/// lattice is diag(Lx, Ly, Lz).
Crystal along_axis(const Crystal& crystal, int axis);

}  // namespace cbed
