// The state ↔ FaceField layout (compress_fields.h) and the wind fields.
#include "climate/compress_fields.h"

#include <gtest/gtest.h>

#include <cmath>

#include "climate/correction.h"
#include "climate/galewsky.h"
#include "climate/spherical.h"
#include "climate/williamson6.h"
#include "compress_test_fields.h"

namespace climate {
namespace {

TEST(CompressFields, ElementNodesAreTilesOfTheFaceArray) {
  const CubedSphere mesh(3, 2);
  const ShallowWater solver(mesh);
  SwState U(solver.state_size());
  for (std::size_t k = 0; k < U.size(); ++k) U[k] = static_cast<double>(k);
  const FaceField hu_y = gather_face_field(solver, U, 2);
  ASSERT_EQ(hu_y.n, 9);
  // Element (face 4, ei 1, ej 2), node (i, j) = (2, 0): row 2·3 + 0, column 1·3 + 2.
  const int e = 4 * 9 + 2 * 3 + 1;
  EXPECT_EQ(hu_y.at(4, 6, 5), static_cast<double>(solver.offset(e, 2) + 0 * 3 + 2));
  SwState V(solver.state_size(), -1.0);
  for (int var = 0; var < 4; ++var)
    scatter_face_field(solver, gather_face_field(solver, U, var), var, V);
  EXPECT_EQ(U, V);
  testing::expect_error([&] { gather_face_field(solver, U, 4); }, {"variable 4"});
  testing::expect_error([&] { scatter_face_field(solver, FaceField(8), 0, V); },
                        {"face size 8", "9"});
}

TEST(CompressFields, GalewskyWindIsZonal) {
  const CubedSphere mesh(4, 3);
  const Galewsky tc(true);
  const ShallowWater solver(mesh, tc.params());
  FaceField u, v;
  velocity_face_fields(solver, tc.state(solver), u, v);
  double umax = 0;
  for (int e = 0; e < mesh.num_elements(); ++e)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        const LatLon ll(mesh.metric(e, i, j).x);
        const int f = mesh.face(e), r = mesh.ej(e) * 4 + j, c = mesh.ei(e) * 4 + i;
        EXPECT_NEAR(u.at(f, r, c), tc.zonal_wind(ll.lat), 1e-9);
        EXPECT_NEAR(v.at(f, r, c), 0.0, 1e-9);
        umax = std::fmax(umax, u.at(f, r, c));
      }
  EXPECT_GT(umax, 50.0);
}

// The Rossby-Haurwitz wave: both wind components non-zero, and at Ne = 2 the nodes include the
// poles (the face centres), where east and north are whatever LatLon makes of x = y = 0.
TEST(CompressFields, TheStateOfTheCorrectionFieldsIsTheStateAgain) {
  const CubedSphere mesh(2, 3);
  const Williamson6 tc;
  const ShallowWater solver(mesh, tc.params());
  const SwState U = tc.state(solver);
  const SwState V = state_from_correction_fields(solver, correction_fields(solver, U));
  ASSERT_EQ(V.size(), U.size());
  double scale = 0;
  for (double x : U) scale = std::fmax(scale, std::fabs(x));
  for (std::size_t k = 0; k < U.size(); ++k) EXPECT_NEAR(V[k], U[k], 1e-13 * scale) << k;
  Fields wrong = correction_fields(solver, U);
  wrong[2] = FaceField(4);
  testing::expect_error([&] { state_from_correction_fields(solver, wrong); },
                        {"set_velocity_face_fields", "face size 8 and 4", "8"});
  wrong.pop_back();
  testing::expect_error([&] { state_from_correction_fields(solver, wrong); },
                        {"h, u, v expected, got 2"});
}

}  // namespace
}  // namespace climate
