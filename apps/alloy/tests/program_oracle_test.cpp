// Oracles as external programs: the cell a program is given (B2 and fcc geometry), its energy read
// back from its output, and every way a program call goes wrong named (a killed program, no
// energy printed, a species without an element); the gpaw program refuses an unknown element.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "alloy/program_oracle.h"

namespace alloy {
namespace {

using json = nlohmann::json;

TEST(ProgramOracle, TheCellHoldsTheLatticeAndItsSpecies) {
  const Lattice lattice(Structure::bcc, 2, 1);
  const AtomCell cell = lattice_cell(lattice, b2_configuration(lattice), {"Ni", "Al"}, 2.887);
  ASSERT_EQ(cell.symbols.size(), 16u);
  EXPECT_DOUBLE_EQ(cell.cell[0][0], 2 * 2.887);
  EXPECT_DOUBLE_EQ(cell.cell[0][1], 0.0);
  for (size_t k = 0; k < cell.symbols.size(); ++k) {
    // B2: Ni on the cube corners (integer coordinates in lattice constants), Al at the centres.
    const double x = cell.scaled_positions[k][0] * 2;
    const bool corner = std::abs(x - std::round(x)) < 1e-12;
    EXPECT_EQ(cell.symbols[k], corner ? "Ni" : "Al") << "site " << k;
  }
  const AtomCell b2 = b2_cell("Ni", "Al", 2.887);
  EXPECT_EQ(b2.symbols, (std::vector<std::string>{"Ni", "Al"}));
  EXPECT_DOUBLE_EQ(b2.scaled_positions[1][2], 0.5);
  const AtomCell ni = fcc_primitive_cell("Ni", 3.524);
  const double volume = ni.cell[0][1] * ni.cell[1][2] * ni.cell[2][0] * 2;  // |det| of the cell
  EXPECT_NEAR(volume, std::pow(3.524, 3) / 4, 1e-12);  // a quarter of the conventional cube
  const json request = json::parse(cell_request(ni, R"({"ecut_ev": 350})"));
  EXPECT_EQ(request["symbols"][0], "Ni");
  EXPECT_EQ(request["settings"]["ecut_ev"], 350);
  EXPECT_THROW(cell_request(ni, "[1, 2]"), std::invalid_argument);
  EXPECT_THROW(lattice_cell(lattice, b2_configuration(lattice), {"Ni"}, 2.887),
               std::invalid_argument);
}

TEST(ProgramOracle, TheEnergyIsTheProgramsLastJsonLine) {
  EXPECT_DOUBLE_EQ(energy_from_output("SCF 1\n{\"energy_ev\": -3.25, \"atoms\": 2}\n", "p"), -3.25);
  EXPECT_THROW(energy_from_output("converged\n{\"energy\": 1}\n", "p"), exadnn::Error);
  const Lattice lattice(Structure::bcc, 2, 1);
  ProgramOracleOptions o;
  o.command = {"sh", "-c", "wc -c > /dev/null; echo '{\"energy_ev\": -42.5}'"};
  o.elements = {"Ni", "Al"};
  ProgramOracle oracle(lattice, o);
  EXPECT_DOUBLE_EQ(oracle.energy(b2_configuration(lattice)), -42.5);
  EXPECT_EQ(oracle.calls(), 1);
}

TEST(ProgramOracle, AKilledProgramIsNamedWithItsCall) {
  const Lattice lattice(Structure::bcc, 2, 1);
  ProgramOracleOptions o;
  o.command = {"sh", "-c", "echo 'SCF diverged' >&2; kill -9 $$"};
  o.elements = {"Ni", "Al"};
  o.name = "dft";
  ProgramOracle oracle(lattice, o);
  try {
    oracle.energy(b2_configuration(lattice));
    FAIL() << "no error for a killed program";
  } catch (const exadnn::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the dft oracle, call 1: 'sh' was killed by signal 9"), std::string::npos)
        << what;
    EXPECT_NE(what.find("SCF diverged"), std::string::npos) << what;
  }
}

TEST(ProgramOracle, GpawRefusesAnUnknownElementByName) {
  const Lattice lattice(Structure::bcc, 2, 1);
  ProgramOracle oracle(lattice, gpaw_options({"Ni", "Qq"}, 2.887));
  try {
    oracle.energy(b2_configuration(lattice));
    FAIL() << "no error for element Qq";
  } catch (const exadnn::Error& e) {
    const std::string what = e.what();
    // Without GPAW installed the program cannot start (or Python lacks gpaw): named too.
    EXPECT_TRUE(what.find("unknown element 'Qq'") != std::string::npos ||
                what.find("gpaw") != std::string::npos)
        << what;
    EXPECT_NE(what.find("the gpaw oracle, call 1"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace alloy
