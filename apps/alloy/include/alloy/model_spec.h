// The energy model of a study as its workflow arguments give it: the lattice ("bcc", cells,
// shells), the composition (species and fractions) and the pair interactions V_1..V_k of the
// binary (Ising) pair model, read from comma-separated text ("1.0,0.3").
#pragma once

#include <string>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"
#include "alloy/pair_energy.h"

namespace alloy {

/// "4,6,8" -> {4, 6, 8}; an error naming `what` and the text if an entry is not a number.
std::vector<double> parse_numbers(const std::string& text, const std::string& what);

/// "Ni,Al" -> {"Ni", "Al"}; an error naming `what` and the text if an entry is empty.
std::vector<std::string> parse_names(const std::string& text, const std::string& what);

/// `count` evenly spaced values from `first` to `last` (both included).
std::vector<double> linspace(double first, double last, int count);

/// A binary at 50/50 of species `a` and `b` on `lattice` (an error if the sites are odd).
Composition equiatomic_binary(const Lattice& lattice, const std::string& a, const std::string& b);

}  // namespace alloy
