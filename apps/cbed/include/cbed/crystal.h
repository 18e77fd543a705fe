// A periodic crystal: the lattice vectors and the atoms of one cell in fractional coordinates.
#pragma once

#include <vector>

#include "cbed/linalg.h"

namespace cbed {

/// One atom: atomic number and fractional position in [0, 1)^3.
struct Atom {
  int z = 0;
  Vec3 frac{};
};

struct Crystal {
  Mat3 lattice{};           // rows a, b, c in Angstrom
  std::vector<Atom> atoms;  // the cell's contents

  /// The cell volume a . (b x c) in Angstrom^3.
  double volume() const;
  /// The reciprocal vectors as rows, without 2 pi (a* . a = 1), in 1/Angstrom.
  Mat3 reciprocal() const;
  /// The Cartesian position (Angstrom) of a fractional one.
  Vec3 cartesian(const Vec3& frac) const { return row_times(frac, lattice); }
  /// The shortest distance between two atoms over all periodic images (Angstrom), among the pairs
  /// that involve an atom numbered `from` or later (0: all pairs; an atom's own images count).
  double min_distance(size_t from = 0) const;
};

/// The conventional cubic cells of three textbook structures, one element each, edge a (Angstrom).
Crystal make_bcc(int z, double a);      // 2 atoms: 0,0,0 and 1/2,1/2,1/2
Crystal make_fcc(int z, double a);      // 4 atoms: 0,0,0 and the three face centres
Crystal make_diamond(int z, double a);  // 8 atoms: fcc plus fcc shifted by 1/4,1/4,1/4

}  // namespace cbed
