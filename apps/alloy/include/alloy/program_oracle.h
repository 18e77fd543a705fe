// Oracles that are external programs: one run per configuration, the structure as JSON on its
// standard input, the energy as JSON on its standard output (flow::run_program). `gpaw` is one:
// real DFT through GPAW (apps/alloy/oracles/gpaw_energy.py, Debian's gpaw), for small cells.
//
// The JSON a program reads (oracles/gpaw_energy.py documents it in full):
//   {"symbols": [...], "cell": [[3], [3], [3]] (Å), "scaled_positions": [[3] per atom],
//    "settings": {...}}
// and prints {"energy_ev": <total energy, eV>, ...}.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "alloy/oracle.h"

namespace alloy {

/// A periodic cell of atoms as the programs take it.
struct AtomCell {
  std::vector<std::string> symbols;                     ///< [atoms]
  std::array<std::array<double, 3>, 3> cell{};          ///< rows are the cell vectors (Å)
  std::vector<std::array<double, 3>> scaled_positions;  ///< [atoms] fractions of the cell vectors
};

/// The lattice's cell (cells × a along each axis) with `elements[occupation[site]]` on each site;
/// an error naming the species when an occupation has no element.
AtomCell lattice_cell(const Lattice& lattice, const Occupation& occupation,
                      const std::vector<std::string>& elements, double lattice_constant);
/// The two-atom cubic cell of a B2 compound: `corner` at (0,0,0), `centre` at (½,½,½).
AtomCell b2_cell(const std::string& corner, const std::string& centre, double lattice_constant);
/// The one-atom primitive cell of an fcc element (a reference state of a formation energy).
AtomCell fcc_primitive_cell(const std::string& element, double lattice_constant);
/// The request a program reads: the cell plus `settings_json` (a JSON object, "{}" = defaults).
std::string cell_request(const AtomCell& cell, const std::string& settings_json = "{}");
/// The last line of a program's output that is a JSON object with a number "energy_ev" (a
/// program may print more before it); an error naming `program` and quoting the output when no
/// line is.
std::string result_line(const std::string& output, const std::string& program);
/// The "energy_ev" of result_line(output, program).
double energy_from_output(const std::string& output, const std::string& program);

struct ProgramOracleOptions {
  std::vector<std::string> command;   ///< the program and its arguments
  std::vector<std::string> elements;  ///< species 0, 1, ... of the configurations
  double lattice_constant = 2.887;    ///< Å
  std::string settings_json = "{}";   ///< passed to the program as "settings"
  double timeout_s = 0;               ///< 0 = none; past it the program is killed and reported
  std::string name = "program";       ///< in describe() and in errors ("gpaw")
};

/// Runs options.command once per energy; a program that fails (exit status, signal, time limit) is
/// an exadnn::Error naming it, the call, and the end of its stderr.
class ProgramOracle : public EnergyOracle {
 public:
  ProgramOracle(const Lattice& lattice, ProgramOracleOptions options);
  std::string describe() const override;

 protected:
  double compute(const Occupation& occupation) override;

 private:
  const Lattice& lattice_;
  ProgramOracleOptions options_;
};

/// Where gpaw_energy.py is: $ALLOY_GPAW_SCRIPT if set, else the source tree's copy.
std::string gpaw_script();

/// The `gpaw` oracle's options: gpaw_energy.py with plane waves of `ecut_ev` and k-points of
/// `kpoint_density` per Å⁻¹ (PBE, 0.1 eV Fermi smearing); `spin` "auto" (spin-polarised when
/// Fe/Co/Ni are present), "true" or "false".
ProgramOracleOptions gpaw_options(std::vector<std::string> elements, double lattice_constant,
                                  double ecut_ev = 300, double kpoint_density = 3.0,
                                  const std::string& spin = "auto");

}  // namespace alloy
