// Which implementation runs the CPU layer kernels (convolution, pooling, batch norm).
#pragma once

namespace exadnn {

/// How CPU f32 convolution, pooling and batch norm are computed.
enum class ConvAlgorithm {
  fastest,  ///< f32 convolutions: each problem's fastest route (oneDNN in its plain, blocked or
            ///< channels-last layout, im2col, or for images with fewer pixels than the kernel
            ///< has taps one dense GEMM), measured on first use and remembered in a
            ///< wisdom file (measured_routes.h); batch norm by exadnn's
            ///< channel-parallel loops; the rest as `onednn` (default)
  onednn,   ///< oneDNN primitives (batch norm included), forward and backward, layouts by a
            ///< fixed rule
  im2col,   ///< exadnn's own loops: im2col + GEMM for convolution, direct loops for the rest
};

/// Selects the algorithm for the whole process. The initial value comes from the environment
/// variable EXADNN_CONV=fastest|onednn|im2col (default fastest); an unknown value is an Error at
/// first use. f64 always runs im2col (oneDNN has no f64); softmax always runs exadnn's loops.
void set_conv_algorithm(ConvAlgorithm algorithm);
/// The algorithm in effect.
ConvAlgorithm conv_algorithm();
/// "fastest", "onednn" or "im2col".
const char* conv_algorithm_name(ConvAlgorithm algorithm);

/// Sets the algorithm for its lifetime and restores the previous one on exit.
class ConvAlgorithmGuard {
 public:
  explicit ConvAlgorithmGuard(ConvAlgorithm algorithm) : previous_(conv_algorithm()) {
    set_conv_algorithm(algorithm);
  }
  ~ConvAlgorithmGuard() { set_conv_algorithm(previous_); }
  ConvAlgorithmGuard(const ConvAlgorithmGuard&) = delete;
  ConvAlgorithmGuard& operator=(const ConvAlgorithmGuard&) = delete;

 private:
  ConvAlgorithm previous_;
};

}  // namespace exadnn
