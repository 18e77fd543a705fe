// The alloy application's critical-temperature modules (workflows/tc_pair_model.yaml):
//   alloy_mc_curve   replica-exchange Monte Carlo of one lattice size over a temperature grid,
//                    driven by the pair-model oracle or by a linear surrogate fitted to noisy
//                    oracle energies; the instance's ranks share the replicas; rank 0 puts the
//                    curve (JSON) in the tuple space under "<key>/<energy>/<cells>"
//   alloy_tc_report  takes `curves` such curves, estimates Tc per energy model (the Binder
//                    cumulant crossings of successive sizes, the heat capacity peak of the largest)
//                    and writes them as JSON
#include <exadnn/exadnn.h>
#include <exadnn/flow/module.h>
#include <exadnn/flow/tuple_space.h>
#include <exadnn/io/plot.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "alloy/critical_temperature.h"
#include "alloy/linear_surrogate.h"
#include "alloy/model_spec.h"
#include "alloy/oracle.h"
#include "alloy/replica_exchange.h"
#include "module_args.h"

namespace exadnn::apps::alloy_modules {

using namespace ::alloy;
using json = nlohmann::json;

namespace {

json to_json(const ThermoPoint& p) {
  return {{"kt", p.kt},
          {"energy", p.energy},
          {"energy_error", p.energy_error},
          {"heat_capacity", p.heat_capacity},
          {"heat_capacity_error", p.heat_capacity_error},
          {"order", p.order},
          {"order_error", p.order_error},
          {"binder", p.binder},
          {"binder_error", p.binder_error},
          {"sro", p.sro},
          {"samples", p.samples}};
}

ThermoPoint point_from(const json& j) {
  ThermoPoint p;
  p.kt = j.at("kt");
  p.energy = j.at("energy");
  p.energy_error = j.at("energy_error");
  p.heat_capacity = j.at("heat_capacity");
  p.heat_capacity_error = j.at("heat_capacity_error");
  p.order = j.at("order");
  p.order_error = j.at("order_error");
  p.binder = j.at("binder");
  p.binder_error = j.at("binder_error");
  p.sro = j.at("sro").get<std::vector<double>>();
  p.samples = j.at("samples");
  return p;
}

json to_json(const Estimate& e) {
  return e.found ? json{{"value", e.value}, {"error", e.error}} : json(nullptr);
}

// args: structure (bcc), cells, shells (1), v ("1.0": V_1..V_k of the Ising pair model, in units
// of the temperature), t_min, t_max, t_count (the kT grid), equilibration (2000), sweeps (10000),
// exchange_every (10), seed (1), energy (oracle | linear), and for linear: training (configurations
// the oracle computes, 400) on a lattice of training_cells (6), noise (the oracle's noise per site
// as a fraction of |V_1|, 0.01), key (alloy/curve).
void alloy_mc_curve(flow::ModuleContext& ctx) {
  const StudySystem system = study_system(ctx);
  const Lattice& lattice = *system.lattice;
  const Composition& composition = system.composition;
  const PairEnergy& truth = system.truth;
  const int cells = lattice.cells();
  const std::string energy = ctx.arg<std::string>("energy", "oracle");
  const uint64_t seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1));
  EXADNN_CHECK(energy == "oracle" || energy == "linear", "alloy_mc_curve", ctx.describe(),
               ": energy is '", energy, "' (known: oracle, linear)");
  PairEnergy model = truth;
  std::string fitted;
  if (energy == "linear") {
    // The surrogate: pair interactions fitted to noisy oracle energies of random states of a
    // `training_cells` lattice, the same for every size (a pair model transfers across sizes).
    const Lattice cell(lattice.structure(), ctx.arg<int>("training_cells", 6), lattice.shells());
    const Composition cell_composition = equiatomic_binary(cell, "A", "B");
    PairModelOracle oracle(cell, truth, system.noise, seed + 17);
    Rng rng(seed + 29);
    std::vector<Occupation> train;
    std::vector<double> energies;
    for (int k = 0; k < ctx.arg<int>("training", 400); ++k) {
      train.push_back(random_configuration(cell, cell_composition, rng));
      energies.push_back(oracle.energy(train.back()));
    }
    const LinearFit fit = fit_pair_model(cell, 2, train, energies);
    model = fit.model;
    // The ordering interaction of the first shell, (V_AA + V_BB − 2 V_AB) / 4 (the exact: V_1).
    const PairEnergy& m = fit.model;
    fitted = detail::cat(oracle.calls(), " oracle calls on ", cell.describe(),
                         ", fitted V_1 = ", (m.v(0, 0, 0) + m.v(0, 1, 1) - 2 * m.v(0, 0, 1)) / 4,
                         ", train RMSE ", 1000.0 * fit.train_rmse, " meV/site");
  }
  const PairSwapEnergy swap_energy(model);
  ReplicaExchangeOptions options;
  options.temperatures =
      linspace(ctx.arg<double>("t_min"), ctx.arg<double>("t_max"), ctx.arg<int>("t_count", 9));
  options.equilibration_sweeps = ctx.arg<int64_t>("equilibration", 2000);
  options.measurement_sweeps = ctx.arg<int64_t>("sweeps", 10000);
  options.sweeps_per_exchange = ctx.arg<int64_t>("exchange_every", 10);
  options.seed = seed;
  const ReplicaExchangeResult result =
      replica_exchange(lattice, composition, swap_energy, options, &ctx.comm());
  if (ctx.comm().rank() != 0) return;
  json curve{{"cells", cells},
             {"sites", lattice.sites()},
             {"energy", energy},
             {"surrogate", fitted},
             {"ranks", ctx.comm().size()},
             {"seconds", result.seconds},
             {"attempted_swaps", result.attempted_swaps},
             {"exchange_acceptance", result.exchange_acceptance},
             {"points", json::array()}};
  for (const ThermoPoint& p : result.points) curve["points"].push_back(to_json(p));
  std::printf("%s: %s, %s MC, %d temperatures, %.3g swaps/s on %d ranks%s%s\n",
              ctx.describe().c_str(), lattice.describe().c_str(), energy.c_str(),
              static_cast<int>(result.points.size()),
              static_cast<double>(result.attempted_swaps) / result.seconds, ctx.comm().size(),
              fitted.empty() ? "" : "; surrogate: ", fitted.c_str());
  ctx.tuple_space().put(
      detail::cat(ctx.arg<std::string>("key", "alloy/curve"), "/", energy, "/", cells),
      curve.dump());
}

// Charts of one energy model's curves against kT, one series per lattice size: the order parameter,
// the heat capacity and the Binder cumulant, as <plots>_<energy>_<quantity>.png.
void plot_curves(const std::string& plots, const std::string& energy, const std::vector<int>& sizes,
                 const std::vector<std::vector<ThermoPoint>>& points) {
  struct Quantity {
    const char* name;
    const char* label;
    double ThermoPoint::*value;
    double ThermoPoint::*error;
  };
  const Quantity quantities[] = {
      {"order", "B2 order <|m|>", &ThermoPoint::order, &ThermoPoint::order_error},
      {"heat_capacity", "heat capacity per site (k_B)", &ThermoPoint::heat_capacity,
       &ThermoPoint::heat_capacity_error},
      {"binder", "Binder cumulant U4", &ThermoPoint::binder, &ThermoPoint::binder_error}};
  for (const Quantity& q : quantities) {
    std::vector<io::Series> series;
    for (size_t s = 0; s < sizes.size(); ++s) {
      io::Series one{detail::cat("L = ", sizes[s]), {}, {}, {}, io::PlotStyle::lines_and_markers};
      for (const ThermoPoint& p : points[s]) {
        one.x.push_back(p.kt);
        one.y.push_back(p.*q.value);
        one.y_error.push_back(p.*q.error);
      }
      series.push_back(std::move(one));
    }
    io::Chart chart;
    chart.title = detail::cat(q.label, " vs kT/V (", energy, " energy, bcc B2)");
    chart.x_label = "kT / V";
    chart.y_label = q.label;
    io::write_chart(detail::cat(plots, "_", energy, "_", q.name, ".png"), chart, series);
  }
}

// args: curves (how many to take), key (alloy/curve), exact (the exact kTc, for the report; 0 =
// none), out (JSON file, "" = none), plots (file prefix of the PNG charts, "" = none).
void alloy_tc_report(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const int count = ctx.arg<int>("curves");
  const std::string key = ctx.arg<std::string>("key", "alloy/curve");
  std::map<std::string, std::map<int, json>> by_energy;  // energy -> cells -> curve
  for (int k = 0; k < count; ++k) {
    const json curve = json::parse(ctx.tuple_space().get(key + "/*").text());
    by_energy[curve.at("energy")][curve.at("cells").get<int>()] = curve;
  }
  const double exact = ctx.arg<double>("exact", 0.0);
  json report{{"exact_kTc", exact}, {"models", json::object()}};
  for (const auto& [energy, curves] : by_energy) {
    std::vector<int> sizes;
    std::vector<std::vector<ThermoPoint>> points;
    for (const auto& [cells, curve] : curves) {
      sizes.push_back(cells);
      points.emplace_back();
      for (const json& p : curve.at("points")) points.back().push_back(point_from(p));
    }
    json model{{"sizes", sizes}, {"crossings", json::array()}, {"curves", json::array()}};
    for (size_t s = 0; s + 1 < sizes.size(); ++s) {
      const Estimate e = binder_crossing(points[s], points[s + 1]);
      model["crossings"].push_back({{"sizes", {sizes[s], sizes[s + 1]}}, {"kTc", to_json(e)}});
      std::printf("%s: Binder crossing %d/%d cells: kTc = %s\n", energy.c_str(), sizes[s],
                  sizes[s + 1],
                  e.found ? detail::cat(e.value, " +- ", e.error).c_str() : "not in the grid");
    }
    const Estimate peak = heat_capacity_peak(points.back());
    model["heat_capacity_peak"] = to_json(peak);
    for (const auto& [cells, curve] : curves) model["curves"].push_back(curve);
    std::printf("%s: heat capacity peak (%d cells): kTc = %.4f +- %.4f%s\n", energy.c_str(),
                sizes.back(), peak.value, peak.error,
                exact > 0 ? detail::cat(" (exact ", exact, ")").c_str() : "");
    report["models"][energy] = model;
    const std::string plots = ctx.arg<std::string>("plots", "");
    if (!plots.empty()) plot_curves(plots, energy, sizes, points);
  }
  const std::string out = ctx.arg<std::string>("out", "");
  if (!out.empty()) {
    std::ofstream file(out);
    EXADNN_CHECK(file.good(), "alloy_tc_report", ctx.describe(), ": cannot write ", out);
    file << report.dump(1) << '\n';
  }
}

}  // namespace

EXADNN_FLOW_MODULE(alloy_mc_curve, alloy_mc_curve);
EXADNN_FLOW_MODULE(alloy_tc_report, alloy_tc_report);

}  // namespace exadnn::apps::alloy_modules
