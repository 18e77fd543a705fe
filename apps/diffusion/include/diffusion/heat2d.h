// The 2-D heat equation u_t = a (u_xx + u_yy) + f on an n x n grid with u = 0 on the boundary,
// advanced by the explicit 5-point (FTCS) scheme
//   u'[i][j] = u[i][j] + r (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - 4 u[i][j]) + f[i][j],
// r = a dt / dx^2 (stable for r < 1/4), with an optional white-noise source f of amplitude
// `forcing` (uniform in [-forcing/2, forcing/2] at every interior point and step).
#pragma once

#include <cstdint>
#include <vector>

namespace exadnn::apps::diffusion {

struct Heat2dOptions {
  int n = 64;            ///< grid points per side (>= 4), boundary included
  double r = 0.2;        ///< a dt / dx^2, in (0, 1/4)
  double forcing = 1.0;  ///< amplitude of the random source (0: none)
  uint64_t seed = 1;     ///< the source's (and random_start's) stream
};

class Heat2d {
 public:
  /// Starts from u = 0; throws an exadnn::Error naming the bad option (n < 4, r outside (0, 1/4):
  /// the scheme's stability limit).
  explicit Heat2d(const Heat2dOptions& options);

  /// A few Gaussian hot spots on white noise in the interior, placed by the seed and `variant`
  /// (one workflow iteration each): short wavelengths make the stencil identifiable.
  void random_start(uint64_t variant);
  /// Sets the field: n * n values, row-major; the boundary is set to 0.
  void set_field(std::vector<float> u);
  /// One time step of the scheme.
  void step();

  const std::vector<float>& field() const { return u_; }  ///< [n, n] row-major
  int n() const { return options_.n; }
  /// The scheme's stencil as a 3x3 kernel [[0, r, 0], [r, 1 - 4r, r], [0, r, 0]], row-major.
  std::vector<double> stencil() const;

 private:
  double uniform();  // [0, 1), the seed's stream

  Heat2dOptions options_;
  std::vector<float> u_, next_;
  uint64_t state_;
};

}  // namespace exadnn::apps::diffusion
