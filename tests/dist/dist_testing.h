// Fixtures shared by the dist tests: a small MLP and a fixed batch of 12 examples (12 splits evenly
// over 1, 2, 3 and 4 ranks or workers).
#pragma once

#include "testing.h"

namespace exadnn::dist::testing {

/// 6 → hidden → 3 with tanh, initialised from `seed`.
inline std::shared_ptr<nn::Sequential> small_mlp(uint64_t seed = 1, int64_t hidden = 16) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(6, hidden), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Linear>(hidden, 3)});
}

/// x: [12, 6] drawn from N(0, 1) with `seed`; y: [12] labels in {0, 1, 2}.
struct FixedBatch {
  Tensor x, y;
  explicit FixedBatch(uint64_t seed = 7) {
    Generator gen(seed);
    x = randn({12, 6}, TensorOptions(), &gen);
    y = from_vector<int64_t>({0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 2, 1});
  }
  /// Cross-entropy of `model` on rows [begin, begin + count).
  Tensor loss(nn::Module& model, int64_t begin = 0, int64_t count = 12) const {
    return nn::cross_entropy(model(x.narrow(0, begin, count)), y.narrow(0, begin, count));
  }
};

}  // namespace exadnn::dist::testing
