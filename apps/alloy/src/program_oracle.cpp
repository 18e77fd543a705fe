#include "alloy/program_oracle.h"

#include <exadnn/core/error.h>
#include <exadnn/flow/program.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace alloy {

using json = nlohmann::json;

AtomCell lattice_cell(const Lattice& lattice, const Occupation& occupation,
                      const std::vector<std::string>& elements, double lattice_constant) {
  if (static_cast<int64_t>(occupation.size()) != lattice.sites())
    throw std::invalid_argument("alloy: a configuration of " + std::to_string(occupation.size()) +
                                " sites for " + lattice.describe());
  if (!(lattice_constant > 0.5 && lattice_constant < 20))
    throw std::invalid_argument("alloy: a lattice constant of " + std::to_string(lattice_constant) +
                                " Å (expected 0.5 to 20 Å)");
  AtomCell out;
  const double side = lattice_constant * lattice.cells();
  for (int d = 0; d < 3; ++d) out.cell[d][d] = side;
  for (int64_t site = 0; site < lattice.sites(); ++site) {
    const uint8_t species = occupation[static_cast<size_t>(site)];
    if (species >= elements.size())
      throw std::invalid_argument("alloy: species " + std::to_string(species) + " on site " +
                                  std::to_string(site) + ", but only " +
                                  std::to_string(elements.size()) + " elements");
    out.symbols.push_back(elements[species]);
    const std::array<double, 3> p = lattice.position(site);  // lattice constants
    out.scaled_positions.push_back(
        {p[0] / lattice.cells(), p[1] / lattice.cells(), p[2] / lattice.cells()});
  }
  return out;
}

AtomCell b2_cell(const std::string& corner, const std::string& centre, double lattice_constant) {
  AtomCell out;
  out.symbols = {corner, centre};
  for (int d = 0; d < 3; ++d) out.cell[d][d] = lattice_constant;
  out.scaled_positions = {{0, 0, 0}, {0.5, 0.5, 0.5}};
  return out;
}

AtomCell fcc_primitive_cell(const std::string& element, double lattice_constant) {
  const double h = lattice_constant / 2;
  AtomCell out;
  out.symbols = {element};
  out.cell = {{{0, h, h}, {h, 0, h}, {h, h, 0}}};
  out.scaled_positions = {{0, 0, 0}};
  return out;
}

std::string cell_request(const AtomCell& cell, const std::string& settings_json) {
  json settings;
  try {
    settings = json::parse(settings_json);
  } catch (const json::exception& e) {
    throw std::invalid_argument("alloy: the oracle's settings are not JSON (" +
                                std::string(e.what()) + "): " + settings_json);
  }
  if (!settings.is_object())
    throw std::invalid_argument("alloy: the oracle's settings must be a JSON object: " +
                                settings_json);
  return json{{"symbols", cell.symbols},
              {"cell", cell.cell},
              {"scaled_positions", cell.scaled_positions},
              {"settings", settings}}
      .dump();
}

std::string result_line(const std::string& output, const std::string& program) {
  for (size_t end = output.size(), start; end > 0; end = start) {
    start = output.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    const std::string line = output.substr(from, end - from);
    const json parsed = json::parse(line, nullptr, false);
    if (parsed.is_object() && parsed.contains("energy_ev") && parsed["energy_ev"].is_number())
      return line;
    if (start == std::string::npos) break;
  }
  const std::string quoted =
      output.size() > 400 ? "..." + output.substr(output.size() - 400) : output;
  throw exadnn::Error("alloy", "'" + program +
                                   "' printed no JSON line with a number \"energy_ev\"; its "
                                   "output was:\n" +
                                   quoted);
}

double energy_from_output(const std::string& output, const std::string& program) {
  return json::parse(result_line(output, program))["energy_ev"].get<double>();
}

ProgramOracle::ProgramOracle(const Lattice& lattice, ProgramOracleOptions options)
    : lattice_(lattice), options_(std::move(options)) {
  if (options_.command.empty() || options_.command[0].empty())
    throw std::invalid_argument("alloy: the " + options_.name + " oracle has no program to run");
  if (options_.elements.empty())
    throw std::invalid_argument("alloy: the " + options_.name + " oracle has no elements");
  cell_request(AtomCell{}, options_.settings_json);  // settings checked before the first call
}

std::string ProgramOracle::describe() const {
  std::string elements;
  for (const std::string& e : options_.elements) elements += (elements.empty() ? "" : "-") + e;
  return options_.name + " (" + options_.command[0] + ", " + elements +
         ", a = " + std::to_string(options_.lattice_constant) + " Å)";
}

double ProgramOracle::compute(const Occupation& occupation) {
  const std::string request =
      cell_request(lattice_cell(lattice_, occupation, options_.elements, options_.lattice_constant),
                   options_.settings_json);
  const std::string where = "the " + options_.name + " oracle, call " + std::to_string(calls() + 1);
  const exadnn::flow::ProgramRun run =
      exadnn::flow::run_program(options_.command, request, options_.timeout_s, where);
  exadnn::flow::require_success(run, options_.command[0], where, options_.timeout_s);
  return energy_from_output(run.out, options_.command[0]);
}

std::string gpaw_script() {
  if (const char* path = std::getenv("ALLOY_GPAW_SCRIPT"); path && *path) return path;
  return ALLOY_GPAW_SCRIPT;
}

ProgramOracleOptions gpaw_options(std::vector<std::string> elements, double lattice_constant,
                                  double ecut_ev, double kpoint_density, const std::string& spin) {
  if (spin != "auto" && spin != "true" && spin != "false")
    throw std::invalid_argument("alloy: gpaw spin is '" + spin + "' (auto, true or false)");
  ProgramOracleOptions o;
  o.command = {gpaw_script()};
  o.elements = std::move(elements);
  o.lattice_constant = lattice_constant;
  json settings{{"ecut_ev", ecut_ev}, {"kpoint_density", kpoint_density}};
  settings["spin"] = spin == "auto" ? json("auto") : json(spin == "true");
  o.settings_json = settings.dump();
  o.name = "gpaw";
  return o;
}

}  // namespace alloy
