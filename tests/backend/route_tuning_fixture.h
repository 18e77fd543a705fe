// What the tests of measured routes share (conv_tuning_test.cpp, conv_pool_routes_test.cpp,
// gemm_routes_test.cpp): exact f32 data, the wisdom file's lines, stand-in clocks of the other
// processes' CPU time, and fixtures with their own wisdom file.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backend/cpu/conv_tuning.h"
#include "backend/cpu/route_tuning.h"
#include "exadnn/exadnn.h"
#include "scratch_dir.h"

namespace exadnn::testing {

// An f32 leaf of multiples of 1/16 in [-1, 1] (a fixed sequence): every sum below is exact in
// f32, so every route gives the same values whatever its summation order.
inline Tensor sixteenths(const Shape& shape, int64_t seed) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((static_cast<int64_t>(i) * 7 + seed * 13) % 33 - 16) / 16.0;
  return from_vector<double>(v, shape, TensorOptions(DType::f32)).requires_grad_(true);
}

inline std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Clocks of the other processes' CPU time standing in for /proc/stat: a quiet machine (they use
// none) and a busy one (a core-hour between any two readings).
inline double quiet_machine() {
  return 0.0;
}
inline double busy_machine() {
  static std::atomic<long> calls{0};
  return 3600.0 * static_cast<double>(calls.fetch_add(1));
}

// Points the wisdom file at a scratch folder and starts from no known route, on a quiet machine.
class RouteTuning : public ::testing::Test {
 protected:
  RouteTuning() {
    ::setenv("EXADNN_CONV_WISDOM", dir_.file("wisdom").c_str(), 1);
    cpu::forget_tuned_routes();
    cpu::set_others_cpu_clock(&quiet_machine);
  }
  ~RouteTuning() override {
    ::unsetenv("EXADNN_CONV_WISDOM");
    cpu::forget_tuned_routes();
    cpu::set_others_cpu_clock(nullptr);
  }
  std::string wisdom() const { return dir_.file("wisdom"); }

 private:
  exadnn::testing::ScratchDir dir_{"exadnn_backend_"};
};

// The same, with every f32 convolution's route measured (ConvAlgorithm::fastest).
class ConvTuning : public RouteTuning {
 private:
  ConvAlgorithmGuard guard_{ConvAlgorithm::fastest};
};

}  // namespace exadnn::testing
