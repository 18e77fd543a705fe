// The face halo: the face itself in the middle, and across each face edge the neighbouring
// face's nodes — the same points of the sphere at depth 0, and at depth d the mirror images of the
// face's own depth-d nodes (the cube is symmetric under the reflection that swaps two faces
// sharing an edge), so a wrong face, edge or flip shows as a far-off point.
#include <gtest/gtest.h>

#include <vector>

#include "climate/halo_face.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

// The 3-D position of every pixel of the face layout, one coordinate per field.
std::vector<FaceField> positions(const CubedSphere& mesh, const FaceHalo& halo) {
  std::vector<FaceField> xyz(3, FaceField(halo.n()));
  for (int f = 0; f < 6; ++f)
    for (int r = 0; r < halo.n(); ++r)
      for (int c = 0; c < halo.n(); ++c)
        for (int k = 0; k < 3; ++k) xyz[k].at(f, r, c) = mesh.metric(halo.node(f, r, c)).x[k];
  return xyz;
}

Vec3 pixel(const std::vector<std::vector<float>>& arrays, int w, int r, int c) {
  return {arrays[0][r * w + c], arrays[1][r * w + c], arrays[2][r * w + c]};
}

TEST(FaceHalo, EdgesContinueIntoTheNeighbouringFaces) {
  for (const auto& [ne, p, h] : {std::tuple{3, 3, 5}, std::tuple{2, 4, 3}, std::tuple{4, 2, 12}}) {
    const CubedSphere mesh(ne, p, 1.0);
    const FaceHalo halo(mesh, h);
    const int n = halo.n(), w = halo.width();
    const std::vector<FaceField> xyz = positions(mesh, halo);
    for (int f = 0; f < 6; ++f) {
      std::vector<std::vector<float>> a(3, std::vector<float>(static_cast<size_t>(w) * w));
      for (int k = 0; k < 3; ++k) halo.halo_face(xyz[k], f, a[k].data());
      // The middle is the face.
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
          ASSERT_LT(norm(pixel(a, w, r + h, c + h) - mesh.metric(halo.node(f, r, c)).x), 1e-6);
      // Each edge strip: depth 0 is the edge's own point; depth d mirrors the inside depth d.
      for (int t = 0; t < n; ++t)
        for (int d = 0; d < h; ++d) {
          // (row, col) in the halo array outside edge 0 (south), 1 (east), 2 (north), 3 (west),
          // and the face's own pixel at depth d inside that edge, and the edge pixel.
          const int out[4][2] = {
              {h - 1 - d, h + t}, {h + t, h + n + d}, {h + n + d, h + t}, {h + t, h - 1 - d}};
          const int in[4][2] = {
              {h + d, h + t}, {h + t, h + n - 1 - d}, {h + n - 1 - d, h + t}, {h + t, h + d}};
          const int edge[4][2] = {{h, h + t}, {h + t, h + n - 1}, {h + n - 1, h + t}, {h + t, h}};
          for (int s = 0; s < 4; ++s) {
            const Vec3 x_out = pixel(a, w, out[s][0], out[s][1]);
            const Vec3 x_in = pixel(a, w, in[s][0], in[s][1]);
            const Vec3 x_edge = pixel(a, w, edge[s][0], edge[s][1]);
            if (d == 0) {
              ASSERT_LT(norm(x_out - x_edge), 1e-6) << "face " << f << " edge " << s << " t " << t;
            }
            // The mirror: as far from the edge point as the inside pixel, and on the other side.
            ASSERT_NEAR(norm(x_out - x_edge), norm(x_in - x_edge), 1e-6)
                << "face " << f << " edge " << s << " t " << t << " depth " << d;
            if (d > 0) {
              ASSERT_GT(norm(x_out - x_in), norm(x_in - x_edge));
            }
          }
        }
    }
  }
}

TEST(FaceHalo, RefusesAWidthBeyondTheFaceAndAFieldOfAnotherSize) {
  const CubedSphere mesh(2, 3, 1.0);
  EXPECT_THROW(FaceHalo(mesh, 9), exadnn::Error);  // n = 8
  EXPECT_THROW(FaceHalo(mesh, -1), exadnn::Error);
  const FaceHalo halo(mesh, 2);
  std::vector<float> out(static_cast<size_t>(halo.width()) * halo.width());
  try {
    halo.halo_face(FaceField(7), 0, out.data());
    FAIL() << "a field of face size 7 was taken";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("face size 7"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace climate
