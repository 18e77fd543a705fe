// The elements of the cubed sphere spread over P ranks: ordered along a space-filling curve (the
// six faces one after the other, a Hilbert curve within each face) and cut into P contiguous
// pieces of ⌊n/P⌋ or ⌈n/P⌉ elements (n = 6 Ne²). When P divides 6 the pieces are whole faces.
//
// Also the element traces (the p+1 node values of one element edge) that cross between ranks:
// what each rank sends to and receives from each other one, in one canonical order that the
// sending and the receiving rank both derive from the mesh, so no index travels with the data.
// No MPI here: halo.h moves the traces, shallow_water.h uses the partition to work on one rank's
// elements.
#pragma once

#include <vector>

#include "climate/cubed_sphere.h"

namespace climate {

class Partition {
 public:
  /// One element edge's trace crossing between this rank and `peer`: element `elem`'s edge
  /// `edge` (global element index; the sender's element).
  struct Trace {
    int peer;
    int elem;
    int edge;
  };

  /// 1 ≤ ranks ≤ mesh.num_elements() (each rank at least one element); any other count is
  /// refused with both numbers named.
  Partition(const CubedSphere& mesh, int ranks);

  int ranks() const { return ranks_; }
  int num_elements() const { return static_cast<int>(owner_.size()); }
  /// The rank that owns element e.
  int owner(int e) const { return owner_[e]; }
  /// The elements rank r owns, in ascending global index (the order of its local state).
  const std::vector<int>& owned(int rank) const { return owned_[rank]; }
  /// The position of each element along the curve, [num_elements]: element curve()[k] is k-th.
  const std::vector<int>& curve() const { return curve_; }

  /// The traces rank r sends: its own elements' edges whose neighbour another rank owns, sorted
  /// by (peer = the receiving rank, elem, edge).
  std::vector<Trace> sends(int rank) const;
  /// The traces rank r receives: the neighbours' edges facing its elements, sorted by (peer = the
  /// sending rank, elem, edge): the traces from rank s are exactly s's sends to r, in that order.
  std::vector<Trace> receives(int rank) const;

 private:
  const CubedSphere& mesh_;
  int ranks_;
  std::vector<int> curve_;               // [num_elements]
  std::vector<int> owner_;               // [num_elements]
  std::vector<std::vector<int>> owned_;  // [ranks][its elements]
};

/// The cell (x, y) at position d along the Hilbert curve that fills a 2^k × 2^k grid (n = 2^k),
/// starting at (0, 0) and ending at (n − 1, 0).
void hilbert_cell(int n, long d, int& x, int& y);

}  // namespace climate
