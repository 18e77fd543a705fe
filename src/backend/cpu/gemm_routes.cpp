#include "gemm_routes.h"

#include <oneapi/dnnl/dnnl.h>

#include <sstream>
#include <string_view>

#include "exadnn/backend/runtime.h"
#include "exadnn/core/error.h"
#include "gemm_provider.h"
#include "omp_team.h"
#include "onednn_matmul.h"
#include "route_tuning.h"

namespace exadnn::cpu {

namespace {

void dnnl_sgemm_call(const GemmArgs& g) {
  const ExactTeamScope team;  // dnnl_sgemm splits for the team it asks for (omp_team.h)
  const dnnl_status_t st = dnnl_sgemm(g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', g.m, g.n, g.k,
                                      static_cast<float>(g.alpha), static_cast<const float*>(g.a),
                                      g.lda, static_cast<const float*>(g.b), g.ldb,
                                      static_cast<float>(g.beta), static_cast<float*>(g.c), g.ldc);
  EXADNN_CHECK(st == dnnl_success, "gemm", "dnnl_sgemm failed with status ", static_cast<int>(st),
               " for m=", g.m, " n=", g.n, " k=", g.k);
}

bool measured(const GemmArgs& g) {
  const double flops =
      2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  return g.beta == 0.0 && flops >= kMeasuredGemmMinFlops && gemm_routes_measured();
}

constexpr GemmRoute kGemmRoutes[] = {GemmRoute::dnnl_sgemm, GemmRoute::onednn_matmul};
// Their names in the wisdom file, in the same order.
constexpr std::string_view kGemmRouteNames[] = {"dnnl-sgemm", "onednn-matmul"};

}  // namespace

std::string gemm_wisdom_key(const GemmArgs& g) {
  std::ostringstream s;
  s << "gemm/f32/routes2/" << machine_tag() << "/threads" << get_num_threads() << '/'
    << (g.trans_a ? 'T' : 'N') << (g.trans_b ? 'T' : 'N') << "/m" << g.m << "n" << g.n << "k" << g.k
    << "/ld" << g.lda << 'x' << g.ldb << 'x' << g.ldc;
  return s.str();
}

GemmRoute f32_gemm_route(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0 || g.k == 0) return GemmRoute::dnnl_sgemm;  // the primitive needs > 0
  if (g.trans_b && !g.trans_a) return GemmRoute::onednn_matmul;
  if (!measured(g)) return GemmRoute::dnnl_sgemm;
  return kGemmRoutes[tuned_route(gemm_wisdom_key(g), kGemmRouteNames,
                                 [&](size_t i) { run_f32_gemm(g, kGemmRoutes[i]); })];
}

void run_f32_gemm(const GemmArgs& g, GemmRoute route) {
  using dt = dnnl::memory::data_type;
  if (route == GemmRoute::onednn_matmul) return onednn_matmul(g, dt::f32, dt::f32);
  dnnl_sgemm_call(g);
}

}  // namespace exadnn::cpu
