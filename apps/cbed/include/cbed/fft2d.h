// A 2-D complex FFT of one fixed size over a buffer it owns: FFTW plans made once in the
// constructor and reused for every transform (FFTW stays out of this header).
#pragma once

#include <complex>
#include <memory>

namespace cbed {

class Fft2d {
 public:
  /// Plans for an ny x nx grid; `measure` lets FFTW time candidate algorithms (slower to make,
  /// faster to run), otherwise it estimates.
  Fft2d(int ny, int nx, bool measure = true);
  ~Fft2d();
  Fft2d(const Fft2d&) = delete;
  Fft2d& operator=(const Fft2d&) = delete;

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  /// The buffer, [ny, nx] row-major, that the transforms work on in place.
  std::complex<double>* data() { return data_; }
  const std::complex<double>* data() const { return data_; }
  /// data[k] = sum_m data[m] exp(-2 pi i k.m / n), unnormalised.
  void forward();
  /// data[m] = sum_k data[k] exp(+2 pi i k.m / n), unnormalised (forward then inverse = n times).
  void inverse();

 private:
  struct Plans;
  int ny_, nx_;
  std::complex<double>* data_ = nullptr;
  std::unique_ptr<Plans> plans_;
};

}  // namespace cbed
