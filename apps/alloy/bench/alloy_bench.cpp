// Attempted Kawasaki swaps per second of the pair-model Monte Carlo on one core: the nearest-
// neighbour model (16 neighbour reads a swap) and a 6-shell model (128), bcc 16³ cells (8192
// sites) at kT = 6 V (near Tc: a mix of accepted and refused swaps). Median of 5 runs of 200
// sweeps each.
//   exadnn_alloy_bench [SWEEPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "alloy/kawasaki.h"

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
}
