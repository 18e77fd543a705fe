// The DGSEM right-hand side: volume terms from the contravariant fluxes, surface terms lifted
// from the Rusanov flux of each interface (computed once and given to both sides, so mass is
// conserved to round-off), then Coriolis and the projection onto the tangent plane.
#include "climate/shallow_water.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "climate/rusanov.h"
#include "exadnn/core/error.h"

namespace climate {

ShallowWater::ShallowWater(const CubedSphere& mesh, ShallowWaterParams params)
    : ShallowWater(mesh, params, Partition(mesh, 1), 0) {}

ShallowWater::ShallowWater(const CubedSphere& mesh, ShallowWaterParams params,
                           const Partition& partition, int rank)
    : mesh_(mesh), params_(params) {
  EXADNN_CHECK(params.gravity > 0 && std::isfinite(params.gravity), "ShallowWater",
               "gravity must be positive and finite, got ", params.gravity);
  EXADNN_CHECK(partition.num_elements() == mesh.num_elements(), "ShallowWater", "a partition of ",
               partition.num_elements(), " elements given for a mesh of ", mesh.num_elements());
  EXADNN_CHECK(rank >= 0 && rank < partition.ranks(), "ShallowWater", "rank ", rank,
               " is not one of the partition's ", partition.ranks(), " ranks");
  elements_ = partition.owned(rank);
  g1_.resize(kVars * mesh.nodes_per_element());
  g2_.resize(kVars * mesh.nodes_per_element());
  split_.resize(mesh.nodes_per_element());
  build_face_nodes(partition, rank);
}

std::size_t ShallowWater::state_size() const {
  return elements_.size() * kVars * mesh_.nodes_per_element();
}

void ShallowWater::rhs(double /*t*/, const SwState& U, SwState& dU) const {
  volume_terms(U, dU);
  surface_terms(U, nullptr, dU);
}

void ShallowWater::surface_terms(const SwState& U, const double* traces, SwState& dU) const {
  EXADNN_CHECK(traces != nullptr || num_recv_ == 0, "ShallowWater", "this rank needs ", num_recv_,
               " traces from other ranks, but none were given");
  interface_terms(U, traces, dU);
  sources_and_projection(U, dU);
}

namespace {

// The volume terms of the local elements [0, nelem), elems[e] the global index of local element e
// (for its metric): dq/dt = −(1/J) (Σ_l D_il G¹_lj + Σ_l D_jl G²_il) with
// G^i = J a^i · F(q) at each node. NP = p + 1 when known at compile time (the loops unroll), or 0
// to take it from np. g1, g2: scratch of [4][np²].
template <int NP>
void volume_kernel(int np_runtime, int nelem, const int* elems, const CubedSphere& mesh, double g,
                   const double* D, const double* U, double* dU, double* g1, double* g2) {
  const int np = NP > 0 ? NP : np_runtime;
  const int npe = np * np;
  for (int e = 0; e < nelem; ++e) {
    const double* q = U + static_cast<std::size_t>(e) * 4 * npe;
    const NodeMetric* met = &mesh.metric(elems[e] * npe);
    for (int n = 0; n < npe; ++n) {
      const NodeMetric& m = met[n];
      const double h = q[n], mx = q[npe + n], my = q[2 * npe + n], mz = q[3 * npe + n];
      const double p = 0.5 * g * h * h;
      const double c1 = (m.ja1[0] * mx + m.ja1[1] * my + m.ja1[2] * mz) / h;  // J a¹ · u
      const double c2 = (m.ja2[0] * mx + m.ja2[1] * my + m.ja2[2] * mz) / h;
      g1[n] = h * c1;
      g1[npe + n] = mx * c1 + p * m.ja1[0];
      g1[2 * npe + n] = my * c1 + p * m.ja1[1];
      g1[3 * npe + n] = mz * c1 + p * m.ja1[2];
      g2[n] = h * c2;
      g2[npe + n] = mx * c2 + p * m.ja2[0];
      g2[2 * npe + n] = my * c2 + p * m.ja2[1];
      g2[3 * npe + n] = mz * c2 + p * m.ja2[2];
    }
    double* out = dU + static_cast<std::size_t>(e) * 4 * npe;
    for (int j = 0; j < np; ++j) {
      for (int i = 0; i < np; ++i) {
        const double inv_j = 1 / met[j * np + i].jac;
        for (int v = 0; v < 4; ++v) {
          const double* f1 = g1 + v * npe;
          const double* f2 = g2 + v * npe;
          double s = 0;
          for (int l = 0; l < np; ++l)
            s += D[i * np + l] * f1[j * np + l] + D[j * np + l] * f2[l * np + i];
          out[v * npe + j * np + i] = -s * inv_j;
        }
      }
    }
  }
}

namespace baseline {
#include "split_volume_kernel.h"
}  // namespace baseline
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLIMATE_AVX2_KERNELS 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "split_volume_kernel.h"
}  // namespace avx2
#pragma GCC pop_options
#endif

// The split kernel for this CPU: 4 lanes of AVX2 where it has them, else the baseline's two.
template <int NP>
void split_kernel(int np_runtime, int nelem, const int* elems, const CubedSphere& mesh, double g,
                  const double* D, const double* U, double* dU, SplitScratch& scratch) {
#ifdef CLIMATE_AVX2_KERNELS
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return avx2::split_kernel<NP>(np_runtime, nelem, elems, mesh, g, D, U, dU, scratch);
#endif
  baseline::split_kernel<NP>(np_runtime, nelem, elems, mesh, g, D, U, dU, scratch);
}

}  // namespace

void ShallowWater::volume_terms(const SwState& U, SwState& dU) const {
  EXADNN_CHECK(U.size() == state_size(), "ShallowWater", "a state of ", state_size(),
               " values expected, got ", U.size());
  dU.resize(U.size());
  const int np = mesh_.nodes_1d(), nelem = num_local_elements();
  const int* elems = elements_.data();
  const double g = params_.gravity;
  const double* D = mesh_.basis().diff.data();
  const bool split = params_.volume == VolumeForm::split;
  auto run = [&](auto np_const) {
    constexpr int NP = decltype(np_const)::value;
    if (split)
      split_kernel<NP>(np, nelem, elems, mesh_, g, D, U.data(), dU.data(), split_);
    else
      volume_kernel<NP>(np, nelem, elems, mesh_, g, D, U.data(), dU.data(), g1_.data(), g2_.data());
  };
  switch (np) {
    case 2:
      return run(std::integral_constant<int, 2>{});
    case 3:
      return run(std::integral_constant<int, 3>{});
    case 4:
      return run(std::integral_constant<int, 4>{});
    case 5:
      return run(std::integral_constant<int, 5>{});
    case 6:
      return run(std::integral_constant<int, 6>{});
    case 7:
      return run(std::integral_constant<int, 7>{});
    case 8:
      return run(std::integral_constant<int, 8>{});
    case 9:
      return run(std::integral_constant<int, 9>{});
    default:
      return run(std::integral_constant<int, 0>{});
  }
}

// The interfaces with at least one local side, in the mesh's order (so that a node on two of
// them, at an element's corner, receives their terms in the same order on every partition). A
// side another rank owns reads the trace buffer: slot s of partition.receives(rank) holds that
// element edge's [4][p+1] values.
void ShallowWater::build_face_nodes(const Partition& partition, int rank) {
  const int np = mesh_.nodes_1d(), npe = mesh_.nodes_per_element(), p = mesh_.degree();
  const double w_end = mesh_.basis().weights[0];
  std::vector<long> where(mesh_.num_elements(), -1);  // local index of each owned element
  for (int e = 0; e < num_local_elements(); ++e) where[elements_[e]] = e;
  std::vector<long> slot(4 * static_cast<std::size_t>(mesh_.num_elements()), -1);
  const std::vector<Partition::Trace> recv = partition.receives(rank);
  num_recv_ = recv.size();
  for (std::size_t s = 0; s < recv.size(); ++s) slot[4 * recv[s].elem + recv[s].edge] = s;
  send_.clear();
  for (const Partition::Trace& t : partition.sends(rank))
    send_.push_back({static_cast<int>(where[t.elem]), t.edge});
  // The offset of an element's node's h value; false for another rank's element.
  auto locate = [&](int elem, int edge, int node, int k, std::size_t& base) {
    if (where[elem] >= 0) {
      base = offset(static_cast<int>(where[elem]), 0) + node;
      return true;
    }
    base = static_cast<std::size_t>(slot[4 * elem + edge]) * kVars * np + k;
    return false;
  };
  face_nodes_.clear();
  face_remote_.clear();
  for (const Interface& f : mesh_.interfaces()) {
    if (where[f.elem_l] < 0 && where[f.elem_r] < 0) continue;
    for (int k = 0; k < np; ++k) {
      const int kr = f.flip ? p - k : k;
      int il, jl, ir, jr;
      mesh_.edge_node(f.edge_l, k, il, jl);
      mesh_.edge_node(f.edge_r, kr, ir, jr);
      const int nl = jl * np + il, nr = jr * np + ir;
      const Vec3 N = mesh_.scaled_normal(f.elem_l, f.edge_l, k);
      const Vec3 Nr = mesh_.scaled_normal(f.elem_r, f.edge_r, kr);
      FaceNode fn;
      const bool local_l = locate(f.elem_l, f.edge_l, nl, k, fn.base_l);
      const bool local_r = locate(f.elem_r, f.edge_r, nr, kr, fn.base_r);
      face_remote_.push_back((local_l ? 0 : 1) | (local_r ? 0 : 2));
      fn.len_l = norm(N);
      fn.len_r = norm(Nr);
      fn.m_l = (1 / fn.len_l) * N;
      fn.m_r = (1 / fn.len_r) * Nr;
      fn.lift_l = 1 / (mesh_.metric(f.elem_l * npe + nl).jac * w_end);
      fn.lift_r = 1 / (mesh_.metric(f.elem_r * npe + nr).jac * w_end);
      face_nodes_.push_back(fn);
    }
  }
  if (num_recv_ == 0) face_remote_.clear();
}

// At each node of an interface: dq/dt −= (|N| F*·m̂ − N · F(q)) / (J w_end) on both sides, with
// N the side's scaled outward normal and m̂ = N_l / |N_l| (−m̂ seen from the right side). A rank
// that owns one side only computes the same F* from the same operands as the other side's rank.
void ShallowWater::interface_terms(const SwState& U, const double* traces, SwState& dU) const {
  if (num_recv_ == 0)
    interface_loop<true>(U, traces, dU);
  else
    interface_loop<false>(U, traces, dU);
}

// kAllLocal: every side is in the state (one process, or a rank without neighbours): the stride
// is (p+1)² and no side is skipped, which the compiler can use (about 5 % of the rhs at (16, 3)).
template <bool kAllLocal>
void ShallowWater::interface_loop(const SwState& U, const double* traces, SwState& dU) const {
  const double g = params_.gravity;
  const int npe = mesh_.nodes_per_element(), np = mesh_.nodes_1d();
  for (std::size_t n = 0; n < face_nodes_.size(); ++n) {
    const FaceNode& f = face_nodes_[n];
    const bool local_l = kAllLocal || !(face_remote_[n] & 1);
    const bool local_r = kAllLocal || !(face_remote_[n] & 2);
    const int stride_l = local_l ? npe : np, stride_r = local_r ? npe : np;
    const double* src_l = local_l ? U.data() : traces;
    const double* src_r = local_r ? U.data() : traces;
    Point4 ql, qr, fstar, fl, fr;
    for (int v = 0; v < kVars; ++v) {
      ql[v] = src_l[f.base_l + v * stride_l];
      qr[v] = src_r[f.base_r + v * stride_r];
    }
    rusanov_flux(ql, qr, f.m_l, g, fstar, fl);
    if (local_l)
      for (int v = 0; v < kVars; ++v)
        dU[f.base_l + v * stride_l] -= f.lift_l * f.len_l * (fstar[v] - fl[v]);
    if (local_r) {
      // The right side's own flux through its own normal (the one its volume term used).
      normal_flux(qr, f.m_r, g, fr);
      for (int v = 0; v < kVars; ++v)
        dU[f.base_r + v * stride_r] -= f.lift_r * (-f.len_l * fstar[v] - f.len_r * fr[v]);
    }
  }
}

void ShallowWater::pack_traces(const SwState& U, double* out) const {
  const int np = mesh_.nodes_1d();
  for (const SendTrace& t : send_) {
    const double* q = U.data() + offset(t.elem, 0);
    for (int v = 0; v < kVars; ++v)
      for (int k = 0; k < np; ++k) {
        int i, j;
        mesh_.edge_node(t.edge, k, i, j);
        *out++ = q[v * mesh_.nodes_per_element() + j * np + i];
      }
  }
}

// d(hu)/dt −= 2 Ω × (hu), then d(hu)/dt ← (I − n nᵀ) d(hu)/dt.
void ShallowWater::sources_and_projection(const SwState& U, SwState& dU) const {
  const int npe = mesh_.nodes_per_element();
  const Vec3& om = params_.omega;
  for (int e = 0; e < num_local_elements(); ++e) {
    const double* q = U.data() + offset(e, 0);
    double* d = dU.data() + offset(e, 0);
    for (int n = 0; n < npe; ++n) {
      const Vec3& nn = mesh_.metric(elements_[e] * npe + n).n;
      const Vec3 mom = {q[npe + n], q[2 * npe + n], q[3 * npe + n]};
      const Vec3 cor = cross(om, mom);
      Vec3 t = {d[npe + n] - 2 * cor[0], d[2 * npe + n] - 2 * cor[1], d[3 * npe + n] - 2 * cor[2]};
      t = t - dot(t, nn) * nn;
      d[npe + n] = t[0];
      d[2 * npe + n] = t[1];
      d[3 * npe + n] = t[2];
    }
  }
}

double ShallowWater::stable_dt(const SwState& U, double cfl) const {
  EXADNN_CHECK(U.size() == state_size(), "ShallowWater", "a state of ", state_size(),
               " values expected, got ", U.size());
  const int npe = mesh_.nodes_per_element();
  double lam = 0;
  for (int e = 0; e < num_local_elements(); ++e) {
    const double* q = U.data() + offset(e, 0);
    for (int n = 0; n < npe; ++n) {
      const NodeMetric& m = mesh_.metric(elements_[e] * npe + n);
      const double h = q[n];
      const Vec3 u = {q[npe + n] / h, q[2 * npe + n] / h, q[3 * npe + n] / h};
      const double c = std::sqrt(params_.gravity * std::max(h, 0.0));
      const double l =
          (std::abs(dot(m.ja1, u)) + c * norm(m.ja1) + std::abs(dot(m.ja2, u)) + c * norm(m.ja2)) /
          m.jac;
      lam = std::max(lam, l);
    }
  }
  if (!(lam > 0)) return std::numeric_limits<double>::infinity();
  const std::vector<double>& xi = mesh_.basis().nodes;
  return cfl * (xi[1] - xi[0]) / lam;
}

SwState ShallowWater::make_state(
    const std::function<void(const Vec3& x, double& h, Vec3& u)>& fill) const {
  SwState U(state_size());
  const int npe = mesh_.nodes_per_element();
  for (int e = 0; e < num_local_elements(); ++e) {
    for (int n = 0; n < npe; ++n) {
      const NodeMetric& m = mesh_.metric(elements_[e] * npe + n);
      double h = 0;
      Vec3 u = {0, 0, 0};
      fill(m.x, h, u);
      u = u - dot(u, m.n) * m.n;
      U[offset(e, 0) + n] = h;
      for (int k = 0; k < 3; ++k) U[offset(e, 1 + k) + n] = h * u[k];
    }
  }
  return U;
}

double ShallowWater::mass(const SwState& U) const {
  const int npe = mesh_.nodes_per_element();
  double total = 0;
  for (int e = 0; e < num_local_elements(); ++e) {
    double s = 0;
    for (int n = 0; n < npe; ++n)
      s += mesh_.area_weight(elements_[e] * npe + n) * U[offset(e, 0) + n];
    total += s;
  }
  return total;
}

}  // namespace climate
