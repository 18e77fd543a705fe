// Orthogonal cells for multislice, whose FFT grid is rectangular: a crystal's smallest supercell
// spanned by three mutually orthogonal lattice vectors, and one of its axes turned onto the beam.
#pragma once

#include <array>
#include <string>

#include "cbed/crystal.h"

namespace cbed {

/// Integer indices [u, v, w] of a lattice vector u a + v b + w c.
using LatticeVector = std::array<int, 3>;

/// An orthogonal supercell and the lattice vectors that span it.
struct OrthogonalCell {
  Crystal crystal;                       // lattice rows mutually orthogonal, right-handed
  std::array<LatticeVector, 3> vectors;  // its rows in the original basis (zone axes)
};

/// The supercell of smallest volume spanned by three mutually orthogonal lattice vectors with
/// indices up to `max_index` (an orthogonal cell: itself; hexagonal axes: 2a + b, b, c; the
/// generator's monoclinic and triclinic cells: the orthogonal lattice they are sheared from).
/// Error naming the cell parameters when there is none (a generic oblique metric).
OrthogonalCell orthogonal_supercell(const Crystal& crystal, int max_index = 9);

/// orthogonal_supercell(crystal).crystal.
Crystal orthogonal_setting(const Crystal& crystal);

/// "[1-20]": the zone-axis symbol of a lattice vector (a minus sign before a negative index).
std::string zone_axis_symbol(const LatticeVector& uvw);

/// The crystal with cell axis `axis` (0: a, 1: b, 2: c) along the beam z, the other two along x
/// and y (a cyclic relabelling, so the cell stays right-handed). Error naming the angles when the
/// cell is not orthogonal; the result's lattice is diag(Lx, Ly, Lz).
Crystal along_axis(const Crystal& crystal, int axis);

}  // namespace cbed
