// Chemical elements by atomic number (1..103, the range of the scattering-factor tables).
#pragma once

#include <string>

namespace cbed {

/// The largest atomic number the application knows (lawrencium).
inline constexpr int kMaxAtomicNumber = 103;

/// The element's symbol ("Si" for 14); Error for z outside 1..103.
const char* element_symbol(int z);
/// The atomic number of a symbol ("Si" -> 14); Error naming the symbol when it is unknown.
int atomic_number(const std::string& symbol);

}  // namespace cbed
