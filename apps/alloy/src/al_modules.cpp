// The active-learning loop's workflow modules (workflows/alloy_active_learning.yaml). One
// workflow iteration is one round; `tag` keeps two loops apart in one job (active and random).
// Tuples (all under "al/<tag>/"):
//   data/<round>/<k>          f64 [sites + 1]: a labelled configuration's species, then its energy
//   todo/<round>/<k>          f64 [sites]: a configuration the oracle is to label in that round
//   model/<round>/<m>/<name>  member m's trained tensors (NetworkSurrogate::state)
//   count/<round>             i64 [1]: how many configurations that round labels (put by whoever
//                             decides it: the label module in round 0 and for strategy random,
//                             the sampler that picked them otherwise; everyone else reads it)
//   report/<round>            JSON: oracle calls so far, test RMSE, Tc estimate
// Modules:
//   alloy_al_label   (ensemble: the oracle instances) labels this round's configurations: round 0
//                    `initial` random ones, later `per_round` ones — the sampler's picks
//                    (strategy active: largest disagreement; mc_random: random picks of the same
//                    Monte Carlo states) or random configurations (strategy random)
//   alloy_al_train   (ensemble: one instance per member) trains member m on every configuration
//                    labelled so far (a bootstrap resample), with exadnn's Trainer
//   alloy_al_sample  replica-exchange MC driven by the ensemble's mean (batched network swaps);
//                    the test RMSE, the heat-capacity-peak Tc, and the next round's picks
//   alloy_al_report  (last round) the learning curves of every tag, the oracle calls each needs,
//                    JSON
#include <exadnn/exadnn.h>
#include <exadnn/flow/module.h>
#include <exadnn/flow/tuple_space.h>
#include <exadnn/io/plot.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "alloy/active_learning.h"
#include "alloy/batched_sampler.h"
#include "alloy/critical_temperature.h"
#include "alloy/network_surrogate.h"
#include "alloy/replica_exchange.h"
#include "module_args.h"

namespace exadnn::apps::alloy_modules {

using namespace ::alloy;
using json = nlohmann::json;

namespace {

std::string prefix(const flow::ModuleContext& ctx) {
  return "al/" + ctx.arg<std::string>("tag", "active") + "/";
}

// Configurations labelled in `round` (its count tuple; blocks until it is put).
int labelled_in(flow::ModuleContext& ctx, int round) {
  return static_cast<int>(
      ctx.tuple_space().read(detail::cat(prefix(ctx), "count/", round)).tensor().item<int64_t>());
}

void put_count(flow::ModuleContext& ctx, int round, int count) {
  ctx.tuple_space().put(detail::cat(prefix(ctx), "count/", round), from_vector<int64_t>({count}));
}

Tensor encode(const Occupation& state, double energy, bool with_energy) {
  std::vector<double> v(state.begin(), state.end());
  if (with_energy) v.push_back(energy);
  return from_vector<double>(v);
}

Occupation decode(const Tensor& t, int64_t sites) {
  const double* p = t.data<double>();
  EXADNN_CHECK(t.numel() >= sites, "alloy", "a tuple of ", t.numel(), " values for ", sites,
               " sites");
  Occupation state(static_cast<size_t>(sites));
  for (int64_t i = 0; i < sites; ++i) state[i] = static_cast<uint8_t>(p[i]);
  return state;
}

// Every configuration labelled up to and including `round` (read, not taken). Returns how many
// are missing: their oracle instance failed (`on_error: continue` lets the loop go on without
// them; the groups' order guarantees the instances have ended before anyone reads).
int labelled_so_far(flow::ModuleContext& ctx, int round, int64_t sites,
                    std::vector<Occupation>& states, std::vector<double>& energies) {
  int missing = 0;
  for (int r = 0; r <= round; ++r) {
    const int count = labelled_in(ctx, r);
    for (int k = 0; k < count; ++k) {
      const std::optional<flow::Tuple> t =
          ctx.tuple_space().try_read(detail::cat(prefix(ctx), "data/", r, "/", k));
      if (!t) {
        ++missing;
        continue;
      }
      states.push_back(decode(t->tensor(), sites));
      energies.push_back(t->tensor().data<double>()[sites]);
    }
  }
  return missing;
}

NetworkOptions network_options(const flow::ModuleContext& ctx) {
  NetworkOptions o;
  o.kind = parse_network_kind(ctx.arg<std::string>("network", "features_mlp"));
  const std::vector<double> hidden =
      parse_numbers(ctx.arg<std::string>("hidden", "32,32"), "hidden");
  o.hidden.assign(hidden.begin(), hidden.end());
  o.epochs = ctx.arg<int64_t>("epochs", 200);
  o.lr = ctx.arg<double>("lr", 3e-3);
  o.seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1));
  return o;
}

// args: tag, strategy (active | mc_random | random), initial (round 0's random configurations),
// per_round (strategy random: later rounds' random configurations; the others take the sampler's
// picks and count), structure, cells, shells, v, noise, seed, and the oracle (module_args.h's
// make_oracle: pair_model by default, or lammps_eam, gpaw, program). An instance that fails (its
// oracle program killed, say) leaves its configurations unlabelled; with `on_error: continue`
// the loop goes on with the others'.
void alloy_al_label(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const StudySystem system = study_system(ctx);
  const int round = ctx.iteration();
  const bool random = ctx.arg<std::string>("strategy", "active") == "random";
  const bool decides = round == 0 || random;  // else the sampler decided the count
  const int count = decides
                        ? (round == 0 ? ctx.arg<int>("initial", 64) : ctx.arg<int>("per_round", 32))
                        : labelled_in(ctx, round);
  if (decides && ctx.instance() == 0) put_count(ctx, round, count);
  const uint64_t seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1));
  const std::unique_ptr<EnergyOracle> oracle =
      make_oracle(ctx, system, system.noise,
                  seed * 7717 + static_cast<uint64_t>(round * 1000 + ctx.instance()));
  for (int k = ctx.instance(); k < count; k += ctx.instances()) {
    Occupation state;
    if (round == 0 || random) {
      Rng rng(seed * 1000003 + static_cast<uint64_t>(round) * 10007 + static_cast<uint64_t>(k));
      state = random_configuration(*system.lattice, system.composition, rng);
    } else {
      state =
          decode(ctx.tuple_space().get(detail::cat(prefix(ctx), "todo/", round, "/", k)).tensor(),
                 system.lattice->sites());
    }
    const double energy = oracle->energy(state);
    ctx.tuple_space().put(detail::cat(prefix(ctx), "data/", round, "/", k),
                          encode(state, energy, true));
  }
}

// args: tag, structure, cells, shells, v, network, hidden, epochs, lr, seed.
void alloy_al_train(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const StudySystem system = study_system(ctx);
  std::vector<Occupation> states;
  std::vector<double> energies;
  const int missing =
      labelled_so_far(ctx, ctx.iteration(), system.lattice->sites(), states, energies);
  EXADNN_CHECK(!states.empty(), "alloy_al_train", ctx.describe(), ": no labelled configuration (",
               missing, " missing: every oracle instance failed)");
  NetworkOptions o = network_options(ctx);
  o.seed += static_cast<uint64_t>(ctx.instance()) + 1000 * static_cast<uint64_t>(ctx.iteration());
  o.bootstrap = ctx.instances() > 1;
  const NetworkSurrogate member(*system.lattice, 2, states, energies, o);
  for (const auto& [name, tensor] : member.state())
    ctx.tuple_space().put(
        detail::cat(prefix(ctx), "model/", ctx.iteration(), "/", ctx.instance(), "/", name),
        tensor);
}

// args: tag, strategy, members, per_round (the next round's picks), structure, cells, shells, v,
// network, hidden, t_min, t_max, t_count (the MC's kT grid), sweeps (measurement, 200),
// equilibration (100), snapshot_every (10), test (size of the test set, 200), test_t_min,
// test_t_max, batch (32), parity (PNG prefix, "" = none), seed.
void alloy_al_sample(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const StudySystem system = study_system(ctx);
  const Lattice& lattice = *system.lattice;
  const int round = ctx.iteration(), members = ctx.arg<int>("members", 4);
  const uint64_t seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1));
  // The ensemble the train instances made this round.
  std::vector<NetworkSurrogate> trained;
  const NetworkOptions o = network_options(ctx);
  const std::vector<std::string> names = NetworkSurrogate::state_names(lattice, 2, o);
  for (int m = 0; m < members; ++m) {
    StateDict state;
    for (const std::string& name : names)
      state.insert(name, ctx.tuple_space()
                             .get(detail::cat(prefix(ctx), "model/", round, "/", m, "/", name))
                             .tensor());
    trained.emplace_back(lattice, 2, o, state);
  }
  const SurrogateEnsemble ensemble(std::move(trained));
  // The fixed test set: exact-model MC near Tc (the same every round and for every tag).
  const std::vector<Occupation> test = monte_carlo_test_set(
      lattice, system.composition, system.truth,
      linspace(ctx.arg<double>("test_t_min", 6.0), ctx.arg<double>("test_t_max", 6.8), 5),
      ctx.arg<int>("test", 200), 4242);
  // Their energies from the oracle the labels come from, without its noise.
  std::vector<double> reference, mean, spread;
  const std::unique_ptr<EnergyOracle> exact = make_oracle(ctx, system, 0.0, 0);
  for (const Occupation& s : test) reference.push_back(exact->energy(s));
  ensemble.predict(test, mean, spread);
  const FitQuality quality = fit_quality(mean, reference, lattice.sites());
  if (const std::string parity = ctx.arg<std::string>("parity", ""); !parity.empty()) {
    io::Series points{"test configurations", {}, {}, {}, io::PlotStyle::markers};
    for (size_t k = 0; k < test.size(); ++k) {
      points.x.push_back(reference[k] / static_cast<double>(lattice.sites()));
      points.y.push_back(mean[k] / static_cast<double>(lattice.sites()));
    }
    io::Chart chart;
    chart.title = detail::cat(ctx.arg<std::string>("tag", "active"), " round ", round,
                              ": ensemble mean vs oracle (eV/site), RMSE ",
                              quality.rmse_mev_per_site, " meV/site");
    chart.x_label = "oracle energy per site";
    chart.y_label = "surrogate energy per site";
    chart.reference_line = true;
    io::write_chart(
        detail::cat(parity, "_", ctx.arg<std::string>("tag", "active"), "_round", round, ".png"),
        chart, {points});
  }

  // Replica exchange under the ensemble's mean; snapshots are the candidates for the oracle.
  const EnsembleEnergy energy(ensemble);
  ReplicaExchangeOptions mc;
  mc.temperatures = linspace(ctx.arg<double>("t_min", 5.5), ctx.arg<double>("t_max", 7.5),
                             ctx.arg<int>("t_count", 6));
  mc.equilibration_sweeps = ctx.arg<int64_t>("equilibration", 100);
  mc.measurement_sweeps = ctx.arg<int64_t>("sweeps", 200);
  mc.blocks = 4;
  mc.seed = seed + static_cast<uint64_t>(round);
  mc.snapshot_every = ctx.arg<int64_t>("snapshot_every", 10);
  std::vector<Candidate> candidates;
  mc.on_snapshot = [&](int t, const Occupation& s, double) { candidates.push_back({s, t, 0.0}); };
  const ReplicaExchangeResult run = replica_exchange(
      lattice, system.composition, batched_sampler(lattice, energy, ctx.arg<int>("batch", 32)), mc);
  const Estimate tc = heat_capacity_peak(run.points);

  std::vector<Occupation> known_states;
  std::vector<double> known_energies;
  const int missing = labelled_so_far(ctx, round, lattice.sites(), known_states, known_energies);
  if (missing > 0)
    std::printf(
        "%s [%s] round %d: %d configurations were never labelled (their oracle instance "
        "failed); going on with %zu\n",
        ctx.describe().c_str(), ctx.arg<std::string>("tag", "active").c_str(), round, missing,
        known_states.size());
  const int64_t calls = static_cast<int64_t>(known_states.size());
  const json report{{"round", round},
                    {"oracle_calls", calls},
                    {"test_rmse_mev_per_site", quality.rmse_mev_per_site},
                    {"test_r2", quality.r2},
                    {"kTc", tc.value},
                    {"kTc_error", tc.error},
                    {"mc_seconds", run.seconds}};
  std::printf(
      "%s [%s] round %d: %lld oracle calls, test RMSE %.2f meV/site (R2 %.4f), "
      "kTc %.3f +- %.3f (heat-capacity peak)\n",
      ctx.describe().c_str(), ctx.arg<std::string>("tag", "active").c_str(), round,
      static_cast<long long>(calls), quality.rmse_mev_per_site, quality.r2, tc.value, tc.error);
  ctx.tuple_space().put(detail::cat(prefix(ctx), "report/", round), report.dump());

  // The next round's configurations: where the members disagree most (active), or random
  // picks of the same Monte Carlo states (mc_random: a random "spread" orders them).
  const std::string strategy = ctx.arg<std::string>("strategy", "active");
  EXADNN_CHECK(strategy == "active" || strategy == "mc_random" || strategy == "random",
               "alloy_al_sample", ctx.describe(), ": strategy is '", strategy,
               "' (known: active, mc_random, random)");
  if (strategy == "random" || round + 1 >= ctx.iterations()) return;
  if (strategy == "active") {
    std::vector<double> m2, s2;
    std::vector<Occupation> states;
    for (const Candidate& c : candidates) states.push_back(c.state);
    ensemble.predict(states, m2, s2);
    for (size_t k = 0; k < candidates.size(); ++k) candidates[k].spread = s2[k];
  } else {
    Rng order(seed * 977 + static_cast<uint64_t>(round));
    for (Candidate& c : candidates) c.spread = order.uniform();
  }
  const int per_round = ctx.arg<int>("per_round", 32);
  const std::vector<Occupation> picks =
      select_by_disagreement(std::move(candidates), per_round,
                             std::set<Occupation>(known_states.begin(), known_states.end()));
  EXADNN_CHECK(static_cast<int>(picks.size()) == per_round, "alloy_al_sample", ctx.describe(),
               ": the Monte Carlo gave ", picks.size(),
               " new configurations, fewer than per_round; raise sweeps or lower snapshot_every");
  put_count(ctx, round + 1, per_round);
  for (size_t k = 0; k < picks.size(); ++k)
    ctx.tuple_space().put(detail::cat(prefix(ctx), "todo/", round + 1, "/", k),
                          encode(picks[k], 0.0, false));
}

// args: tags ("active,random" as text), out (JSON), plot (PNG of test RMSE against oracle calls,
// "" = none). Acts in the last round only.
void alloy_al_report(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0 || ctx.iteration() + 1 < ctx.iterations()) return;
  json out{{"tags", json::object()}};
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> curves;
  std::stringstream tags(ctx.arg<std::string>("tags", "active,random"));
  for (std::string tag; std::getline(tags, tag, ',');) {
    json rounds = json::array();
    for (int r = 0; r < ctx.iterations(); ++r) {
      const json one =
          json::parse(ctx.tuple_space().get(detail::cat("al/", tag, "/report/", r)).text());
      curves[tag].first.push_back(one.at("oracle_calls"));
      curves[tag].second.push_back(one.at("test_rmse_mev_per_site"));
      rounds.push_back(one);
    }
    out["tags"][tag] = rounds;
  }
  // Against every baseline: the oracle calls active learning needs to reach its final error.
  if (curves.count("active"))
    for (const auto& [tag, curve] : curves) {
      if (tag == "active") continue;
      const double target = curve.second.back(), spent = curve.first.back();
      const double needed = calls_to_reach(curves["active"].first, curves["active"].second, target);
      out["baselines"][tag] = {{"final_rmse_mev_per_site", target},
                               {"oracle_calls", spent},
                               {"active_calls_to_reach_it", needed},
                               {"factor", needed > 0 ? spent / needed : 0.0}};
      std::printf(
          "active learning reaches the %s baseline's final test RMSE (%.2f meV/site after "
          "%.0f oracle calls) %s\n",
          tag.c_str(), target, spent,
          needed > 0
              ? detail::cat("after ", needed, " oracle calls: ", spent / needed, "x fewer").c_str()
              : "within its budget: no");
    }
  if (const std::string plot = ctx.arg<std::string>("plot", ""); !plot.empty()) {
    std::vector<io::Series> series;
    for (const auto& [tag, curve] : curves)
      series.push_back({tag, curve.first, curve.second, {}, io::PlotStyle::lines_and_markers});
    io::Chart chart;
    chart.title = "surrogate test RMSE near Tc vs oracle calls";
    chart.x_label = "oracle calls";
    chart.y_label = "RMSE (meV/site)";
    io::write_chart(plot, chart, series);
  }
  const std::string path = ctx.arg<std::string>("out", "");
  if (!path.empty()) {
    std::ofstream file(path);
    EXADNN_CHECK(file.good(), "alloy_al_report", ctx.describe(), ": cannot write ", path);
    file << out.dump(1) << '\n';
  }
}

}  // namespace

EXADNN_FLOW_MODULE(alloy_al_label, alloy_al_label);
EXADNN_FLOW_MODULE(alloy_al_train, alloy_al_train);
EXADNN_FLOW_MODULE(alloy_al_sample, alloy_al_sample);
EXADNN_FLOW_MODULE(alloy_al_report, alloy_al_report);

}  // namespace exadnn::apps::alloy_modules
