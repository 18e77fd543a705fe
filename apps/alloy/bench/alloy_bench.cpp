// Attempted Kawasaki swaps per second of the pair-model Monte Carlo on one core: the nearest-
// neighbour model (16 neighbour reads a swap) and a 6-shell model (128), bcc 16³ cells (8192
// sites) at kT = 6 V (near Tc: a mix of accepted and refused swaps). Median of 5 runs of 200
// sweeps each. With LAMMPS: the cost of one lammps_eam energy call (NiAl EAM) against one
// surrogate energy change (the 5-shell pair model) on the same cells, median of 5.
//   exadnn_alloy_bench [SWEEPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "alloy/kawasaki.h"
#ifdef ALLOY_WITH_LAMMPS
#include "alloy/lammps_oracle.h"
#endif

using namespace alloy;

namespace {

double swaps_per_second(const Lattice& lattice, const PairEnergy& model, int64_t sweeps) {
  const PairSwapEnergy energy(model);
  Rng rng(1);
  const int64_t half = lattice.sites() / 2;
  KawasakiWalk walk(lattice, random_configuration(lattice, {{"A", "B"}, {half, half}}, rng),
                    energy);
  metropolis_sweeps(walk, 6.0, 20, rng);  // warm up
  std::vector<double> rates;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    metropolis_sweeps(walk, 6.0, sweeps, rng);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(static_cast<double>(sweeps * lattice.sites()) / s);
  }
  std::sort(rates.begin(), rates.end());
  return rates[2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#ifdef ALLOY_WITH_LAMMPS
// Seconds per lammps_eam call and per surrogate swap change on bcc `cells`³, 5 shells.
void lammps_versus_surrogate(int cells) {
  const Lattice lattice(Structure::bcc, cells, 5);
  LammpsOracle oracle(lattice, {});
  Rng rng(3);
  const int64_t half = lattice.sites() / 2;
  const Occupation state = random_configuration(lattice, {{"Ni", "Al"}, {half, half}}, rng);
  const PairEnergy surrogate = PairEnergy::ising({0.05, 0.02, 0.01, 0.005, 0.002});
  std::vector<double> call, change;
  for (int run = 0; run < 5; ++run) {
    auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) oracle.energy(state);
    call.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                   20);
    start = std::chrono::steady_clock::now();
    double sink = 0;
    for (int k = 0; k < 100000; ++k)
      sink += surrogate.swap_change(lattice, state, rng.below(static_cast<uint32_t>(half * 2)),
                                    lattice.neighbours(0, k % lattice.sites())[0]);
    change.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 1e5);
    if (sink == 12345.678) std::printf(" ");  // keeps the loop
  }
  std::printf(
      "  bcc %d^3 (%lld atoms): lammps_eam call %.3g ms, surrogate swap change %.3g ns: "
      "ratio %.3g\n",
      cells, static_cast<long long>(lattice.sites()), 1e3 * median(call), 1e9 * median(change),
      median(call) / median(change));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const int64_t sweeps = argc > 1 ? std::atoll(argv[1]) : 200;
  const Lattice nn(Structure::bcc, 16, 1), six(Structure::bcc, 16, 6);
  const double one_shell = swaps_per_second(nn, PairEnergy::ising({1.0}), sweeps);
  const double six_shells =
      swaps_per_second(six, PairEnergy::ising({1.0, 0.5, 0.2, 0.1, 0.05, 0.02}), sweeps);
  std::printf("bcc 16^3 (8192 sites), kT = 6 V, median of 5 x %lld sweeps, one core\n",
              static_cast<long long>(sweeps));
  std::printf("  nearest-neighbour pair model: %.3g attempted swaps/s\n", one_shell);
  std::printf("  6-shell pair model:           %.3g attempted swaps/s\n", six_shells);
#ifdef ALLOY_WITH_LAMMPS
  std::printf("one energy from LAMMPS (NiAl EAM, ideal lattice) vs one surrogate energy change:\n");
  for (const int cells : {4, 8}) lammps_versus_surrogate(cells);
#endif
}
