// The CPU problems whose implementation exadnn picks by measuring: each f32 convolution pass
// (with EXADNN_CONV=fastest, the default) and each large f32 GEMM that oneDNN can run two ways
// (with EXADNN_GEMM=auto, the default). A choice is measured once, on first use, and remembered
// in a wisdom file (~/.cache/exadnn/conv_wisdom, or $EXADNN_CONV_WISDOM), so a later run on the
// same machine takes the same routes and rounds the same way.
#pragma once

namespace exadnn {

/// Problems this process measured while other processes used the cores: their routes serve this
/// process but are not written to the wisdom file, so a later run measures them again and may
/// take other routes, which round differently. 0: every route this process took is remembered
/// (or came from the wisdom file), and a rerun takes the same ones. EXADNN_CONV=onednn and
/// EXADNN_GEMM=onednn fix every route by rule instead.
long long measured_routes_not_remembered();

}  // namespace exadnn
