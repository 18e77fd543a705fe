// Wang–Landau against the exact density of states of the 4x4 periodic Ising lattice, enumerated
// by brute force over all 2^16 states (the check: ln g within 1 % at every level), and the
// thermodynamics from it against the exact Boltzmann sums; plus seeds, bad options and a run that
// cannot converge.
#include <exadnn/core/error.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "alloy/ising2d.h"
#include "alloy/wang_landau.h"

using alloy::DensityOfStates;
using alloy::EnergyLevel;
using alloy::Ising2d;
using alloy::WangLandauOptions;
using alloy::WangLandauResult;
using alloy::WangLandauSchedule;

namespace {

constexpr int kL = 4;
constexpr double kStates = 65536;  // 2^16

// The 4x4 lattice's energies are -32, -24, -20, ..., 24, 32 (J = 1): bins of width 4 centred on
// them, two of which (+-28) no state has.
WangLandauOptions ising_options() {
  WangLandauOptions o;
  o.e_min = -34;
  o.e_max = 34;
  o.bin_width = 4;
  return o;
}

size_t bin_of_level(double energy) {
  return static_cast<size_t>((energy + 34) / 4);
}

// Exact U, C, F, S from the level counts by direct sums (no logs needed at these temperatures).
alloy::Thermodynamics exact_thermodynamics(const std::vector<EnergyLevel>& levels, double t) {
  long double z = 0, e1 = 0, e2 = 0;
  for (const EnergyLevel& level : levels) {
    const long double w = level.count * std::exp(-static_cast<long double>(level.energy) / t);
    z += w;
    e1 += w * level.energy;
    e2 += w * level.energy * level.energy;
  }
  alloy::Thermodynamics x;
  x.temperature = t;
  x.energy = static_cast<double>(e1 / z);
  x.heat_capacity = static_cast<double>((e2 / z - (e1 / z) * (e1 / z)) / (t * t));
  x.free_energy = static_cast<double>(-t * std::log(z));
  x.entropy = (x.energy - x.free_energy) / t;
  return x;
}

// The exact levels as a DensityOfStates on the bins of ising_options().
DensityOfStates exact_density(const std::vector<EnergyLevel>& levels) {
  const WangLandauOptions o = ising_options();
  DensityOfStates d;
  d.e_min = o.e_min;
  d.bin_width = o.bin_width;
  d.ln_g.assign(17, 0.0);
  d.visited.assign(17, 0);
  d.energy.resize(17);
  for (size_t i = 0; i < 17; ++i) d.energy[i] = d.bin_centre(i);
  for (const EnergyLevel& level : levels) {
    const size_t i = bin_of_level(level.energy);
    d.ln_g[i] = std::log(static_cast<double>(level.count));
    d.visited[i] = 1;
  }
  return d;
}

// A run of the 1/t schedule down to ln_f_final (~15 / ln_f_final steps), normalized to 2^16.
WangLandauResult one_over_t_run(double ln_f_final) {
  Ising2d ising(kL);
  WangLandauOptions o = ising_options();
  o.schedule = WangLandauSchedule::kOneOverT;
  o.ln_f_final = ln_f_final;
  o.seed = 1;
  WangLandauResult r = alloy::wang_landau(ising, o);
  r.normalize(kStates);
  return r;
}

// The largest |ln g_WL - ln g_exact| / ln g_exact over the levels.
double worst_relative_error(const DensityOfStates& d, const std::vector<EnergyLevel>& levels) {
  double worst = 0;
  for (const EnergyLevel& level : levels) {
    const double exact = std::log(static_cast<double>(level.count));
    worst = std::max(worst, std::abs(d.ln_g[bin_of_level(level.energy)] - exact) / exact);
  }
  return worst;
}

// The message of the exadnn::Error that wang_landau throws for `o` ("" when it does not throw).
std::string error_of(const WangLandauOptions& o) {
  Ising2d ising(kL);
  try {
    alloy::wang_landau(ising, o);
  } catch (const exadnn::Error& e) {
    return e.what();
  }
  return "";
}

// Two energies, 0 and 1: the first three moves leave the window (rejected: the walk stays at 0),
// then from 0 the only move goes up to 1 and from 1 it leaves the window. The walk reaches 1 and
// stays, so the histogram is never flat: bin 0 holds 3 of the first check's 40 steps, then none.
class Ratchet : public alloy::WalkableSystem {
 public:
  double energy() const override { return e_; }
  double propose(alloy::Rng&) override { return ++proposals_ <= 3 ? 100 : 1; }
  void accept() override { e_ += 1; }
  int64_t sites() const override { return 4; }

 private:
  double e_ = 0;
  int proposals_ = 0;
};

}  // namespace

TEST(Ising2d, EnumerationGivesTheKnownDensityOfStates) {
  const std::vector<EnergyLevel> levels = alloy::ising2d_exact_levels(kL);
  const std::vector<double> energies = {-32, -24, -20, -16, -12, -8, -4, 0,
                                        4,   8,   12,  16,  20,  24, 32};
  const std::vector<uint64_t> counts = {2,     32,   64,   424, 1728, 6688, 13568, 20524,
                                        13568, 6688, 1728, 424, 64,   32,   2};
  ASSERT_EQ(levels.size(), energies.size());
  for (size_t k = 0; k < levels.size(); ++k) {
    EXPECT_EQ(levels[k].energy, energies[k]);
    EXPECT_EQ(levels[k].count, counts[k]) << "E = " << energies[k];
  }
  EXPECT_THROW(alloy::ising2d_exact_levels(6), exadnn::Error);  // 2^36 states: refused
}

TEST(Ising2d, TheTrackedEnergyFollowsTheFlips) {
  Ising2d ising(5, 0.7);
  EXPECT_EQ(ising.energy(), -0.7 * 50);
  alloy::Rng rng(3);
  for (int move = 0; move < 1000; ++move) {
    const double before = ising.energy(), change = ising.propose(rng);
    if (rng.uniform() < 0.5) {
      ising.accept();
      EXPECT_NEAR(ising.energy(), before + change, 1e-12);
    }
  }
  const double tracked = ising.energy();
  Ising2d recount(5, 0.7);
  recount.set_spins(ising.spins());  // recounts the bonds from scratch
  EXPECT_NEAR(recount.energy(), tracked, 1e-12);
  EXPECT_THROW(ising.accept(), exadnn::Error);  // nothing proposed since the last accept
  EXPECT_THROW(Ising2d(1), exadnn::Error);
}

TEST(WangLandau, LnGMatchesTheExactEnumerationWithinOnePercent) {
  const std::vector<EnergyLevel> levels = alloy::ising2d_exact_levels(kL);
  // 1.5e8 steps, ~3 s; over seeds 1-20 the worst level's error is 0.18 % to 1.1 % (median 0.4 %).
  const WangLandauResult r = one_over_t_run(1e-7);
  EXPECT_TRUE(r.converged);
  EXPECT_TRUE(r.one_over_t);
  EXPECT_LT(r.ln_f, 1e-7);
  // The walk finds exactly the levels: the +-28 bins, which no state has, stay unvisited, and
  // each visited bin's energy is its level's.
  const DensityOfStates exact = exact_density(levels);
  EXPECT_EQ(r.visited, exact.visited);
  for (const EnergyLevel& level : levels)
    EXPECT_EQ(r.energy[bin_of_level(level.energy)], level.energy);
  const double worst = worst_relative_error(r, levels);
  EXPECT_LT(worst, 0.01);
  RecordProperty("max_relative_error_ln_g", std::to_string(worst));
  std::printf("max relative error of ln g over the 15 levels: %.4f %%\n", 100 * worst);
}

TEST(WangLandau, ThermodynamicsMatchTheExactOnesAtSeveralTemperatures) {
  const std::vector<EnergyLevel> levels = alloy::ising2d_exact_levels(kL);
  // A shorter run (1.5e7 steps) than the ln g check's: over seeds 1-20 its worst errors are
  // 0.005 per site in U, 1.4 % in C, 0.002 per site in F and S.
  const WangLandauResult r = one_over_t_run(1e-6);
  const double n = kL * kL;
  for (const double t : {1.0, 1.5, 2.0, 2.269, 2.5, 3.0, 5.0, 10.0}) {
    const alloy::Thermodynamics exact = exact_thermodynamics(levels, t), wl = r.thermodynamics(t);
    EXPECT_EQ(wl.temperature, t);
    EXPECT_NEAR(wl.energy, exact.energy, 0.01 * n) << "U at T = " << t;
    EXPECT_NEAR(wl.heat_capacity, exact.heat_capacity, 0.03 * exact.heat_capacity)
        << "C at T = " << t;
    EXPECT_NEAR(wl.free_energy, exact.free_energy, 0.005 * n) << "F at T = " << t;
    EXPECT_NEAR(wl.entropy, exact.entropy, 0.005 * n) << "S at T = " << t;
  }
}

TEST(WangLandau, ThermodynamicsStayFiniteAtExtremeTemperatures) {
  const std::vector<EnergyLevel> levels = alloy::ising2d_exact_levels(kL);
  const DensityOfStates exact = exact_density(levels);
  // Where the direct sums are safe, the log-sum-exp gives the same numbers.
  for (const double t : {0.7, 2.0, 40.0}) {
    const alloy::Thermodynamics a = exact.thermodynamics(t), b = exact_thermodynamics(levels, t);
    EXPECT_NEAR(a.energy, b.energy, 1e-10);
    EXPECT_NEAR(a.heat_capacity, b.heat_capacity, 1e-10);
    EXPECT_NEAR(a.free_energy, b.free_energy, 1e-10);
    EXPECT_NEAR(a.entropy, b.entropy, 1e-10);
  }
  // exp(32 / 1e-3) overflows a double; the log-sum-exp does not: the two ground states.
  const alloy::Thermodynamics cold = exact.thermodynamics(1e-3);
  EXPECT_NEAR(cold.energy, -32, 1e-12);
  EXPECT_NEAR(cold.heat_capacity, 0, 1e-12);
  EXPECT_NEAR(cold.free_energy, -32 - 1e-3 * std::log(2.0), 1e-12);
  EXPECT_NEAR(cold.entropy, std::log(2.0), 1e-9);
  // Infinitely hot: every one of the 2^16 states equally likely.
  const alloy::Thermodynamics hot = exact.thermodynamics(1e12);
  EXPECT_NEAR(hot.energy, 0, 1e-6);
  EXPECT_NEAR(hot.entropy, 16 * std::log(2.0), 1e-9);
  EXPECT_THROW(exact.thermodynamics(0), exadnn::Error);
  EXPECT_THROW(exact.thermodynamics(-1), exadnn::Error);
}

TEST(WangLandau, NormalizeMakesTheVisitedGSumToTheTotal) {
  DensityOfStates d = exact_density(alloy::ising2d_exact_levels(kL));
  for (size_t i = 0; i < d.bins(); ++i)
    if (d.visited[i]) d.ln_g[i] += 1234.5;  // g far beyond a double: exp(1245) overflows
  d.normalize(kStates);
  double sum = 0;
  for (size_t i = 0; i < d.bins(); ++i)
    if (d.visited[i]) sum += std::exp(d.ln_g[i]);
  EXPECT_NEAR(sum, kStates, 1e-8 * kStates);
  EXPECT_NEAR(d.ln_g[0], std::log(2.0), 1e-12);
  EXPECT_THROW(d.normalize(0), exadnn::Error);
}

TEST(WangLandau, TheHalvingScheduleConvergesToItsSaturatedError) {
  // Wang and Landau's original schedule: ln f halves 27 times from 1 to below 1e-8, but its
  // error freezes in early: 4 % to 28 % at the worst level over seeds 1-20 with these options
  // (what the 1/t schedule is for).
  Ising2d ising(kL);
  WangLandauOptions o = ising_options();
  std::vector<alloy::WangLandauProgress> reports;
  o.progress = [&](const alloy::WangLandauProgress& p) { reports.push_back(p); };
  WangLandauResult r = alloy::wang_landau(ising, o);
  EXPECT_TRUE(r.converged);
  EXPECT_FALSE(r.one_over_t);
  EXPECT_EQ(r.stages, 27);
  EXPECT_LT(r.ln_f, 1e-8);
  r.normalize(kStates);
  EXPECT_LT(worst_relative_error(r, alloy::ising2d_exact_levels(kL)), 0.3);
  // One report per flatness check: sweeps grow by check_every, ln f halves after each flat one.
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().sweeps, r.sweeps);
  EXPECT_EQ(reports.back().visited_bins, 15);
  for (size_t k = 1; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].sweeps, reports[k - 1].sweeps + o.check_every);
    EXPECT_EQ(reports[k].ln_f, reports[k - 1].flat ? reports[k - 1].ln_f / 2 : reports[k - 1].ln_f);
  }
}

TEST(WangLandau, TheSameSeedGivesTheSameNumbers) {
  WangLandauOptions o = ising_options();
  o.schedule = WangLandauSchedule::kOneOverT;
  o.ln_f_final = 1e-5;
  auto run = [&](uint64_t seed) {
    Ising2d ising(kL);
    o.seed = seed;
    return alloy::wang_landau(ising, o);
  };
  const WangLandauResult a = run(7), b = run(7), c = run(8);
  EXPECT_EQ(a.ln_g, b.ln_g);  // bit for bit
  EXPECT_EQ(a.energy, b.energy);
  EXPECT_EQ(a.visited, b.visited);
  EXPECT_EQ(a.sweeps, b.sweeps);
  EXPECT_EQ(a.stages, b.stages);
  EXPECT_NE(a.ln_g, c.ln_g);
}

TEST(WangLandau, RunningOutOfSweepsReportsNoConvergence) {
  // A histogram that can never be flat: the run stops at max_sweeps with ln f still 1.
  Ratchet ratchet;
  WangLandauOptions o;
  o.e_min = 0;
  o.e_max = 2;
  o.bin_width = 1;
  o.check_every = 10;
  o.max_sweeps = 1000;
  WangLandauResult r = alloy::wang_landau(ratchet, o);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.sweeps, 1000);
  EXPECT_EQ(r.ln_f, 1.0);
  EXPECT_EQ(r.stages, 0);
  EXPECT_EQ(r.visited, (std::vector<uint8_t>{1, 1}));
  // A flat-histogram walk given too few sweeps for 27 halvings stops unconverged too.
  Ising2d ising(kL);
  o = ising_options();
  o.check_every = 10;
  o.max_sweeps = 200;
  r = alloy::wang_landau(ising, o);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.sweeps, 200);
  EXPECT_GE(r.ln_f, 1e-8);
}

TEST(WangLandau, BadOptionsAreErrorsNamingTheOption) {
  auto expect_error = [](const WangLandauOptions& o, const std::string& name) {
    const std::string message = error_of(o);
    EXPECT_NE(message.find(name), std::string::npos)
        << "expected an error naming " << name << ", got \"" << message << "\"";
  };
  WangLandauOptions o = ising_options();
  o.e_max = o.e_min;
  expect_error(o, "e_max = -34 must be > e_min = -34");
  o = ising_options();
  o.e_max = -40;
  expect_error(o, "e_max");
  for (const double width : {0.0, -4.0, std::nan("")}) {
    o = ising_options();
    o.bin_width = width;
    expect_error(o, "bin_width");
  }
  for (const double flatness : {0.0, 1.0, 1.5, -0.2}) {
    o = ising_options();
    o.flatness = flatness;
    expect_error(o, "flatness");
  }
  o = ising_options();
  o.ln_f_final = 2;  // above ln_f_initial = 1
  expect_error(o, "ln_f_final");
  o = ising_options();
  o.check_every = 0;
  expect_error(o, "check_every");
  o = ising_options();
  o.max_sweeps = 0;
  expect_error(o, "max_sweeps");
  o = ising_options();
  o.e_min = -20;  // the all-up start, E = -32, lies outside the window
  expect_error(o, "starts at E = -32, outside the window");
  EXPECT_EQ(error_of(ising_options()).size(), 0u) << "(a valid run threw)";
}
