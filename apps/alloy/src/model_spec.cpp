#include "alloy/model_spec.h"

#include <sstream>
#include <stdexcept>

namespace alloy {

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || item.find_first_not_of(" \t", used) != std::string::npos)
      throw std::invalid_argument("alloy: " + what + " must be numbers separated by commas, got '" +
                                  text + "'");
    out.push_back(value);
  }
  if (out.empty()) throw std::invalid_argument("alloy: " + what + " is empty");
  return out;
}

std::vector<std::string> parse_names(const std::string& text, const std::string& what) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t first = item.find_first_not_of(" \t");
    const size_t last = item.find_last_not_of(" \t");
    if (first == std::string::npos)
      throw std::invalid_argument("alloy: " + what + " must be names separated by commas, got '" +
                                  text + "'");
    out.push_back(item.substr(first, last - first + 1));
  }
  if (out.empty()) throw std::invalid_argument("alloy: " + what + " is empty");
  return out;
}

std::vector<double> linspace(double first, double last, int count) {
  if (count < 1) throw std::invalid_argument("alloy: a temperature grid needs 1 or more points");
  std::vector<double> out;
  for (int k = 0; k < count; ++k)
    out.push_back(count == 1 ? first : first + (last - first) * k / (count - 1));
  return out;
}

Composition equiatomic_binary(const Lattice& lattice, const std::string& a, const std::string& b) {
  if (lattice.sites() % 2)
    throw std::invalid_argument("alloy: 50/50 needs an even number of sites, not " +
                                lattice.describe());
  return {{a, b}, {lattice.sites() / 2, lattice.sites() / 2}};
}

}  // namespace alloy
