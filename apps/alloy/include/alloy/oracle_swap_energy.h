// Any oracle as the energy model of a Monte Carlo walk: a swap's energy change is the difference of
// two oracle energies (the swapped configuration's and the current one's, kept from the previous
// call), so a walk costs one oracle call per unlike-pair proposal. How the oracle-driven runs that
// surrogates are checked against are made (e.g. LAMMPS-driven Monte Carlo on a small cell).
#pragma once

#include "alloy/kawasaki.h"
#include "alloy/oracle.h"

namespace alloy {

class OracleSwapEnergy : public SwapEnergy {
 public:
  /// `oracle` must outlive this; its calls are counted as usual.
  explicit OracleSwapEnergy(EnergyOracle& oracle) : oracle_(oracle) {}
  double total(const Lattice&, const Occupation& occupation) const override {
    return energy_of(occupation);
  }
  double swap_change(const Lattice&, const Occupation& occupation, int64_t i,
                     int64_t j) const override {
    const double before = energy_of(occupation);
    Occupation swapped = occupation;
    std::swap(swapped[i], swapped[j]);
    const double after = oracle_.energy(swapped);
    last_ = std::move(swapped);  // the walk's next state if it accepts
    last_energy_ = after;
    return after - before;
  }

 private:
  // The energy of `occupation`: remembered when it is the current or the last proposed state.
  double energy_of(const Occupation& occupation) const {
    if (occupation != current_) {
      if (occupation == last_) {
        current_ = last_;
        current_energy_ = last_energy_;
      } else {
        current_ = occupation;
        current_energy_ = oracle_.energy(occupation);
      }
    }
    return current_energy_;
  }
  EnergyOracle& oracle_;
  mutable Occupation current_, last_;
  mutable double current_energy_ = 0, last_energy_ = 0;
};

}  // namespace alloy
