// The alloy application's first-principles modules (workflows/gpaw_b2_formation.yaml): the
// formation energy of an ordered B2 compound from DFT, the calculations run by the workflow
// engine's `exec` module (one GPAW run per instance, apps/alloy/oracles/gpaw_energy.py).
//   alloy_formation_inputs  puts the DFT requests in the tuple space: "<key>/in/<k>" for
//                           k < repeats the 2-atom B2 cell (the same request again: the second
//                           call must reproduce the first), then one fcc primitive cell per element
//   alloy_formation_report  reads the programs' outputs "<key>/out/<k>", and reports
//                           ΔH_f = E(B2)/atom − (E(A) + E(B))/2 and how far the repeats differ
//                           (JSON); a missing output (a failed instance) is named
#include <exadnn/flow/module.h>
#include <exadnn/flow/tuple_space.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "alloy/configuration.h"
#include "alloy/model_spec.h"
#include "alloy/program_oracle.h"

namespace exadnn::apps::alloy_modules {

using namespace ::alloy;
using json = nlohmann::json;

namespace {

std::vector<std::string> element_pair(const flow::ModuleContext& ctx) {
  const std::vector<std::string> elements =
      parse_names(ctx.arg<std::string>("elements", "Ni,Al"), "elements");
  EXADNN_CHECK(elements.size() == 2, "alloy", ctx.describe(), ": elements '",
               ctx.arg<std::string>("elements", "Ni,Al"), "' must name two elements (A,B)");
  return elements;
}

// args: elements ("Ni,Al": A on the cube corners, B on the centres), a (the B2 lattice constant,
// Å), reference_a (the elements' fcc lattice constants, "3.524,4.05"), repeats (2), ecut_ev (300),
// kpoint_density (3.0), key ("dft").
void alloy_formation_inputs(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const std::vector<std::string> elements = element_pair(ctx);
  const std::vector<double> reference_a =
      parse_numbers(ctx.arg<std::string>("reference_a", "3.524,4.05"), "reference_a");
  EXADNN_CHECK(reference_a.size() == 2, "alloy", ctx.describe(),
               ": reference_a needs the two elements' fcc lattice constants");
  const std::string settings = json{{"ecut_ev", ctx.arg<double>("ecut_ev", 300.0)},
                                    {"kpoint_density", ctx.arg<double>("kpoint_density", 3.0)}}
                                   .dump();
  const std::string key = ctx.arg<std::string>("key", "dft");
  const int repeats = ctx.arg<int>("repeats", 2);
  const AtomCell b2 = b2_cell(elements[0], elements[1], ctx.arg<double>("a", 2.887));
  int k = 0;
  for (; k < repeats; ++k)
    ctx.tuple_space().put(detail::cat(key, "/in/", k), cell_request(b2, settings));
  for (int e = 0; e < 2; ++e, ++k)
    ctx.tuple_space().put(detail::cat(key, "/in/", k),
                          cell_request(fcc_primitive_cell(elements[e], reference_a[e]), settings));
}

// One program output (its JSON line), or null when the instance that owed it failed.
json output_of(flow::ModuleContext& ctx, const std::string& key, int k) {
  const std::optional<flow::Tuple> t = ctx.tuple_space().try_read(detail::cat(key, "/out/", k));
  if (!t) return nullptr;
  return json::parse(result_line(t->text(), detail::cat(key, "/out/", k)));
}

// args: elements, repeats, key (as alloy_formation_inputs), reference (a published ΔH_f to quote,
// eV/atom; 0 = none), reference_name, repeat_tolerance (eV/atom, 1e-5), out (JSON path, "").
void alloy_formation_report(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const std::vector<std::string> elements = element_pair(ctx);
  const std::string key = ctx.arg<std::string>("key", "dft");
  const int repeats = ctx.arg<int>("repeats", 2);
  std::vector<json> outputs;
  std::vector<int> missing;
  for (int k = 0; k < repeats + 2; ++k) {
    outputs.push_back(output_of(ctx, key, k));
    if (outputs.back().is_null()) missing.push_back(k);
  }
  EXADNN_CHECK(missing.empty(), "alloy", ctx.describe(), ": no DFT result for ", missing.size(),
               " of ", repeats + 2, " requests (", key, "/out/", missing.front(),
               " first): its instance failed (see above)");
  const auto per_atom = [](const json& o) { return o.at("energy_per_atom_ev").get<double>(); };
  double spread = 0;
  for (int k = 1; k < repeats; ++k)
    spread = std::max(spread, std::abs(per_atom(outputs[k]) - per_atom(outputs[0])));
  const double b2 = per_atom(outputs[0]);
  const double a = per_atom(outputs[repeats]);
  const double b = per_atom(outputs[repeats + 1]);
  const double formation = b2 - 0.5 * (a + b);
  const std::string compound = elements[0] + elements[1];
  std::printf("B2 %s: E = %.6f eV/atom; fcc %s %.6f, fcc %s %.6f eV/atom (%s, %s)\n",
              compound.c_str(), b2, elements[0].c_str(), a, elements[1].c_str(), b,
              outputs[0].value("code", "?").c_str(), outputs[0].at("settings").dump().c_str());
  std::printf("B2 %s formation energy: %+.4f eV/atom; the repeated call differs by %.2e eV/atom\n",
              compound.c_str(), formation, spread);
  const double reference = ctx.arg<double>("reference", 0.0);
  if (reference != 0.0)
    std::printf("published: %+.4f eV/atom (%s): %+.1f %%\n", reference,
                ctx.arg<std::string>("reference_name", "").c_str(),
                100.0 * (formation - reference) / std::abs(reference));
  double seconds = 0;
  for (const json& o : outputs) seconds += o.value("seconds", 0.0);
  std::printf("DFT cost: %d calls, %.1f s in GPAW\n", repeats + 2, seconds);
  const std::string out = ctx.arg<std::string>("out", "");
  if (!out.empty()) {
    std::ofstream file(out);
    EXADNN_CHECK(file.good(), "alloy", ctx.describe(), ": cannot write ", out);
    file << json{{"compound", compound},
                 {"formation_energy_ev_per_atom", formation},
                 {"b2_energy_ev_per_atom", b2},
                 {"reference_energies_ev_per_atom", {a, b}},
                 {"repeat_spread_ev_per_atom", spread},
                 {"published_ev_per_atom", reference},
                 {"dft_seconds", seconds},
                 {"outputs", outputs}}
                .dump(2)
         << "\n";
  }
  EXADNN_CHECK(spread <= ctx.arg<double>("repeat_tolerance", 1e-5), "alloy", ctx.describe(),
               ": the repeated DFT call differs from the first by ", spread,
               " eV/atom (more than repeat_tolerance)");
}

}  // namespace
}  // namespace exadnn::apps::alloy_modules

EXADNN_FLOW_MODULE(alloy_formation_inputs, exadnn::apps::alloy_modules::alloy_formation_inputs);
EXADNN_FLOW_MODULE(alloy_formation_report, exadnn::apps::alloy_modules::alloy_formation_report);
