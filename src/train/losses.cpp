#include "exadnn/train/losses.h"

#include "exadnn/nn/loss.h"

namespace exadnn::train {

namespace {

// The target as values of the output's shape: floating targets reshaped, class indices one-hot.
Tensor as_values(const Tensor& output, const Tensor& target) {
  return is_floating(target.dtype()) ? target.reshape(output.shape())
                                     : nn::one_hot(target, output.size(-1), output.dtype());
}

Registry<LossFunction>* make_builtin() {
  auto* r = new Registry<LossFunction>("loss");
  r->add("cross_entropy", [](const Tensor& o, const Tensor& t) { return nn::cross_entropy(o, t); });
  r->add("mse", [](const Tensor& o, const Tensor& t) { return nn::mse_loss(o, as_values(o, t)); });
  r->add("l1", [](const Tensor& o, const Tensor& t) { return nn::l1_loss(o, as_values(o, t)); });
  r->add("huber",
         [](const Tensor& o, const Tensor& t) { return nn::huber_loss(o, as_values(o, t)); });
  return r;
}

}  // namespace

Registry<LossFunction>& losses() {
  static Registry<LossFunction>* table = make_builtin();  // never destroyed: used at exit too
  return *table;
}

}  // namespace exadnn::train
