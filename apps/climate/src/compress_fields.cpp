#include "climate/compress_fields.h"

#include "climate/spherical.h"
#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

namespace {

void check(const ShallowWater& solver, const SwState& U, int var, const char* where) {
  if (var < 0 || var >= ShallowWater::kVars)
    throw Error(where, cat("variable ", var, " out of range (0 h, 1-3 momentum)"));
  if (U.size() != solver.state_size())
    throw Error(where,
                cat("state of ", U.size(), " values, the solver's has ", solver.state_size()));
}

// Calls visit(global node index g, element e's variable-block offset + node, face, row, col) for
// every node: the one place that knows the state ↔ FaceField layout.
template <class Visit>
void for_each_node(const ShallowWater& solver, int var, Visit visit) {
  const CubedSphere& mesh = solver.mesh();
  const int np = mesh.nodes_1d();
  for (int e = 0; e < mesh.num_elements(); ++e) {
    const std::size_t base = solver.offset(e, var);
    const int f = mesh.face(e), r0 = mesh.ej(e) * np, c0 = mesh.ei(e) * np;
    for (int j = 0; j < np; ++j)
      for (int i = 0; i < np; ++i)
        visit((e * np + j) * np + i, base + j * np + i, f, r0 + j, c0 + i);
  }
}

}  // namespace

FaceField gather_face_field(const ShallowWater& solver, const SwState& U, int var) {
  check(solver, U, var, "gather_face_field");
  FaceField field(solver.mesh().ne() * solver.mesh().nodes_1d());
  for_each_node(solver, var,
                [&](int, std::size_t k, int f, int r, int c) { field.at(f, r, c) = U[k]; });
  return field;
}

void scatter_face_field(const ShallowWater& solver, const FaceField& field, int var, SwState& U) {
  check(solver, U, var, "scatter_face_field");
  const int n = solver.mesh().ne() * solver.mesh().nodes_1d();
  if (field.n != n)
    throw Error("scatter_face_field", cat("field of face size ", field.n, ", the mesh's is ", n));
  for_each_node(solver, var,
                [&](int, std::size_t k, int f, int r, int c) { U[k] = field.at(f, r, c); });
}

void velocity_face_fields(const ShallowWater& solver, const SwState& U, FaceField& u,
                          FaceField& v) {
  check(solver, U, 0, "velocity_face_fields");
  const int n = solver.mesh().ne() * solver.mesh().nodes_1d();
  const std::size_t block = solver.mesh().nodes_per_element();
  u = FaceField(n);
  v = FaceField(n);
  for_each_node(solver, 0, [&](int g, std::size_t k, int f, int r, int c) {
    const double h = U[k];
    const Vec3 vel = {U[k + block] / h, U[k + 2 * block] / h, U[k + 3 * block] / h};
    const LatLon ll(solver.mesh().metric(g).x);
    u.at(f, r, c) = dot(vel, ll.east());
    v.at(f, r, c) = dot(vel, ll.north());
  });
}

void set_velocity_face_fields(const ShallowWater& solver, const FaceField& u, const FaceField& v,
                              SwState& U) {
  check(solver, U, 0, "set_velocity_face_fields");
  const int n = solver.mesh().ne() * solver.mesh().nodes_1d();
  if (u.n != n || v.n != n)
    throw Error("set_velocity_face_fields",
                cat("fields of face size ", u.n, " and ", v.n, ", the mesh's is ", n));
  const std::size_t block = solver.mesh().nodes_per_element();
  for_each_node(solver, 0, [&](int g, std::size_t k, int f, int r, int c) {
    const LatLon ll(solver.mesh().metric(g).x);
    const Vec3 m = U[k] * ll.tangent(u.at(f, r, c), v.at(f, r, c));
    for (int d = 0; d < 3; ++d) U[k + (d + 1) * block] = m[d];
  });
}

}  // namespace climate
