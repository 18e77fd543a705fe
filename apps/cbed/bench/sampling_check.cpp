// How much the classification stacks depend on the simulation's sampling, multislice against
// kinematic, on generated materials of the classification tool's default groups with its settings
// (a plane of >= 20 A, 2 mrad per output pixel; `exadnn_cbed_classify_train`):
//   1. the intensity a pattern loses beyond the 2/3 bandwidth limit (multislice; native pixels),
//      on 64 and 128 pixels;
//   2. the intensity that moves between the same material's 64- and 128-pixel stacks within
//      24 mrad (what the 64-pixel grid holds), each normalised to its intensity there: half the
//      L1 distance, for multislice and for kinematic stacks.
// It measures and prints; nothing is asserted (apps/cbed/README.md, "Classification").
//   usage: exadnn_cbed_sampling_check [MATERIALS=40]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cbed/generate.h"

namespace {

using cbed::GenerateOptions;

const std::vector<int> kGroups = {1,   2,   3,   4,   5,   14,  15,  16,  19,  33,  62,  63,  70,
                                  75,  76,  85,  88,  123, 139, 141, 143, 146, 148, 160, 166, 167,
                                  168, 173, 176, 186, 191, 194, 195, 198, 205, 221, 225, 227, 229};

// The stack [3, size, size] of material m.
std::vector<float> stack(int m, int size, bool kinematic, double detector_mrad) {
  GenerateOptions o;
  o.groups = kGroups;
  o.stack.kinematic = kinematic;
  o.stack.multislice.grid.nx = o.stack.multislice.grid.ny = size;
  o.stack.detector_mrad = detector_mrad;
  o.stack.multislice.measure_fft = false;
  return cbed::generate_material(m, o).patterns;
}

void print_spread(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("%s over %zu patterns: median %.3f, 90th percentile %.3f, max %.3f\n", what, v.size(),
              v[v.size() / 2], v[v.size() * 9 / 10], v.back());
}

}  // namespace

int main(int argc, char** argv) {
  const int materials = argc > 1 ? std::atoi(argv[1]) : 40;
  if (materials < 1) {
    std::fprintf(stderr, "usage: exadnn_cbed_sampling_check [MATERIALS >= 1]\n");
    return 2;
  }
  for (const int size : {64, 128}) {
    std::vector<double> lost;
    for (int m = 0; m < materials; ++m) {
      const std::vector<float> p = stack(m, size, false, 0);  // native pixels: nothing resampled
      const size_t n = size_t(size) * size;
      for (int a = 0; a < 3; ++a) {
        double sum = 0;
        for (size_t k = 0; k < n; ++k) sum += p[a * n + k];
        lost.push_back(1 - sum);
      }
    }
    std::printf("%d px, multislice: ", size);
    print_spread("intensity lost beyond the bandwidth limit", lost);
  }
  for (const bool kinematic : {false, true}) {
    std::vector<double> moved;
    for (int m = 0; m < materials; ++m) {
      const std::vector<float> coarse = stack(m, 64, kinematic, 2),
                               fine = stack(m, 128, kinematic, 2);
      for (int a = 0; a < 3; ++a) {
        std::vector<double> u, v;  // the pixels within 24 mrad of both, the same 2-mrad pixels
        for (int y = 0; y < 64; ++y)
          for (int x = 0; x < 64; ++x) {
            if (2 * std::hypot(x - 32, y - 32) > 24) continue;
            u.push_back(coarse[size_t(a) * 64 * 64 + size_t(y) * 64 + x]);
            v.push_back(fine[size_t(a) * 128 * 128 + size_t(y + 32) * 128 + size_t(x + 32)]);
          }
        double su = 0, sv = 0, distance = 0;
        for (size_t k = 0; k < u.size(); ++k) su += u[k], sv += v[k];
        for (size_t k = 0; k < u.size(); ++k) distance += std::abs(u[k] / su - v[k] / sv);
        moved.push_back(distance / 2);
      }
    }
    std::printf("%s: ", kinematic ? "kinematic" : "multislice");
    print_spread("intensity that moves between 64 and 128 px within 24 mrad", moved);
  }
}
