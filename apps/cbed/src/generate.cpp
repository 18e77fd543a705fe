#include "cbed/generate.h"

#include <exadnn/core/error.h>

#include "cbed/detector.h"
#include "cbed/labels.h"

namespace cbed {
namespace {
// A well-mixed 64-bit stream per (seed, material) (splitmix64's finaliser).
uint64_t material_seed(uint64_t seed, int64_t material, uint64_t salt) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + uint64_t(material) * 0xbf58476d1ce4e5b9ull + salt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

shard::SampleLabels shard_labels(const GeneratedCrystal& generated, int64_t material,
                                 const PatternStack& stack) {
  const MaterialLabels m = labels_of(generated);
  shard::SampleLabels l;
  l.space_group = m.space_group;
  l.crystal_system = int32_t(m.system);
  l.lattice = {m.cell.a, m.cell.b, m.cell.c, m.cell.alpha, m.cell.beta, m.cell.gamma};
  for (const auto& [z, n] : m.atoms) {
    EXADNN_CHECK(z >= 1 && z <= shard::kElements, "cbed::shard_labels", "atomic number ", z,
                 " is outside 1..", shard::kElements);
    l.composition[z - 1] = n;
  }
  l.formula = m.formula;
  l.material_id = material;
  l.zone_axes = stack.zone_axes;
  return l;
}

GeneratedSample generate_material(int64_t material, const GenerateOptions& o) {
  EXADNN_CHECK(material >= 0, "cbed::generate_material", "material id ", material, " < 0");
  EXADNN_CHECK(!o.groups.empty(), "cbed::generate_material", "no space groups to draw from");
  const int group = o.groups[size_t(material % int64_t(o.groups.size()))];
  CrystalGenerator generator(o.crystals, material_seed(o.seed, material, 1));
  const GeneratedCrystal crystal = generator.generate(group);
  PatternStack stack = cbed_stack(crystal.crystal, o.stack);
  GeneratedSample sample;
  sample.labels = shard_labels(crystal, material, stack);
  sample.stats = generator.stats();
  if (o.dose > 0) {  // each pattern recorded as counts at the dose
    Rng rng(material_seed(o.seed, material, 2));
    const size_t n = size_t(stack.nx) * stack.ny;
    for (int axis = 0; axis < 3; ++axis) {
      std::vector<double> pattern(stack.data.begin() + axis * n,
                                  stack.data.begin() + (axis + 1) * n);
      const std::vector<double> counts = poisson_counts(pattern, o.dose, rng);
      std::copy(counts.begin(), counts.end(), stack.data.begin() + axis * n);
    }
  }
  sample.patterns = std::move(stack.data);
  return sample;
}

}  // namespace cbed
