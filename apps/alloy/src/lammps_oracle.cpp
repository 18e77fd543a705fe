#define LAMMPS_LIB_MPI 1
#include "alloy/lammps_oracle.h"

#include <exadnn/dist/communicator.h>
#include <lammps/library.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace alloy {
namespace {

constexpr const char* kPotentialDir = "/usr/share/lammps/potentials";

std::string find_potential(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path given(name);
  const fs::path path =
      given.has_parent_path() || fs::exists(given) ? given : fs::path(kPotentialDir) / given;
  if (!fs::is_regular_file(path))
    throw std::invalid_argument("alloy: lammps_eam: no potential file '" + name + "' (looked at " +
                                path.string() + "; Debian's lammps-data installs them in " +
                                kPotentialDir + ")");
  return path.string();
}

void command(void* lammps, const std::string& text) {
  lammps_command(lammps, const_cast<char*>(text.c_str()));
}

}  // namespace

std::vector<std::string> eam_elements(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int k = 0; k < 4 && std::getline(in, line); ++k) {
  }
  std::istringstream fields(line);
  int count = 0;
  std::vector<std::string> elements;
  if (fields >> count)
    for (std::string e; static_cast<int>(elements.size()) < count && fields >> e;)
      elements.push_back(e);
  if (!in || count < 1 || static_cast<int>(elements.size()) != count)
    throw std::invalid_argument("alloy: lammps_eam: " + path +
                                " is not an EAM setfl file (its 4th line should be the element "
                                "count and names)");
  return elements;
}

LammpsOracle::LammpsOracle(const Lattice& lattice, LammpsOptions options)
    : lattice_(lattice), options_(std::move(options)), path_(find_potential(options_.potential)) {
  const std::vector<std::string> in_file = eam_elements(path_);
  for (const std::string& e : options_.elements)
    if (std::find(in_file.begin(), in_file.end(), e) == in_file.end()) {
      std::string known;
      for (const std::string& k : in_file) known += (known.empty() ? "" : ", ") + k;
      throw std::invalid_argument("alloy: lammps_eam: species '" + e + "' is not in " + path_ +
                                  " (it holds " + known + ")");
    }
  if (options_.elements.size() < 2)
    throw std::invalid_argument("alloy: lammps_eam needs 2 or more elements");
  if (!(options_.lattice_constant > 1.0 && options_.lattice_constant < 10.0))
    throw std::invalid_argument("alloy: lammps_eam: a lattice constant of " +
                                std::to_string(options_.lattice_constant) +
                                " Å is not a metal's (1 to 10 Å)");
  const std::string style = path_.ends_with(".eam.fs") ? "eam/fs" : "eam/alloy";
  exadnn::dist::Communicator::world();  // MPI initialised (and finalised at exit) by exadnn
  const char* args[] = {"alloy", "-log", "none", "-screen", "none", "-nocite"};
  lammps_ = lammps_open(6, const_cast<char**>(args), MPI_COMM_SELF, nullptr);
  const double side = options_.lattice_constant * lattice.cells();
  std::ostringstream setup;
  setup << "units metal\natom_style atomic\natom_modify map array sort 0 0\nboundary p p p\n"
        << "region box block 0 " << side << " 0 " << side << " 0 " << side << " units box\n"
        << "create_box " << options_.elements.size() << " box\n";
  lammps_commands_string(lammps_, setup.str().c_str());
  // Atom k + 1 is site k, at the ideal position.
  const int n = static_cast<int>(lattice.sites());
  std::vector<int> ids(static_cast<size_t>(n)), types(static_cast<size_t>(n), 1);
  for (int k = 0; k < n; ++k) {
    ids[k] = k + 1;
    const auto p = lattice.position(k);
    for (int d = 0; d < 3; ++d) ideal_.push_back(p[d] * options_.lattice_constant);
  }
  lammps_create_atoms(lammps_, n, ids.data(), types.data(), ideal_.data(), nullptr, nullptr, 0);
  std::ostringstream potential;
  for (size_t t = 0; t < options_.elements.size(); ++t)
    potential << "mass " << t + 1 << " 1.0\n";  // (masses do not enter a static energy)
  potential << "pair_style " << style << "\npair_coeff * * " << path_;
  for (const std::string& e : options_.elements) potential << " " << e;
  potential << "\nthermo_style custom pe\nthermo_modify norm no\n";
  lammps_commands_string(lammps_, potential.str().c_str());
  if (static_cast<int64_t>(lammps_get_natoms(lammps_)) != lattice.sites())
    throw std::runtime_error("alloy: lammps_eam: LAMMPS created " +
                             std::to_string(lammps_get_natoms(lammps_)) + " atoms for " +
                             lattice.describe());
}

LammpsOracle::~LammpsOracle() {
  if (lammps_) lammps_close(lammps_);
}

std::string LammpsOracle::describe() const {
  std::string elements;
  for (const std::string& e : options_.elements) elements += (elements.empty() ? "" : "-") + e;
  return "lammps_eam (" + path_ + ", " + elements +
         ", a = " + std::to_string(options_.lattice_constant) + " Å" +
         (options_.relax ? ", relaxed" : "") + ")";
}

double LammpsOracle::compute(const Occupation& occupation) {
  if (static_cast<int64_t>(occupation.size()) != lattice_.sites())
    throw std::invalid_argument("alloy: lammps_eam: a configuration of " +
                                std::to_string(occupation.size()) + " sites for " +
                                lattice_.describe());
  std::vector<int> types(occupation.size());
  for (size_t k = 0; k < occupation.size(); ++k) {
    if (occupation[k] >= options_.elements.size())
      throw std::invalid_argument("alloy: lammps_eam: species " + std::to_string(occupation[k]) +
                                  " on site " + std::to_string(k) + ", but only " +
                                  std::to_string(options_.elements.size()) + " elements");
    types[k] = occupation[k] + 1;
  }
  lammps_scatter_atoms(lammps_, const_cast<char*>("type"), 0, 1, types.data());
  if (options_.relax) {
    lammps_scatter_atoms(lammps_, const_cast<char*>("x"), 1, 3, ideal_.data());
    command(lammps_, "minimize 0 1.0e-6 200 2000");
  }
  command(lammps_, "run 0 post no");
  return lammps_get_thermo(lammps_, const_cast<char*>("pe"));
}

}  // namespace alloy
