// The cubed sphere's edge connectivity, found from the geometry: two element edges are one when
// their end points coincide in R³. This covers the edges inside a face and the 12 cube edges
// (where the neighbouring face's axes are rotated) alike, and the orientation follows from which
// end meets which: no hand-written table of face rotations to get wrong.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "climate/cubed_sphere.h"
#include "exadnn/core/error.h"

namespace climate {

void CubedSphere::build_connectivity() {
  const int p = degree();
  const int nedges = 4 * num_elements();
  // The end points of every element edge (node 0 and node p of the edge).
  std::vector<Vec3> first(nedges), last(nedges), key(nedges);
  for (int s = 0; s < nedges; ++s) {
    int i, j;
    edge_node(s % 4, 0, i, j);
    first[s] = metric(s / 4, i, j).x;
    edge_node(s % 4, p, i, j);
    last[s] = metric(s / 4, i, j).x;
    key[s] = first[s] + last[s];
  }
  // Distinct edges' keys differ by about an element's width; equal ones by round-off.
  const double tol = 1e-8 * radius_;
  std::vector<int> order(nedges);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key[a][0] < key[b][0]; });

  neighbours_.assign(nedges, EdgeNeighbour{-1, -1, false});
  interfaces_.clear();
  interfaces_.reserve(nedges / 2);
  for (int a = 0; a < nedges; ++a) {
    const int s = order[a];
    int matches = 0;
    for (int b = a + 1; b < nedges && key[order[b]][0] - key[s][0] <= tol; ++b) {
      const int t = order[b];
      if (norm(key[t] - key[s]) > tol) continue;
      ++matches;
      const bool flip = norm(first[s] - first[t]) > tol;
      EXADNN_CHECK(norm((flip ? last[t] : first[t]) - first[s]) <= tol, "CubedSphere", "edges ",
                   s % 4, " of element ", s / 4, " and ", t % 4, " of element ", t / 4,
                   " share a midpoint but not their end points");
      EXADNN_CHECK(neighbours_[s].elem < 0 && neighbours_[t].elem < 0, "CubedSphere", "edge ",
                   s % 4, " of element ", s / 4, " matches more than one edge");
      neighbours_[s] = {t / 4, t % 4, flip};
      neighbours_[t] = {s / 4, s % 4, flip};
      interfaces_.push_back({s / 4, s % 4, t / 4, t % 4, flip});
    }
  }
  for (int s = 0; s < nedges; ++s)
    EXADNN_CHECK(neighbours_[s].elem >= 0, "CubedSphere", "edge ", s % 4, " of element ", s / 4,
                 " has no neighbour");
  // Element order, for a cache-friendly sweep over the interfaces.
  std::sort(interfaces_.begin(), interfaces_.end(), [](const Interface& x, const Interface& y) {
    return x.elem_l != y.elem_l ? x.elem_l < y.elem_l : x.edge_l < y.edge_l;
  });
}

}  // namespace climate
