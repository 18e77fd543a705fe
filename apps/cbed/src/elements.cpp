#include "cbed/elements.h"

#include <exadnn/core/error.h>

namespace cbed {
namespace {
const char* const kSymbols[kMaxAtomicNumber] = {
    "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",
    "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn",
    "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh",
    "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd",
    "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re",
    "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th",
    "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr"};
}  // namespace

const char* element_symbol(int z) {
  EXADNN_CHECK(z >= 1 && z <= kMaxAtomicNumber, "cbed::element_symbol", "atomic number ", z,
               " is not one of 1..", kMaxAtomicNumber);
  return kSymbols[z - 1];
}

int atomic_number(const std::string& symbol) {
  for (int z = 1; z <= kMaxAtomicNumber; ++z)
    if (symbol == kSymbols[z - 1]) return z;
  throw exadnn::Error("cbed::atomic_number", "unknown element symbol '" + symbol + "'");
}

}  // namespace cbed
