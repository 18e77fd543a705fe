// One material of the generated dataset: a random structure of its space group, its three-zone-
// axis stack (kinematic or multislice, optionally Poisson counts at a dose) and its labels. A
// material's sample depends only on (seed, material id), never on which rank makes it.
#pragma once

#include <cstdint>
#include <vector>

#include "cbed/cbed_stack.h"
#include "cbed/crystal_generator.h"
#include "cbed/shard_layout.h"

namespace cbed {

struct GenerateOptions {
  std::vector<int> groups{225, 229, 194, 62};  // material m is of groups[m % groups.size()]
  GeneratorOptions crystals;
  StackOptions stack;
  double dose = 0;  // electrons per pattern; 0 keeps the noise-free intensities
  uint64_t seed = 1;
};

struct GeneratedSample {
  std::vector<float> patterns;  // [3, H, W]
  shard::SampleLabels labels;
  GeneratorStats stats;  // the generator's attempts for this material
};

/// The sample of material `material` (>= 0).
GeneratedSample generate_material(int64_t material, const GenerateOptions& options);

/// The labels of a generated structure in the shard's form (composition as counts of Z = 1..103).
shard::SampleLabels shard_labels(const GeneratedCrystal& generated, int64_t material,
                                 const PatternStack& stack);

}  // namespace cbed
