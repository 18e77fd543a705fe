// The process-wide choice between oneDNN and exadnn's own loops for the CPU layer kernels.
#include "exadnn/backend/conv_algorithm.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "exadnn/core/error.h"

namespace exadnn {

namespace {

constexpr int kUnset = -1;
std::atomic<int> g_algorithm{kUnset};

ConvAlgorithm from_environment() {
  const char* env = std::getenv("EXADNN_CONV");
  if (env == nullptr || *env == '\0') return ConvAlgorithm::fastest;
  const std::string v(env);
  if (v == "fastest") return ConvAlgorithm::fastest;
  if (v == "onednn") return ConvAlgorithm::onednn;
  if (v == "im2col") return ConvAlgorithm::im2col;
  throw Error("EXADNN_CONV", "unknown value '" + v + "'; expected fastest, onednn or im2col");
}

}  // namespace

void set_conv_algorithm(ConvAlgorithm algorithm) {
  g_algorithm.store(static_cast<int>(algorithm), std::memory_order_relaxed);
}

ConvAlgorithm conv_algorithm() {
  int a = g_algorithm.load(std::memory_order_relaxed);
  if (a == kUnset) {
    const int env = static_cast<int>(from_environment());
    g_algorithm.compare_exchange_strong(a, env);  // a set_conv_algorithm in between wins
    a = g_algorithm.load(std::memory_order_relaxed);
  }
  return static_cast<ConvAlgorithm>(a);
}

const char* conv_algorithm_name(ConvAlgorithm algorithm) {
  switch (algorithm) {
    case ConvAlgorithm::fastest:
      return "fastest";
    case ConvAlgorithm::onednn:
      return "onednn";
    case ConvAlgorithm::im2col:
      return "im2col";
  }
  return "?";
}

}  // namespace exadnn
