// What the alloy modules read alike from their workflow arguments: the lattice (structure, cells,
// shells), the binary pair model V_1..V_k ("v"), the 50/50 composition, the oracle's noise, and
// which oracle labels configurations (make_oracle).
#pragma once

#include <exadnn/flow/module.h>
#include <exadnn/flow/program.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "alloy/model_spec.h"
#include "alloy/oracle.h"
#include "alloy/program_oracle.h"
#if ALLOY_WITH_LAMMPS
#include "alloy/lammps_oracle.h"
#endif

namespace exadnn::apps::alloy_modules {

struct StudySystem {
  std::unique_ptr<::alloy::Lattice> lattice;
  ::alloy::Composition composition;
  ::alloy::PairEnergy truth;
  double noise = 0;  ///< the oracle's noise per site (eV): `noise` × |V_1|
};

/// args: structure (bcc), cells, shells (at least v's length), v ("1.0"), noise (0.01).
inline StudySystem study_system(const flow::ModuleContext& ctx) {
  const std::vector<double> v = ::alloy::parse_numbers(ctx.arg<std::string>("v", "1.0"), "v");
  auto lattice = std::make_unique<::alloy::Lattice>(
      ::alloy::parse_structure(ctx.arg<std::string>("structure", "bcc")), ctx.arg<int>("cells"),
      std::max(ctx.arg<int>("shells", 1), static_cast<int>(v.size())));
  ::alloy::Composition composition = ::alloy::equiatomic_binary(*lattice, "A", "B");
  return {std::move(lattice), std::move(composition), ::alloy::PairEnergy::ising(v),
          ctx.arg<double>("noise", 0.01) * std::abs(v[0])};
}

/// The oracle that labels configurations. args: oracle — pair_model (default: the study's pair
/// model plus `noise`), lammps_eam (potential, relax), gpaw (ecut_ev, kpoint_density, spin) or
/// program
/// (`program`: a command line whose program reads the structure's JSON and prints the energy's:
/// program_oracle.h); the last three take elements ("Ni,Al": species 0, 1), a (the lattice
/// constant, Å) and timeout_s (programs only; 0 = none). `noise` 0 gives the exact pair model.
inline std::unique_ptr<::alloy::EnergyOracle> make_oracle(const flow::ModuleContext& ctx,
                                                          const StudySystem& system, double noise,
                                                          uint64_t seed) {
  const std::string kind = ctx.arg<std::string>("oracle", "pair_model");
  if (kind == "pair_model")
    return std::make_unique<::alloy::PairModelOracle>(*system.lattice, system.truth, noise, seed);
  const std::vector<std::string> elements =
      ::alloy::parse_names(ctx.arg<std::string>("elements", "Ni,Al"), "elements");
  const double a = ctx.arg<double>("a", 2.887);
  if (kind == "gpaw") {
    ::alloy::ProgramOracleOptions o = ::alloy::gpaw_options(
        elements, a, ctx.arg<double>("ecut_ev", 300.0), ctx.arg<double>("kpoint_density", 3.0),
        ctx.arg<std::string>("spin", "auto"));
    o.timeout_s = ctx.arg<double>("timeout_s", 0.0);
    return std::make_unique<::alloy::ProgramOracle>(*system.lattice, std::move(o));
  }
  if (kind == "program") {
    ::alloy::ProgramOracleOptions o;
    o.command = flow::split_arguments(ctx.arg<std::string>("program"), ctx.describe());
    o.elements = elements;
    o.lattice_constant = a;
    o.timeout_s = ctx.arg<double>("timeout_s", 0.0);
    return std::make_unique<::alloy::ProgramOracle>(*system.lattice, std::move(o));
  }
#if ALLOY_WITH_LAMMPS
  if (kind == "lammps_eam") {
    ::alloy::LammpsOptions o;
    o.potential = ctx.arg<std::string>("potential", o.potential);
    o.elements = elements;
    o.lattice_constant = a;
    o.relax = ctx.arg<bool>("relax", false);
    return std::make_unique<::alloy::LammpsOracle>(*system.lattice, std::move(o));
  }
#endif
#if ALLOY_WITH_LAMMPS
  const char* const known = "pair_model, lammps_eam, gpaw, program";
#else
  const char* const known = "pair_model, gpaw, program (lammps_eam: built without LAMMPS)";
#endif
  throw Error("alloy", detail::cat(ctx.describe(), ": oracle '", kind, "' (known: ", known, ")"));
}

}  // namespace exadnn::apps::alloy_modules
