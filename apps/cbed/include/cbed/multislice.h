// CBED patterns by multislice (J. M. Cowley and A. F. Moodie, Acta Cryst. 10 (1957) 609; as in
// E. J. Kirkland, "Advanced Computing in Electron Microscopy", 2nd ed., 2010, ch. 6): a convergent
// probe enters the crystal; each slice multiplies the wave by its transmission function
// t(r) = exp(i sigma v_z(r)) and propagates it by the slice thickness with the Fresnel propagator
// P(k) = exp(-i pi lambda dz |k|^2); the pattern at the detector is |psi(k)|^2 at the exit.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "cbed/crystal.h"
#include "cbed/fft2d.h"
#include "cbed/projected_potential.h"
#include "cbed/rng.h"
#include "cbed/scattering_factor.h"

namespace cbed {

struct MultisliceOptions {
  double kilovolts = 200;    // beam energy
  SliceGrid grid;            // FFT grid, in-plane tiles, slices per cell
  int cells = 10;            // crystal thickness in cells along the beam
  double aperture_mrad = 5;  // probe convergence semi-angle
  double defocus = 0;        // Angstrom; positive is underfocus (Kirkland's sign)
  double cs_mm = 0;          // spherical aberration, mm
  std::array<double, 2> probe_position{0.5, 0.5};  // (x, y) as fractions of the tiled plane
  double bandwidth = 2.0 / 3;  // fraction of the grid's Nyquist frequency kept (anti-aliasing);
                               // 1 keeps everything (and conserves intensity exactly)
  double debye_waller_b = 0;   // Angstrom^2, B = 8 pi^2 <u^2>: thermal damping of the
                               // potential, or with frozen phonons the atoms' displacements
  int frozen_phonons = 0;      // configurations averaged (0: a static lattice, damped by B)
  uint64_t phonon_seed = 1;    // the displacements' random stream
  ScatteringModel model = ScatteringModel::lobato;
  bool measure_fft = true;  // FFTW_MEASURE plans (else FFTW_ESTIMATE)
};

class Multislice {
 public:
  /// Slices and transmission functions of `along_beam` (a crystal from along_axis), the
  /// propagator and the probe; Error for bad options, naming them.
  Multislice(const Crystal& along_beam, MultisliceOptions options);
  ~Multislice();

  /// The CBED pattern [ny, nx] row-major, zero frequency at (ny / 2, nx / 2), for a probe of unit
  /// intensity (the sum is 1 less what scattered beyond the bandwidth limit).
  std::vector<double> pattern();
  /// The detector's pixel size in mrad along x and y (lambda / L).
  std::array<double, 2> pixel_mrad() const;
  /// The probe's pattern without a crystal (the same layout): its bright-field disc.
  std::vector<double> vacuum_pattern();
  const MultisliceOptions& options() const { return options_; }

 private:
  using Transmissions = std::vector<std::vector<std::complex<double>>>;  // [slice][ny * nx]
  std::vector<double> detector_intensity();
  void load_probe();
  // The transmission functions of a cell's slices, built with `fft` (whose buffer is overwritten).
  Transmissions transmissions(const Crystal& cell, const SliceGrid& grid, double debye_waller_b,
                              Fft2d& fft) const;
  // One cell of the tiled plane with every atom of every tile displaced at random: [1 x 1] tiles.
  Crystal displaced_cell();
  // Runs the probe through `cells` cells; the wave ends in fft_ in k space.
  void propagate_static();
  void propagate_frozen();

  MultisliceOptions options_;
  Crystal cell_;  // the crystal as given, for the frozen-phonon configurations
  double lx_, ly_, dz_, lambda_;
  Fft2d fft_;
  std::vector<double> band_;    // [ny * nx] FFT order: 1 / N inside the bandwidth, else 0
  Transmissions transmission_;  // the static lattice's slices of a cell
  std::vector<std::complex<double>> propagator_;  // [ny*nx], FFT order, /N included
  std::unique_ptr<Fft2d> scratch_;                // frozen phonons: the potentials' FFT
  Rng phonon_rng_;
  std::vector<std::complex<double>> probe_;  // [ny*nx] real space, unit norm
};

}  // namespace cbed
