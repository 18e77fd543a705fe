// What the alloy modules read alike from their workflow arguments: the lattice (structure, cells,
// shells), the binary pair model V_1..V_k ("v"), the 50/50 composition and the oracle's noise.
#pragma once

#include <exadnn/flow/module.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "alloy/model_spec.h"
#include "alloy/oracle.h"

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

}  // namespace exadnn::apps::alloy_modules
