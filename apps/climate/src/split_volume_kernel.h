// The split-form volume kernel of ShallowWater (shallow_water.cpp), for one instruction set:
// shallow_water.cpp includes this file twice, inside a namespace of its own, once for the build's
// baseline and once under `#pragma GCC target("avx2")` (AVX2 without FMA, so both give the same
// bits). No #include here: the file is read inside a namespace, after <algorithm>,
// <type_traits> and climate/shallow_water.h.
//
// The split-form volume terms: dq/dt = −(1/J) Σ_l 2 (D_il F#¹(q_ij, q_lj) + D_jl F#²(q_ij, q_il))
// with F#^i(a, b) = ({m}·{Ja^i}, {m}·{Ja^i} {u} + ½ g h_a h_b {Ja^i}) and {·} the mean of the two
// nodes' values. Symmetric and consistent (F#(q, q) = J a^i · F(q)), so the interface terms are
// those of the divergence form and mass still telescopes. Each pair's flux is computed once and
// given to both nodes.
//
// The elements go through in batches of kSplitLanes, their values interleaved [var][node][lane]
// so that each pair's flux is computed for the whole batch in SIMD lanes (one element's pairs
// are a few dozen dependent updates, which no vector unit widens); a lane past the last element
// repeats it and is not written back. Every element's arithmetic is the one-element order, so the
// fields do not depend on how elements are batched (or split over ranks). Each node's half
// velocity ½ m / h is formed once per stage, not once per pair.
template <int NP>
void split_kernel(int np_runtime, int nelem, const int* elems, const CubedSphere& mesh, double g,
                  const double* D, const double* U, double* dU, SplitScratch& scratch) {
  constexpr int L = kSplitLanes;
  const int np = NP > 0 ? NP : np_runtime;
  const int npe = np * np;
  double* q = scratch.q.data();            // [4][npe][L]: h, m_x, m_y, m_z
  double* half_u = scratch.half_u.data();  // [3][npe][L]
  double* ja1 = scratch.ja1.data();        // [3][npe][L]
  double* ja2 = scratch.ja2.data();        // [3][npe][L]
  double* acc = scratch.acc.data();        // [4][npe][L]
  auto at = [npe](int var, int node) { return (var * npe + node) * L; };
  for (int e0 = 0; e0 < nelem; e0 += L) {
    const int batch = std::min(L, nelem - e0);
    for (int l = 0; l < L; ++l) {
      const int e = e0 + std::min(l, batch - 1);
      const double* qe = U + static_cast<std::size_t>(e) * 4 * npe;
      const NodeMetric* met = &mesh.metric(elems[e] * npe);
      for (int n = 0; n < npe; ++n) {
        for (int v = 0; v < 4; ++v) q[at(v, n) + l] = qe[v * npe + n];
        const double half_inv_h = 0.5 / qe[n];
        for (int c = 0; c < 3; ++c) {
          half_u[at(c, n) + l] = qe[(c + 1) * npe + n] * half_inv_h;
          ja1[at(c, n) + l] = met[n].ja1[c];
          ja2[at(c, n) + l] = met[n].ja2[c];
        }
      }
    }
    std::fill(acc, acc + 4 * npe * L, 0.0);
    // The pair (a, b) along one direction (ja: that direction's metric), d_ab = D[a→b] and d_ba
    // the differentiation weights in the two nodes' rows; a == b gives to one node.
    auto pair = [&](auto same_node, int a, int b, const double* ja, double d_ab, double d_ba)
        __attribute__((always_inline)) {
#pragma omp simd
      for (int l = 0; l < L; ++l) {
        const double jx = 0.5 * (ja[at(0, a) + l] + ja[at(0, b) + l]),
                     jy = 0.5 * (ja[at(1, a) + l] + ja[at(1, b) + l]),
                     jz = 0.5 * (ja[at(2, a) + l] + ja[at(2, b) + l]);
        const double ha = q[at(0, a) + l], hb = q[at(0, b) + l];
        const double fh = 0.5 * ((q[at(1, a) + l] + q[at(1, b) + l]) * jx +
                                 (q[at(2, a) + l] + q[at(2, b) + l]) * jy +
                                 (q[at(3, a) + l] + q[at(3, b) + l]) * jz);
        const double p = 0.5 * g * ha * hb;
        const double f[4] = {fh, fh * (half_u[at(0, a) + l] + half_u[at(0, b) + l]) + p * jx,
                             fh * (half_u[at(1, a) + l] + half_u[at(1, b) + l]) + p * jy,
                             fh * (half_u[at(2, a) + l] + half_u[at(2, b) + l]) + p * jz};
        for (int v = 0; v < 4; ++v) {
          acc[at(v, a) + l] += 2 * d_ab * f[v];
          if constexpr (!decltype(same_node)::value) acc[at(v, b) + l] += 2 * d_ba * f[v];
        }
      }
    };
    const std::true_type same;
    const std::false_type distinct;
    for (int j = 0; j < np; ++j)
      for (int i = 0; i < np; ++i) {
        // Both directions' pairs alternate, in the order of the one-element loop.
        pair(same, j * np + i, j * np + i, ja1, D[i * np + i], D[i * np + i]);
        pair(same, i * np + j, i * np + j, ja2, D[i * np + i], D[i * np + i]);
        for (int l = i + 1; l < np; ++l) {
          pair(distinct, j * np + i, j * np + l, ja1, D[i * np + l], D[l * np + i]);
          pair(distinct, i * np + j, l * np + j, ja2, D[i * np + l], D[l * np + i]);
        }
      }
    for (int l = 0; l < batch; ++l) {
      double* out = dU + static_cast<std::size_t>(e0 + l) * 4 * npe;
      const NodeMetric* met = &mesh.metric(elems[e0 + l] * npe);
      for (int n = 0; n < npe; ++n) {
        const double inv_j = 1 / met[n].jac;
        for (int v = 0; v < 4; ++v) out[v * npe + n] = -acc[at(v, n) + l] * inv_j;
      }
    }
  }
}
