#include "conv_tuning.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "exadnn/backend/runtime.h"
#include "exadnn/core/error.h"
#include "nn_impl.h"
#include "route_tuning.h"

namespace exadnn::cpu {

namespace {

const char* pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::forward:
      return "fwd";
    case ConvPass::backward_data:
      return "bwd_data";
    case ConvPass::backward_weights:
      return "bwd_weights";
  }
  return "?";
}

}  // namespace

std::string conv_wisdom_key(const Conv2dGeometry& g, bool bias, ConvPass pass,
                            std::string_view op) {
  std::ostringstream s;
  // "routes6": measured among the six routes, written only when measured on a quiet machine,
  // since the fused conv + pool step's oneDNN passes were measured in released memory (each run
  // its own scratch, 2026-12-07); older lines, chosen against oneDNN runs in fresh memory
  // ("routes5"), a slower im2col ("routes4") or on a busy machine ("routes3"), are ignored.
  // With EXADNN_CONV_WINOGRAD=0 the routes measured are others: a line naming Winograd must
  // not be followed then (it would fail), nor a choice made without it when it is back.
  s << op << "/f32/routes6" << (onednn::winograd_enabled() ? "" : "-nowinograd") << '/'
    << machine_tag() << "/threads" << get_num_threads() << '/' << pass_name(pass) << "/n" << g.n
    << "c" << g.c << "h" << g.h << "w" << g.w << "o" << g.o << "k" << g.kh << 'x' << g.kw << "s"
    << g.stride_h << 'x' << g.stride_w << "p" << g.pad_h << 'x' << g.pad_w << "d" << g.dilation_h
    << 'x' << g.dilation_w << "g" << g.groups << (bias ? "b1" : "b0");
  return s.str();
}

const char* conv_route_name(ConvRoute route) {
  switch (route) {
    case ConvRoute::onednn_plain:
      return "onednn-plain";
    case ConvRoute::onednn_blocked:
      return "onednn-blocked";
    case ConvRoute::onednn_nhwc:
      return "onednn-nhwc";
    case ConvRoute::im2col:
      return "im2col";
    case ConvRoute::dense:
      return "dense";
    case ConvRoute::onednn_winograd:
      return "onednn-winograd";
  }
  return "?";
}

ConvRoute tuned_conv_route(const Conv2dGeometry& g, bool bias, ConvPass pass,
                           const std::function<void(ConvRoute)>& run,
                           std::span<const ConvRoute> routes, std::string_view op) {
  EXADNN_CHECK(!routes.empty(), "conv2d", "no route to measure for ", op);
  std::vector<std::string_view> names;
  for (ConvRoute r : routes) names.push_back(conv_route_name(r));
  return routes[tuned_route(conv_wisdom_key(g, bias, pass, op), names,
                            [&](size_t i) { run(routes[i]); })];
}

}  // namespace exadnn::cpu
