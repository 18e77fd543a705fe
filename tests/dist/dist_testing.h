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

/// Trains `model` for `steps` SGD steps (lr 0.1, momentum 0.9) on rows [begin, begin + count) of
/// the fixed batch, moved to `device` (the model's).
inline void train_on_fixed_batch(nn::Module& model, int64_t begin, int64_t count, int steps,
                                 Device device = Device::cpu()) {
  FixedBatch b;
  const Tensor x = b.x.narrow(0, begin, count).to(device);
  const Tensor y = b.y.narrow(0, begin, count).to(device);
  optim::SGD opt(model.parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    nn::cross_entropy(model(x), y).backward();
    opt.step();
  }
}

/// `steps` SGD steps (momentum 0.9) of cross-entropy on (x, y); the loss before each step.
inline std::vector<double> sgd_losses(nn::Module& model, const Tensor& x, const Tensor& y,
                                      int steps, double lr) {
  optim::SGD opt(model.parameters(), optim::SGDOptions(lr).momentum(0.9));
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    Tensor loss = nn::cross_entropy(model(x), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

/// Every parameter of `a` equals `b`'s within rtol (relative to max(1, |b|)), wherever they live.
inline ::testing::AssertionResult same_weights(nn::Module& a, nn::Module& b, double rtol) {
  const auto pa = a.parameters(), pb = b.parameters();
  for (size_t i = 0; i < pa.size(); ++i) {
    const auto va = exadnn::testing::values(pa[i]), vb = exadnn::testing::values(pb[i]);
    for (size_t j = 0; j < va.size(); ++j)
      if (std::abs(va[j] - vb[j]) > rtol * std::max(1.0, std::abs(vb[j])))
        return ::testing::AssertionFailure()
               << "parameter " << i << " element " << j << ": " << va[j] << " vs " << vb[j];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace exadnn::dist::testing
