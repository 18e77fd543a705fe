// Which implementation runs one f32 convolution pass, chosen by measuring per problem (geometry,
// bias, pass, thread count) among the routes below, and remembered in the wisdom file
// (route_tuning.h).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "exadnn/backend/nn_kernels.h"

namespace exadnn::cpu {

/// The ways exadnn can run an f32 convolution on the CPU.
enum class ConvRoute : uint8_t {
  onednn_plain,    ///< oneDNN on the NCHW tensors as stored (its GEMM-based kernels)
  onednn_blocked,  ///< oneDNN's blocked layout (nChw16c), reordered in and out
  onednn_nhwc,     ///< oneDNN on channels-last copies (brgconv kernels)
  im2col,          ///< exadnn's im2col + GEMM
  dense,           ///< one GEMM against the dense matrix, for images with fewer pixels than taps
  /// oneDNN's Winograd F(4x4, 3x3) kernels on its blocked layout: 3x3, stride 1, 64 or more
  /// channels in and out (elsewhere an Error, so the measurement leaves it out)
  onednn_winograd,
};
inline constexpr ConvRoute kConvRoutes[] = {ConvRoute::onednn_plain, ConvRoute::onednn_blocked,
                                            ConvRoute::onednn_nhwc,  ConvRoute::im2col,
                                            ConvRoute::dense,        ConvRoute::onednn_winograd};
const char* conv_route_name(ConvRoute route);

enum class ConvPass : uint8_t { forward, backward_data, backward_weights };

/// The route for this problem: known in this process, read from the wisdom file, or measured
/// now among `routes` by `run(route)` (which computes the pass into the call's outputs, or
/// throws an Error for a problem the route does not take; the caller runs the returned route
/// once more for its result). `op` names the step the convolution belongs to: a plain
/// convolution ("conv2d") or one fused with what follows it, whose routes are others. A
/// remembered route outside `routes` is not followed: the problem is measured again.
ConvRoute tuned_conv_route(const Conv2dGeometry& g, bool bias, ConvPass pass,
                           const std::function<void(ConvRoute)>& run,
                           std::span<const ConvRoute> routes = kConvRoutes,
                           std::string_view op = "conv2d");

/// The wisdom file's key of a problem (the step, the route set's version, machine, oneDNN
/// version, threads, pass, geometry, bias).
std::string conv_wisdom_key(const Conv2dGeometry& g, bool bias, ConvPass pass,
                            std::string_view op = "conv2d");

}  // namespace exadnn::cpu
