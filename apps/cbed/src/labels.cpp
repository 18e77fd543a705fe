#include "cbed/labels.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "cbed/elements.h"

namespace cbed {

std::string reduced_formula(const std::map<int, int>& atoms) {
  int divisor = 0;
  for (const auto& [z, n] : atoms) divisor = std::gcd(divisor, n);
  // Hill order: carbon, hydrogen, then the rest alphabetically; without carbon, all
  // alphabetically.
  std::vector<std::pair<std::string, int>> parts;
  const bool carbon = atoms.count(6) > 0;
  for (const auto& [z, n] : atoms) parts.emplace_back(element_symbol(z), n / divisor);
  auto rank = [&](const std::string& s) { return carbon ? (s == "C" ? 0 : s == "H" ? 1 : 2) : 2; };
  std::sort(parts.begin(), parts.end(), [&](const auto& a, const auto& b) {
    return rank(a.first) != rank(b.first) ? rank(a.first) < rank(b.first) : a.first < b.first;
  });
  std::string formula;
  for (const auto& [symbol, n] : parts) formula += symbol + (n > 1 ? std::to_string(n) : "");
  return formula;
}

MaterialLabels labels_of(const GeneratedCrystal& generated) {
  MaterialLabels labels;
  labels.space_group = generated.space_group;
  labels.system = generated.system;
  labels.cell = cell_parameters(generated.crystal);
  for (const Atom& a : generated.crystal.atoms) ++labels.atoms[a.z];
  labels.formula = reduced_formula(labels.atoms);
  return labels;
}

}  // namespace cbed
