// Helpers of the async tests: a small MLP, an SGD factory, the loss, and plain serial training
// (the reference every one-thread AsyncTrainer run must match bit for bit).
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "exadnn/exadnn.h"

namespace exadnn::testing {

inline std::shared_ptr<nn::Module> make_mlp(int64_t in, int64_t hidden, int64_t classes) {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(in, hidden), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(hidden, classes)});
}

inline async::OptimizerFactory sgd_factory(const optim::SGDOptions& options) {
  return [options](std::vector<Tensor> params) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<optim::SGD>(std::move(params), options);
  };
}

inline Tensor classification_loss(nn::Module& model, const data::Batch& batch) {
  return nn::cross_entropy(model(batch.inputs), batch.targets);
}

/// Trains `model` serially for epochs [0, epochs) of `loader`: zero_grad, loss, backward, step.
inline void train_serial(nn::Module& model, const data::DataLoader& loader,
                         const async::OptimizerFactory& make_optimizer,
                         const async::LossFunction& loss, int64_t epochs) {
  auto optimizer = make_optimizer(model.parameters());
  for (int64_t e = 0; e < epochs; ++e) {
    const std::vector<int64_t> order = loader.epoch_order(e);
    for (int64_t b = 0; b < loader.batches_per_epoch(); ++b) {
      const data::Batch batch = loader.build(b, e, order);
      optimizer->zero_grad();
      loss(model, batch).backward();
      optimizer->step();
    }
  }
}

/// Whether every parameter of `a` and `b` has the same bits.
inline bool same_bits(const nn::Module& a, const nn::Module& b) {
  const auto pa = a.parameters(), pb = b.parameters();
  if (pa.size() != pb.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i) {
    const Tensor x = pa[i].contiguous(), y = pb[i].contiguous();
    if (x.shape() != y.shape() || std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) != 0)
      return false;
  }
  return true;
}

/// Mean loss of `model` over the whole of `loader`'s epoch 0 (no graph).
inline double mean_loss(nn::Module& model, const data::DataLoader& loader,
                        const async::LossFunction& loss) {
  NoGradGuard no_grad;
  const std::vector<int64_t> order = loader.epoch_order(0);
  double sum = 0.0;
  int64_t n = 0;
  for (int64_t b = 0; b < loader.batches_per_epoch(); ++b) {
    const data::Batch batch = loader.build(b, 0, order);
    sum += loss(model, batch).item<double>() * static_cast<double>(batch.size());
    n += batch.size();
  }
  return sum / static_cast<double>(n);
}

}  // namespace exadnn::testing
