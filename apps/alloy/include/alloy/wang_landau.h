// Wang–Landau sampling of the density of states g(E) (F. Wang and D. P. Landau, PRL 86, 2050
// (2001)) of any WalkableSystem. A random walk in energy accepts a move from bin i to bin j with
// probability min(1, g_i / g_j) and multiplies g of the bin it is in by f after every step; when
// the visit histogram is flat, ln f is halved and the histogram cleared, until ln f is below a
// final value. The walk then visits all energies equally often, so one run gives g(E) over the
// whole window and from it the thermodynamics at every temperature. The 1/t schedule
// (WangLandauSchedule::kOneOverT) removes the original schedule's error saturation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "alloy/walkable.h"

namespace alloy {

/// U, C, F and S at one temperature from a density of states (k_B = 1: T in energy units).
struct Thermodynamics {
  double temperature = 0;    ///< T
  double energy = 0;         ///< U = <E>
  double heat_capacity = 0;  ///< C = (<E^2> - <E>^2) / T^2
  double free_energy = 0;    ///< F = -T ln Z (absolute only once ln g is normalized)
  double entropy = 0;        ///< S = (U - F) / T (likewise)
};

/// ln g on energy bins of width w = `bin_width` from `e_min`: bin i holds the energies in
/// [e_min + i w, e_min + (i + 1) w).
struct DensityOfStates {
  double e_min = 0;
  double bin_width = 1;
  /// The energy standing for each bin: the mean energy of the states the walk visited in it (the
  /// level itself when a bin holds one discrete level), the bin's centre where nothing was visited.
  std::vector<double> energy;
  /// ln g per bin, up to an additive constant until normalize(); meaningless where !visited.
  std::vector<double> ln_g;
  /// 1 where the walk reached the bin (the bins the density of states is known on), else 0.
  std::vector<uint8_t> visited;

  size_t bins() const { return ln_g.size(); }
  double bin_centre(size_t i) const { return e_min + (static_cast<double>(i) + 0.5) * bin_width; }
  /// Shifts ln g so that the sum of g over the visited bins is `total` (e.g. 2^N states of N
  /// spins); a log-sum-exp, so ln g of any size is fine. Throws an exadnn::Error unless total > 0.
  void normalize(double total);
  /// U, C, F, S at temperature T > 0 over the visited bins, by log-sum-exp (no overflow at any T).
  Thermodynamics thermodynamics(double temperature) const;
};

/// What the walk reports at each flatness check (for a progress line or a log).
struct WangLandauProgress {
  int64_t sweeps = 0;        ///< sweeps done so far (a sweep is sites() proposals)
  int stage = 0;             ///< ln f halvings so far
  double ln_f = 0;           ///< the current ln f
  double flatness = 0;       ///< this stage's min / mean histogram over the visited bins
  int64_t visited_bins = 0;  ///< bins reached so far
  bool flat = false;  ///< whether this check ended the stage (ln f is halved next; never in 1/t)
};

/// How ln f decreases.
enum class WangLandauSchedule {
  /// Wang and Landau's: ln f halves whenever the histogram is flat. Its error saturates (later
  /// stages are too short to undo what earlier ones froze in): on the 4x4 Ising lattice with the
  /// default options, 4 % to 28 % in ln g at the worst level over 20 seeds, ln f down to 1e-8.
  kHalving,
  /// Belardinelli and Pereyra's (PRE 75, 046701 (2007)): halving as above until ln f would fall
  /// below 1/t (t = steps / visited bins), then ln f = 1/t after every step, without flatness
  /// checks; the error keeps falling as ~sqrt(ln f). The run lasts ~ visited bins / ln_f_final
  /// steps, so pick ln_f_final ~ 1e-6 rather than 1e-8 for it.
  kOneOverT,
};

struct WangLandauOptions {
  double e_min = 0;       ///< lower edge of the energy window (must be set)
  double e_max = 0;       ///< upper edge, exclusive: moves to E outside [e_min, e_max) are rejected
  double bin_width = 1;   ///< > 0; ceil((e_max - e_min) / bin_width) bins
  double flatness = 0.8;  ///< in (0, 1): flat when min >= flatness * mean over the visited bins
  double ln_f_initial = 1.0;         ///< > 0, the first ln f
  double ln_f_final = 1e-8;          ///< in (0, ln_f_initial): converged once ln f drops below it
  int64_t check_every = 100;         ///< sweeps between flatness checks (>= 1)
  int64_t max_sweeps = 100'000'000;  ///< stop, not converged, after this many sweeps (>= 1)
  WangLandauSchedule schedule = WangLandauSchedule::kHalving;
  uint64_t seed = 1;  ///< the walk's random stream: same seed (and start), same numbers
  /// Called at every flatness check when set.
  std::function<void(const WangLandauProgress&)> progress;
};

struct WangLandauResult : DensityOfStates {
  /// Whether ln f fell below ln_f_final. False when max_sweeps ran out first: ln g is then the
  /// estimate reached so far, with an error of the order of the ln f it stopped at.
  bool converged = false;
  double ln_f = 0;          ///< ln f at the end: below ln_f_final when converged
  int stages = 0;           ///< ln f halvings done
  int64_t sweeps = 0;       ///< sweeps done
  bool one_over_t = false;  ///< whether a kOneOverT run reached its 1/t phase
};

/// Runs Wang–Landau on `system` from its current state, which must have an energy inside
/// [e_min, e_max) (the walk moves the system; it ends in whatever state the walk reached). Throws
/// an exadnn::Error naming the option for bad options (e_max <= e_min, bin_width <= 0, flatness
/// outside (0, 1), ...) and for a start outside the window. Not reaching ln_f_final within
/// max_sweeps is no error: the result says converged = false. ln g comes back with its minimum
/// over the visited bins at 0; normalize() it for absolute values.
WangLandauResult wang_landau(WalkableSystem& system, const WangLandauOptions& options);

}  // namespace alloy
