// Cubic crystal lattices for alloy configurations: L×L×L conventional cells of bcc (2 sites a cell:
// the cube corner, sublattice 0, and its centre, sublattice 1 — the two sublattices of the B2
// order) or fcc (4 sites a cell: sublattices 0..3 — L1₀ orders (0,1) against (2,3)), periodic in
// all three directions, with the neighbours of every site in its first 1 to 6 shells found from
// the geometry (shells are the distinct neighbour distances, nearest first).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace alloy {

enum class Structure { bcc, fcc };

/// "bcc" or "fcc" (an error listing them otherwise).
Structure parse_structure(const std::string& name);
const char* structure_name(Structure s);

/// One neighbour shell: its distance (in lattice constants) and how many neighbours it holds.
struct Shell {
  double distance;
  int coordination;
};

class Lattice {
 public:
  /// `cells` conventional cells along each axis; `shells` neighbour shells (1..6). A lattice too
  /// small for its shells (a site would meet its own periodic image within them) is an error
  /// naming the smallest size that fits.
  Lattice(Structure structure, int cells, int shells = 6);

  Structure structure() const { return structure_; }
  int cells() const { return cells_; }
  int64_t sites() const { return sites_; }
  /// Sites of one conventional cell (bcc 2, fcc 4).
  int basis_size() const { return basis_size_; }
  int shells() const { return static_cast<int>(shells_.size()); }
  const Shell& shell(int s) const { return shells_.at(static_cast<size_t>(s)); }
  /// The neighbours of `site` in shell s (0 = nearest): shell(s).coordination site indices.
  std::span<const int32_t> neighbours(int s, int64_t site) const {
    const int z = shells_[static_cast<size_t>(s)].coordination;
    return {neighbours_[static_cast<size_t>(s)].data() + site * z, static_cast<size_t>(z)};
  }
  /// The basis site a site is (its sublattice): bcc 0 corner / 1 centre, fcc 0..3.
  int sublattice(int64_t site) const { return static_cast<int>(site % basis_size_); }
  /// Position in lattice constants.
  std::array<double, 3> position(int64_t site) const;
  /// "bcc 4×4×4 (128 sites, 6 shells)".
  std::string describe() const;

 private:
  Structure structure_;
  int cells_;
  int basis_size_;
  int64_t sites_;
  std::vector<Shell> shells_;
  std::vector<std::vector<int32_t>> neighbours_;  // [shell][site × coordination]
};

}  // namespace alloy
