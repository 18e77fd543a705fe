// A cube face's nodal field as one 2-D array, and the same array widened by a halo taken across
// the face's four edges from the neighbouring faces, so that a convolution on one face sees the
// field continue past its edges (no seams) — the input of the learned correction.
//
// Face array: compressor.h's FaceField layout — face f of a mesh of Ne elements per edge and
// degree p is an n × n array, n = Ne (p+1), row r = ej (p+1) + j (along η), column
// c = ei (p+1) + i (along ξ), value = the node (f, ei, ej; i, j).
//
// Halo array: (n + 2H) × (n + 2H), the face array in the middle. A halo pixel at depth d
// (0 ≤ d < H) outside face edge s, at position t along it, is the node at depth d inside the
// neighbouring face, at the place the mesh's connectivity (with its flips between rotated faces)
// gives for t: depth 0 is the neighbour's copy of the edge node itself. The four H × H corner
// blocks, where three faces meet and no neighbour is unique, repeat the face's corner node.
#pragma once

#include <vector>

#include "climate/compressor.h"
#include "climate/cubed_sphere.h"

namespace climate {

class FaceHalo {
 public:
  /// Halo width H with 0 ≤ H ≤ n (an Error naming the value otherwise).
  FaceHalo(const CubedSphere& mesh, int halo);

  int n() const { return n_; }
  int halo() const { return halo_; }
  /// n + 2H.
  int width() const { return n_ + 2 * halo_; }

  /// The global node index of face array pixel (row, col) of face f.
  int node(int f, int row, int col) const;
  /// Where each halo-array pixel of face f takes its value from, as an index into a FaceField's
  /// data ((f' n + r) n + c): [width²], row-major.
  const std::vector<int>& sources(int f) const { return sources_[f]; }

  /// Face f's halo array of `field`: out [width × width], row-major. A field of another face
  /// size is an Error naming both sizes.
  void halo_face(const FaceField& field, int f, float* out) const;

 private:
  // The index of face f's pixel (row, col) in a FaceField's data.
  int index(int f, int row, int col) const { return (f * n_ + row) * n_ + col; }
  // The (row, col) of the pixel at depth d inside edge `edge` of a face, at position t along it.
  void inside(int edge, int t, int d, int& row, int& col) const;

  const CubedSphere& mesh_;
  int n_, halo_;
  std::vector<int> sources_[6];
};

}  // namespace climate
