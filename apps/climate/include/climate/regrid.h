// Regridding from the cubed sphere's nodes to arbitrary points of the sphere, and to a regular
// latitude–longitude grid: each target point is located on its cube face and element (the
// gnomonic map inverted) and the element's degree-p Lagrange interpolant is evaluated at the
// point's reference coordinates (ξ, η). Exact for a field that is a polynomial of degree p in
// (ξ, η) on every element, so the interpolation adds no error of its own to a DG solution.
#pragma once

#include <vector>

#include "climate/cubed_sphere.h"
#include "climate/shallow_water.h"

namespace climate {

/// A point's place on the mesh: element e and reference coordinates (ξ, η) ∈ [−1, 1]².
struct MeshPoint {
  int elem;
  double xi, eta;
};

/// Locates the point x (any nonzero vector; its direction counts) on the mesh: the cube face whose
/// centre direction is closest, then α = atan((x · e1) / (x · c)), β alike, and the element and
/// (ξ, η) from them (points on an element edge go to either side: the interpolant is continuous
/// there only to the DG solution's jump).
MeshPoint locate(const CubedSphere& mesh, const Vec3& x);

/// The Lagrange basis of the LGL nodes at ξ: out[k] = ℓ_k(ξ), k = 0 … p.
void lagrange_values(const LglBasis& basis, double xi, double* out);

/// Evaluates nodal fields at a fixed set of points. Keeps a reference to `mesh`.
class PointInterpolator {
 public:
  PointInterpolator(const CubedSphere& mesh, const std::vector<Vec3>& points);

  std::size_t size() const { return place_.size(); }
  const Vec3& point(std::size_t k) const { return points_[k]; }
  const MeshPoint& place(std::size_t k) const { return place_[k]; }
  /// field: shape [num_nodes] in global node order → its interpolant at every point, [size()].
  std::vector<double> apply(const std::vector<double>& field) const;

 private:
  const CubedSphere& mesh_;
  std::vector<Vec3> points_;      // [points]
  std::vector<MeshPoint> place_;  // [points]
  std::vector<double> lx_, ly_;   // [points][p+1]: ℓ_k(ξ), ℓ_k(η)
};

/// A regular latitude–longitude grid of cell centres: lat_i = −90 + (i + ½) 180 / nlat,
/// lon_j = −180 + (j + ½) 360 / nlon [degrees] (no point on a pole). Point (i, j) is index
/// i nlon + j (latitude slow, longitude fast: the (lat, lon) order of the NetCDF variables).
struct LatLonGrid {
  /// nlat ≥ 1, nlon ≥ 1 (refused otherwise, naming the value).
  LatLonGrid(int nlat, int nlon);
  int nlat, nlon;
  double lat_deg(int i) const { return -90.0 + (i + 0.5) * 180.0 / nlat; }
  double lon_deg(int j) const { return -180.0 + (j + 0.5) * 360.0 / nlon; }
  /// The points on the sphere of radius `radius`, [nlat · nlon].
  std::vector<Vec3> points(double radius) const;
};

/// A state's fields on a latitude–longitude grid, each [nlat · nlon]: h [m], the eastward and
/// northward wind u, v [m/s] (the interpolated Cartesian velocity projected on e_λ and e_φ at
/// the point) and the relative vorticity [1/s] (relative_vorticity's nodal field, interpolated).
struct LatLonFields {
  std::vector<double> h, u, v, vorticity;
};

/// Regrids U with `interp` (built on the solver's mesh from LatLonGrid::points).
LatLonFields regrid_state(const PointInterpolator& interp, const ShallowWater& solver,
                          const SwState& U);

}  // namespace climate
