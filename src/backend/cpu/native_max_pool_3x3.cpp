// Max pooling with 3x3 windows, stride 2, padding 1 (ResNet's stem), one [h, w] plane at a time
// in two vectorised passes: the maximum of each input row's windows (hmax [h, ow], and hcol, its
// column), then the maximum over each window's rows of those. The element kept is the first
// maximum of the window in row-major order (the earliest row that holds the window's maximum,
// then that row's earliest column; the first NaN when there is one), as the generic loop and
// oneDNN choose it, so the backward pass routes every gradient to the same input.
//
// The row pass reads the plane split into its even and odd columns (even widths only), so the
// window of output column ox — columns 2ox-1, 2ox, 2ox+1 — is odd[ox-1], even[ox], odd[ox]:
// unit-stride loads the compiler vectorises.
#include <algorithm>
#include <vector>

#include "loops.h"
#include "nn_impl.h"
#include "vector_clones.h"

namespace exadnn::cpu::native {

namespace {

// True when v replaces the running maximum m: larger, or the first NaN.
template <class T>
inline bool takes(T v, T m) {
  return v > m || (v != v && m == m);
}

// hmax, hcol ([h, ow] each; hcol: the maximum's column, less 2ox) over a plane of even width
// w = 2 ow, split into its even and odd columns (even, odd: [h, ow] scratch). The flat loop runs
// across row ends; the first column of each row, whose window the border cuts to columns 0 and 1
// (odd[j - 1] is the previous row's), is redone after it.
template <class T>
EXADNN_VECTOR_CLONES void row_pass(const T* plane, int64_t h, int64_t ow, T* even, T* odd, T* hmax,
                                   int32_t* hcol) {
  const int64_t n = h * ow;
  for (int64_t j = 0; j < n; ++j) {
    even[j] = plane[2 * j];
    odd[j] = plane[2 * j + 1];
  }
  for (int64_t j = 1; j < n; ++j) {
    const T a = odd[j - 1], b = even[j], c = odd[j];
    const bool tb = takes(b, a);
    const T m = tb ? b : a;
    const int32_t at = tb ? 0 : -1;
    const bool tc = takes(c, m);
    hmax[j] = tc ? c : m;
    hcol[j] = tc ? 1 : at;
  }
  for (int64_t j = 0; j < n; j += ow) {
    const bool tc = takes(odd[j], even[j]);
    hmax[j] = tc ? odd[j] : even[j];
    hcol[j] = tc ? 1 : 0;
  }
}

// dst[ox], at[ox]: the first maximum over input rows [r0, r1) of hmax (rows of ow values), at
// its flat index in the plane (row r, column 2 ox + hcol).
template <class T>
EXADNN_VECTOR_CLONES void column_pass(const T* hmax, const int32_t* hcol, int64_t r0, int64_t r1,
                                      int64_t w, int64_t ow, T* dst, int32_t* at) {
  for (int64_t ox = 0; ox < ow; ++ox) {
    dst[ox] = hmax[r0 * ow + ox];
    at[ox] = static_cast<int32_t>(r0 * w + 2 * ox) + hcol[r0 * ow + ox];
  }
  for (int64_t r = r0 + 1; r < r1; ++r) {
    const T* v = hmax + r * ow;
    const int32_t* c = hcol + r * ow;
    for (int64_t ox = 0; ox < ow; ++ox) {
      const bool t = takes(v[ox], dst[ox]);
      dst[ox] = t ? v[ox] : dst[ox];
      at[ox] = t ? static_cast<int32_t>(r * w + 2 * ox) + c[ox] : at[ox];
    }
  }
}

// Per-thread scratch: the row halves, hmax and hcol of one plane, and the indices when the
// caller keeps none.
template <class T>
struct Scratch {
  std::vector<T> even, odd, hmax;
  std::vector<int32_t> hcol, at;
  void fit(const Pool2dGeometry& g) {
    hmax.resize(static_cast<size_t>(g.h * g.ow));
    even.resize(hmax.size());
    odd.resize(hmax.size());
    hcol.resize(hmax.size());
    at.resize(static_cast<size_t>(g.ow));
  }
};

}  // namespace

bool is_max_pool_3x3_s2(const Pool2dGeometry& g) {
  return g.kind == PoolKind::max && g.kh == 3 && g.kw == 3 && g.stride_h == 2 && g.stride_w == 2 &&
         g.pad_h == 1 && g.pad_w == 1 && g.h >= 2 && g.w >= 2 && g.w % 2 == 0 &&
         g.oh == (g.h - 1) / 2 + 1 && g.ow == g.w / 2;
}

template <class T>
void max_pool_3x3_s2_plane(const Pool2dGeometry& g, const T* src, T* dst, int32_t* ws) {
  thread_local Scratch<T> s;
  s.fit(g);
  row_pass(src, g.h, g.ow, s.even.data(), s.odd.data(), s.hmax.data(), s.hcol.data());
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const int64_t r0 = std::max<int64_t>(2 * oy - 1, 0), r1 = std::min<int64_t>(2 * oy + 2, g.h);
    int32_t* at = ws != nullptr ? ws + oy * g.ow : s.at.data();
    column_pass(s.hmax.data(), s.hcol.data(), r0, r1, g.w, g.ow, dst + oy * g.ow, at);
  }
}

template void max_pool_3x3_s2_plane<float>(const Pool2dGeometry&, const float*, float*, int32_t*);
template void max_pool_3x3_s2_plane<double>(const Pool2dGeometry&, const double*, double*,
                                            int32_t*);

}  // namespace exadnn::cpu::native
