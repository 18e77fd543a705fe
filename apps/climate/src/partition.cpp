// The space-filling-curve partition and the trace lists derived from the mesh's connectivity.
#include "climate/partition.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "exadnn/core/error.h"

namespace climate {

void hilbert_cell(int n, long d, int& x, int& y) {
  // From the finest level up: each level's quadrant (rx, ry) from two bits of d, the sub-curve
  // reflected or transposed so that consecutive quadrants join.
  x = 0;
  y = 0;
  for (int s = 1; s < n; s *= 2) {
    const int rx = static_cast<int>(1 & (d / 2));
    const int ry = static_cast<int>(1 & (d ^ rx));
    if (ry == 0) {
      if (rx == 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      std::swap(x, y);
    }
    x += s * rx;
    y += s * ry;
    d /= 4;
  }
}

Partition::Partition(const CubedSphere& mesh, int ranks) : mesh_(mesh), ranks_(ranks) {
  const int n = mesh.num_elements(), ne = mesh.ne();
  EXADNN_CHECK(ranks >= 1 && ranks <= n, "Partition", "cannot spread the ", n,
               " elements of the Ne = ", ne, " cubed sphere over ", ranks, " ranks: between 1 and ",
               n, " ranks (at least one element each)");
  // Within a face: the Hilbert curve of the smallest 2^k grid holding Ne × Ne, the cells outside
  // skipped (the curve stays local; it is a true Hilbert curve when Ne is a power of two).
  int side = 1;
  while (side < ne) side *= 2;
  curve_.reserve(n);
  for (int f = 0; f < 6; ++f)
    for (long d = 0; d < static_cast<long>(side) * side; ++d) {
      int x, y;
      hilbert_cell(side, d, x, y);
      if (x < ne && y < ne) curve_.push_back((f * ne + y) * ne + x);
    }
  // Rank r takes the curve's positions [r n / P, (r + 1) n / P).
  owner_.assign(n, 0);
  owned_.assign(ranks, {});
  for (int r = 0; r < ranks; ++r) {
    const long begin = static_cast<long>(r) * n / ranks, end = static_cast<long>(r + 1) * n / ranks;
    for (long k = begin; k < end; ++k) {
      owner_[curve_[k]] = r;
      owned_[r].push_back(curve_[k]);
    }
    std::sort(owned_[r].begin(), owned_[r].end());
  }
}

namespace {

void sort_traces(std::vector<Partition::Trace>& t) {
  std::sort(t.begin(), t.end(), [](const Partition::Trace& a, const Partition::Trace& b) {
    return std::tie(a.peer, a.elem, a.edge) < std::tie(b.peer, b.elem, b.edge);
  });
}

}  // namespace

std::vector<Partition::Trace> Partition::sends(int rank) const {
  std::vector<Trace> out;
  for (const int e : owned_[rank])
    for (int edge = 0; edge < 4; ++edge) {
      const int peer = owner_[mesh_.neighbour(e, edge).elem];
      if (peer != rank) out.push_back({peer, e, edge});
    }
  sort_traces(out);
  return out;
}

std::vector<Partition::Trace> Partition::receives(int rank) const {
  std::vector<Trace> out;
  for (const int e : owned_[rank])
    for (int edge = 0; edge < 4; ++edge) {
      const EdgeNeighbour& nb = mesh_.neighbour(e, edge);
      const int peer = owner_[nb.elem];
      if (peer != rank) out.push_back({peer, nb.elem, nb.edge});
    }
  sort_traces(out);
  return out;
}

}  // namespace climate
