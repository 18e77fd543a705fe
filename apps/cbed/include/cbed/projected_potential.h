// The slices of multislice: a crystal with an orthogonal cell whose c is the beam direction z
// (orthogonal_cell.h turns one so), repeated in the plane and cut into slices along z; each
// slice's projected potential v_z(x, y) on the FFT grid.
#pragma once

#include <vector>

#include "cbed/crystal.h"
#include "cbed/fft2d.h"
#include "cbed/scattering_factor.h"

namespace cbed {

/// How the turned cell is sampled: tiles_x x tiles_y cells on an ny x nx grid, slices_per_cell
/// slices of thickness c / slices_per_cell along the beam.
struct SliceGrid {
  int nx = 64, ny = 64;
  int tiles_x = 1, tiles_y = 1;
  int slices_per_cell = 2;
};

/// The projected potentials in V Angstrom of the slices of one cell: [slices_per_cell][ny * nx]
/// row-major, pixel (iy, ix) at (ix Lx_super / nx, iy Ly_super / ny). Each atom's whole potential
/// goes to the slice holding its centre (z in [s dz, (s + 1) dz)). Built in reciprocal space,
/// v(q) = 2 pi a0 e / A sum_j f_j(|q|) exp(-B |q|^2 / 4) exp(-2 pi i q.r_j), so the atoms need no
/// real-space cut-off; `fft` must be ny x nx and its buffer is overwritten.
std::vector<std::vector<double>> projected_potentials(
    const Crystal& along_beam, const SliceGrid& grid, Fft2d& fft, double debye_waller_b = 0,
    ScatteringModel model = ScatteringModel::lobato);

/// The spatial frequency (1/Angstrom, signed, FFT order) of index i on an n-point axis of length L.
inline double frequency(int i, int n, double length) {
  return (i < (n + 1) / 2 ? i : i - n) / length;
}

}  // namespace cbed
