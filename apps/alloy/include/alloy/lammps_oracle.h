// The `lammps_eam` oracle: LAMMPS as a C++ library (Debian's liblammps) computing the energy of a
// configuration with an EAM potential (an eam/alloy or eam/fs file, e.g. lammps-data's
// NiAlH_jea.eam.alloy for NiAl), on the ideal lattice or after relaxing the positions. One
// LAMMPS instance per oracle (per module rank), built once; a call only changes the atom types.
//
// LAMMPS in Debian is built without C++ exceptions: an error inside it ends the MPI job with its
// own message ("ERROR: ..."). So everything this class hands to LAMMPS is checked first (the
// potential file is readable and holds the elements, the lattice constant is sane), with
// messages naming the culprit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "alloy/oracle.h"

namespace alloy {

struct LammpsOptions {
  /// eam/alloy (.eam.alloy) or eam/fs (.eam.fs) potential; a bare name is looked up in
  /// /usr/share/lammps/potentials.
  std::string potential = "NiAlH_jea.eam.alloy";
  std::vector<std::string> elements{"Ni", "Al"};  ///< species 0, 1, ... of the configurations
  double lattice_constant = 2.887;                ///< Å (B2 NiAl)
  bool relax = false;  ///< minimise the positions (fixed box) before taking the energy
};

class LammpsOracle : public EnergyOracle {
 public:
  /// Starts LAMMPS on MPI_COMM_SELF (initialising MPI if nobody has) and builds the cell.
  LammpsOracle(const Lattice& lattice, LammpsOptions options);
  ~LammpsOracle() override;
  std::string describe() const override;
  /// The potential file in use (after the lookup).
  const std::string& potential_path() const { return path_; }

 protected:
  double compute(const Occupation& occupation) override;

 private:
  const Lattice& lattice_;
  LammpsOptions options_;
  std::string path_;
  std::vector<double> ideal_;  // [sites × 3] Å, the ideal positions (restored before a relax)
  void* lammps_ = nullptr;
};

/// The elements an EAM potential file holds (its 4th line), or an error naming the file.
std::vector<std::string> eam_elements(const std::string& path);

}  // namespace alloy
