#include "climate/halo_face.h"

#include <algorithm>

#include "exadnn/core/error.h"

namespace climate {

FaceHalo::FaceHalo(const CubedSphere& mesh, int halo)
    : mesh_(mesh), n_(mesh.ne() * mesh.nodes_1d()), halo_(halo) {
  EXADNN_CHECK(halo >= 0 && halo <= n_, "FaceHalo", "halo width ", halo,
               " is outside [0, n] with n = Ne (p+1) = ", n_);
  const int p = mesh.degree(), np = mesh.nodes_1d(), ne = mesh.ne(), w = width();
  for (int f = 0; f < 6; ++f) {
    std::vector<int>& src = sources_[f];
    src.assign(static_cast<size_t>(w) * w, -1);
    // The face itself, and the corner blocks from the face's corner nodes (clamped).
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c)
        src[r * w + c] =
            index(f, std::clamp(r - halo_, 0, n_ - 1), std::clamp(c - halo_, 0, n_ - 1));
    // The four edge strips from the neighbouring faces.
    for (int edge = 0; edge < 4; ++edge)
      for (int t = 0; t < n_; ++t) {
        const int a = t / np, k = t % np;
        const int ei = edge == 1 ? ne - 1 : edge == 3 ? 0 : a;
        const int ej = edge == 0 ? 0 : edge == 2 ? ne - 1 : a;
        const EdgeNeighbour& nb = mesh.neighbour((f * ne + ej) * ne + ei, edge);
        const int fn = mesh.face(nb.elem);
        const int along =
            (nb.edge % 2 == 0 ? mesh.ei(nb.elem) : mesh.ej(nb.elem)) * np + (nb.flip ? p - k : k);
        for (int d = 0; d < halo_; ++d) {
          int rn, cn;  // inside the neighbour face
          inside(nb.edge, along, d, rn, cn);
          // Outside this face: the mirror of inside() across the edge.
          const int r = edge == 0 ? -1 - d : edge == 2 ? n_ + d : t;
          const int c = edge == 3 ? -1 - d : edge == 1 ? n_ + d : t;
          src[(r + halo_) * w + (c + halo_)] = index(fn, rn, cn);
        }
      }
  }
}

void FaceHalo::halo_face(const FaceField& field, int f, float* out) const {
  EXADNN_CHECK(field.n == n_ && field.data.size() == static_cast<size_t>(6) * n_ * n_, "FaceHalo",
               "a field of face size ", field.n, " (", field.data.size(),
               " values) on a mesh of face size ", n_);
  const std::vector<int>& src = sources_[f];
  for (size_t k = 0; k < src.size(); ++k) out[k] = static_cast<float>(field.data[src[k]]);
}

int FaceHalo::node(int f, int row, int col) const {
  const int np = mesh_.nodes_1d(), ne = mesh_.ne();
  const int e = (f * ne + row / np) * ne + col / np;
  return (e * np + row % np) * np + col % np;
}

void FaceHalo::inside(int edge, int t, int d, int& row, int& col) const {
  row = edge == 0 ? d : edge == 2 ? n_ - 1 - d : t;
  col = edge == 3 ? d : edge == 1 ? n_ - 1 - d : t;
}

}  // namespace climate
