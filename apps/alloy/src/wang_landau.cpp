#include "alloy/wang_landau.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alloy {

namespace {

constexpr const char* kWhere = "alloy::wang_landau";

void check_options(const WangLandauOptions& o) {
  EXADNN_CHECK(std::isfinite(o.e_min) && std::isfinite(o.e_max), kWhere, "e_min = ", o.e_min,
               " and e_max = ", o.e_max, " must be finite");
  EXADNN_CHECK(o.e_max > o.e_min, kWhere, "e_max = ", o.e_max, " must be > e_min = ", o.e_min);
  EXADNN_CHECK(std::isfinite(o.bin_width) && o.bin_width > 0, kWhere, "bin_width = ", o.bin_width,
               " must be a finite number > 0");
  const double bins = std::ceil((o.e_max - o.e_min) / o.bin_width);
  EXADNN_CHECK(bins <= 1e8, kWhere, "bin_width = ", o.bin_width, " makes ", bins,
               " bins of [e_min, e_max) = [", o.e_min, ", ", o.e_max, "); at most 1e8");
  EXADNN_CHECK(o.flatness > 0 && o.flatness < 1, kWhere, "flatness = ", o.flatness,
               " must be in (0, 1)");
  EXADNN_CHECK(std::isfinite(o.ln_f_initial) && o.ln_f_initial > 0, kWhere,
               "ln_f_initial = ", o.ln_f_initial, " must be a finite number > 0");
  EXADNN_CHECK(o.ln_f_final > 0 && o.ln_f_final < o.ln_f_initial, kWhere,
               "ln_f_final = ", o.ln_f_final, " must be in (0, ln_f_initial = ", o.ln_f_initial,
               ")");
  EXADNN_CHECK(o.check_every >= 1, kWhere, "check_every = ", o.check_every, " must be >= 1");
  EXADNN_CHECK(o.max_sweeps >= 1, kWhere, "max_sweeps = ", o.max_sweeps, " must be >= 1");
}

// The bin of an energy inside [e_min, e_max) (clamped: rounding may put e_max - tiny on `bins`).
// A multiplication by 1 / width, not a division: monotone in e all the same.
size_t bin_of(double e, double e_min, double inverse_width, size_t bins) {
  return std::min(static_cast<size_t>((e - e_min) * inverse_width), bins - 1);
}

// min / mean of the histogram over the visited bins (0, not flat, while it is empty).
double flatness_of(const std::vector<int64_t>& histogram, const std::vector<uint8_t>& visited) {
  int64_t lowest = std::numeric_limits<int64_t>::max(), sum = 0, count = 0;
  for (size_t i = 0; i < histogram.size(); ++i)
    if (visited[i]) {
      lowest = std::min(lowest, histogram[i]);
      sum += histogram[i];
      ++count;
    }
  if (sum == 0) return 0.0;
  return static_cast<double>(lowest) * static_cast<double>(count) / static_cast<double>(sum);
}

// Shifts ln g so that its minimum over the visited bins is 0.
void shift_to_zero_minimum(DensityOfStates& d) {
  double low = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < d.bins(); ++i)
    if (d.visited[i]) low = std::min(low, d.ln_g[i]);
  for (size_t i = 0; i < d.bins(); ++i)
    if (d.visited[i]) d.ln_g[i] -= low;
}

}  // namespace

void DensityOfStates::normalize(double total) {
  EXADNN_CHECK(std::isfinite(total) && total > 0, "alloy::DensityOfStates::normalize",
               "total = ", total, " must be a finite number > 0");
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < bins(); ++i)
    if (visited[i]) top = std::max(top, ln_g[i]);
  EXADNN_CHECK(std::isfinite(top), "alloy::DensityOfStates::normalize", "no bin is visited");
  double sum = 0;
  for (size_t i = 0; i < bins(); ++i)
    if (visited[i]) sum += std::exp(ln_g[i] - top);
  const double shift = std::log(total) - (top + std::log(sum));
  for (size_t i = 0; i < bins(); ++i)
    if (visited[i]) ln_g[i] += shift;
}

Thermodynamics DensityOfStates::thermodynamics(double temperature) const {
  constexpr const char* where = "alloy::DensityOfStates::thermodynamics";
  EXADNN_CHECK(std::isfinite(temperature) && temperature > 0, where, "temperature = ", temperature,
               " must be a finite number > 0");
  // Boltzmann weights a_i = ln g_i - E_i / T, scaled by the largest so every exp is <= 1.
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < bins(); ++i)
    if (visited[i]) top = std::max(top, ln_g[i] - energy[i] / temperature);
  EXADNN_CHECK(std::isfinite(top), where, "no bin is visited");
  double z = 0, e1 = 0;
  for (size_t i = 0; i < bins(); ++i)
    if (visited[i]) {
      const double w = std::exp(ln_g[i] - energy[i] / temperature - top);
      z += w;
      e1 += w * energy[i];
    }
  const double u = e1 / z;
  double var = 0;  // <(E - U)^2>, not <E^2> - U^2: no cancellation
  for (size_t i = 0; i < bins(); ++i)
    if (visited[i]) {
      const double w = std::exp(ln_g[i] - energy[i] / temperature - top);
      var += w * (energy[i] - u) * (energy[i] - u);
    }
  Thermodynamics t;
  t.temperature = temperature;
  t.energy = u;
  t.heat_capacity = var / z / (temperature * temperature);
  t.free_energy = -temperature * (top + std::log(z));  // ln Z = top + ln sum
  t.entropy = (u - t.free_energy) / temperature;
  return t;
}

WangLandauResult wang_landau(WalkableSystem& system, const WangLandauOptions& options) {
  check_options(options);
  const double e_min = options.e_min, e_max = options.e_max, width = options.bin_width;
  const double inverse_width = 1 / width;
  const size_t bins = static_cast<size_t>(std::ceil((e_max - e_min) / width));
  const int64_t sites = system.sites();
  EXADNN_CHECK(sites >= 1, kWhere, "the system has ", sites, " sites; a sweep needs >= 1");
  EXADNN_CHECK(options.max_sweeps <= std::numeric_limits<int64_t>::max() / sites, kWhere,
               "max_sweeps = ", options.max_sweeps, " times ", sites, " sites overflows int64");
  double e = system.energy();
  EXADNN_CHECK(e >= e_min && e < e_max, kWhere, "the system starts at E = ", e,
               ", outside the window [e_min, e_max) = [", e_min, ", ", e_max,
               "): start it inside (or widen the window)");

  WangLandauResult r;
  r.e_min = e_min;
  r.bin_width = width;
  r.ln_g.assign(bins, 0.0);
  r.visited.assign(bins, 0);
  std::vector<int64_t> histogram(bins, 0);
  std::vector<double> e_sum(bins, 0.0);  // for each bin's mean visited energy
  std::vector<int64_t> e_count(bins, 0);

  Rng rng(options.seed);
  double ln_f = options.ln_f_initial;
  bool one_over_t = false;  // in the 1/t phase: ln f = visited bins / steps, no more halving
  size_t bin = bin_of(e, e_min, inverse_width, bins);
  int64_t visited_bins = 0, steps = 0;
  const int64_t max_steps = options.max_sweeps * sites;
  const int64_t check_steps =
      options.check_every <= max_steps / sites ? options.check_every * sites : max_steps;
  while (!r.converged && steps < max_steps) {
    // check_every sweeps of the walk (fewer at the end of max_sweeps). Raw pointers keep the loop
    // in registers: the compiler cannot assume the calls into the system leave `r` alone.
    double* const ln_g = r.ln_g.data();
    uint8_t* const visited = r.visited.data();
    int64_t* const counts = histogram.data();
    for (const int64_t end = steps + std::min(check_steps, max_steps - steps); steps < end;) {
      const double e_new = e + system.propose(rng);
      if (e_new >= e_min && e_new < e_max) {  // false for NaN too: rejected
        const size_t to = bin_of(e_new, e_min, inverse_width, bins);
        const double ln_ratio = ln_g[bin] - ln_g[to];  // ln (g_from / g_to)
        if (ln_ratio >= 0 || rng.uniform() < std::exp(ln_ratio)) {
          system.accept();
          e = e_new;
          bin = to;
        }
      }
      ln_g[bin] += ln_f;
      ++counts[bin];
      e_sum[bin] += e - r.bin_centre(bin);  // offsets within the bin: no large sums
      ++e_count[bin];
      if (!visited[bin]) {
        visited[bin] = 1;
        ++visited_bins;
      }
      ++steps;
      if (one_over_t) {
        ln_f = static_cast<double>(visited_bins) / static_cast<double>(steps);
        if (ln_f < options.ln_f_final) {
          r.converged = true;
          break;
        }
      }
    }

    WangLandauProgress p;
    p.sweeps = steps / sites;
    p.stage = r.stages;
    p.ln_f = ln_f;
    p.flatness = flatness_of(histogram, r.visited);
    p.visited_bins = visited_bins;
    p.flat = !one_over_t && !r.converged && p.flatness >= options.flatness;
    if (options.progress) options.progress(p);
    if (p.flat) {  // next stage: a finer f and a fresh histogram
      ln_f *= 0.5;
      ++r.stages;
      std::fill(histogram.begin(), histogram.end(), 0);
      shift_to_zero_minimum(r);  // keeps ln g small: adding a tiny ln f is not lost to rounding
      if (ln_f < options.ln_f_final) r.converged = true;
    }
    // Belardinelli–Pereyra: once ln f would fall below 1/t, follow 1/t instead.
    const double inverse_time = static_cast<double>(visited_bins) / static_cast<double>(steps);
    if (options.schedule == WangLandauSchedule::kOneOverT && !one_over_t && !r.converged &&
        ln_f < inverse_time) {
      one_over_t = true;
      ln_f = inverse_time;
      if (ln_f < options.ln_f_final) r.converged = true;
    }
  }

  r.ln_f = ln_f;
  r.sweeps = steps / sites;
  r.one_over_t = one_over_t;
  shift_to_zero_minimum(r);
  r.energy.resize(bins);
  for (size_t i = 0; i < bins; ++i) {
    if (!r.visited[i]) r.ln_g[i] = 0;
    r.energy[i] =
        r.bin_centre(i) + (e_count[i] > 0 ? e_sum[i] / static_cast<double>(e_count[i]) : 0.0);
  }
  return r;
}

}  // namespace alloy
