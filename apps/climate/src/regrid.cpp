#include "climate/regrid.h"

#include <algorithm>
#include <cmath>

#include "climate/diagnostics.h"
#include "climate/spherical.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

// The element index (0 … ne − 1) and reference coordinate of the angle `angle` ∈ [−π/4, π/4]
// along one face direction.
void element_coordinate(double angle, int ne, int& index, double& ref) {
  const double s = (angle + kPi / 4) / (kPi / (2 * ne));  // in elements, [0, ne]
  index = std::clamp(static_cast<int>(std::floor(s)), 0, ne - 1);
  ref = std::clamp(2 * (s - index) - 1, -1.0, 1.0);
}

}  // namespace

MeshPoint locate(const CubedSphere& mesh, const Vec3& x) {
  EXADNN_CHECK(std::isfinite(norm(x)) && norm(x) > 0, "climate::locate",
               "the point must be a finite nonzero vector, got (", x[0], ", ", x[1], ", ", x[2],
               ")");
  int face = 0;
  double best = -1;
  Vec3 c, e1, e2;
  for (int f = 0; f < 6; ++f) {
    CubedSphere::face_axes(f, c, e1, e2);
    if (dot(c, x) > best) {
      best = dot(c, x);
      face = f;
    }
  }
  CubedSphere::face_axes(face, c, e1, e2);
  const double alpha = std::atan(dot(e1, x) / best), beta = std::atan(dot(e2, x) / best);
  int ei, ej;
  MeshPoint mp;
  element_coordinate(alpha, mesh.ne(), ei, mp.xi);
  element_coordinate(beta, mesh.ne(), ej, mp.eta);
  mp.elem = (face * mesh.ne() + ej) * mesh.ne() + ei;
  return mp;
}

void lagrange_values(const LglBasis& basis, double xi, double* out) {
  for (int k = 0; k < basis.size; ++k) {
    double l = 1;
    for (int m = 0; m < basis.size; ++m)
      if (m != k) l *= (xi - basis.nodes[m]) / (basis.nodes[k] - basis.nodes[m]);
    out[k] = l;
  }
}

PointInterpolator::PointInterpolator(const CubedSphere& mesh, const std::vector<Vec3>& points)
    : mesh_(mesh), points_(points) {
  const int np = mesh.nodes_1d();
  place_.reserve(points.size());
  lx_.resize(points.size() * np);
  ly_.resize(points.size() * np);
  for (std::size_t k = 0; k < points.size(); ++k) {
    place_.push_back(locate(mesh, points[k]));
    lagrange_values(mesh.basis(), place_[k].xi, &lx_[k * np]);
    lagrange_values(mesh.basis(), place_[k].eta, &ly_[k * np]);
  }
}

std::vector<double> PointInterpolator::apply(const std::vector<double>& field) const {
  EXADNN_CHECK(field.size() == static_cast<std::size_t>(mesh_.num_nodes()),
               "PointInterpolator::apply", "a nodal field has ", mesh_.num_nodes(),
               " values (the mesh's nodes), got ", field.size());
  const int np = mesh_.nodes_1d(), npe = mesh_.nodes_per_element();
  std::vector<double> out(size());
  for (std::size_t k = 0; k < size(); ++k) {
    // Σ_j ℓ_j(η) Σ_i ℓ_i(ξ) f_ij over the element's nodes (i along ξ, j along η).
    const double* f = &field[static_cast<std::size_t>(place_[k].elem) * npe];
    const double* lx = &lx_[k * np];
    const double* ly = &ly_[k * np];
    double s = 0;
    for (int j = 0; j < np; ++j) {
      double row = 0;
      for (int i = 0; i < np; ++i) row += lx[i] * f[j * np + i];
      s += ly[j] * row;
    }
    out[k] = s;
  }
  return out;
}

LatLonGrid::LatLonGrid(int nlat_, int nlon_) : nlat(nlat_), nlon(nlon_) {
  EXADNN_CHECK(nlat >= 1, "LatLonGrid", "the number of latitudes must be >= 1, got ", nlat);
  EXADNN_CHECK(nlon >= 1, "LatLonGrid", "the number of longitudes must be >= 1, got ", nlon);
}

std::vector<Vec3> LatLonGrid::points(double radius) const {
  std::vector<Vec3> pts;
  pts.reserve(static_cast<std::size_t>(nlat) * nlon);
  for (int i = 0; i < nlat; ++i) {
    const double lat = lat_deg(i) * kPi / 180;
    for (int j = 0; j < nlon; ++j) {
      const double lon = lon_deg(j) * kPi / 180;
      pts.push_back({radius * std::cos(lat) * std::cos(lon), radius * std::cos(lat) * std::sin(lon),
                     radius * std::sin(lat)});
    }
  }
  return pts;
}

LatLonFields regrid_state(const PointInterpolator& interp, const ShallowWater& solver,
                          const SwState& U) {
  const CubedSphere& mesh = solver.mesh();
  const int npe = mesh.nodes_per_element();
  // Nodal h and Cartesian velocity u = (hu) / h, [num_nodes] each.
  std::vector<double> h(mesh.num_nodes()), ux(h.size()), uy(h.size()), uz(h.size());
  for (int e = 0; e < mesh.num_elements(); ++e)
    for (int n = 0; n < npe; ++n) {
      const double hn = U[solver.offset(e, 0) + n];
      h[e * npe + n] = hn;
      ux[e * npe + n] = U[solver.offset(e, 1) + n] / hn;
      uy[e * npe + n] = U[solver.offset(e, 2) + n] / hn;
      uz[e * npe + n] = U[solver.offset(e, 3) + n] / hn;
    }
  LatLonFields out;
  out.h = interp.apply(h);
  out.vorticity = interp.apply(relative_vorticity(solver, U));
  const std::vector<double> px = interp.apply(ux), py = interp.apply(uy), pz = interp.apply(uz);
  out.u.resize(interp.size());
  out.v.resize(interp.size());
  for (std::size_t k = 0; k < interp.size(); ++k) {
    const LatLon ll(interp.point(k));  // the target point's own east and north vectors
    const Vec3 vel = {px[k], py[k], pz[k]};
    out.u[k] = dot(vel, ll.east());
    out.v[k] = dot(vel, ll.north());
  }
  return out;
}

}  // namespace climate
