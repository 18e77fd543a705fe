// The built-in optimizer kinds of the config's `optimizer` section.
#include "exadnn/train/optimizers.h"

#include "exadnn/optim/adagrad.h"
#include "exadnn/optim/adam.h"
#include "exadnn/optim/adamw.h"
#include "exadnn/optim/rmsprop.h"
#include "exadnn/optim/sgd.h"

namespace exadnn::train {

namespace {

void no_momentum(OptimizerSpec& o) {
  o.momentum = 0.0;
}

Registry<OptimizerKind>* make_builtin() {
  auto* r = new Registry<OptimizerKind>("optimizer");
  r->add("sgd", {[](OptimizerSpec&) {},
                 [](std::vector<Tensor> p, const OptimizerSpec& o) {
                   return std::make_unique<optim::SGD>(std::move(p),
                                                       optim::SGDOptions(o.lr)
                                                           .momentum(o.momentum)
                                                           .nesterov(o.nesterov)
                                                           .weight_decay(o.weight_decay));
                 },
                 [](const OptimizerSpec& o) { return o.momentum > 0 ? 1 : 0; }});
  r->add("adam", {no_momentum,
                  [](std::vector<Tensor> p, const OptimizerSpec& o) {
                    return std::make_unique<optim::Adam>(std::move(p),
                                                         optim::AdamOptions(o.lr)
                                                             .betas(o.beta1, o.beta2)
                                                             .eps(o.eps)
                                                             .weight_decay(o.weight_decay));
                  },
                  [](const OptimizerSpec&) { return 2; }});
  r->add("adamw", {[](OptimizerSpec& o) {
                     no_momentum(o);
                     o.weight_decay = 1e-2;
                   },
                   [](std::vector<Tensor> p, const OptimizerSpec& o) {
                     return std::make_unique<optim::AdamW>(std::move(p),
                                                           optim::AdamWOptions(o.lr)
                                                               .betas(o.beta1, o.beta2)
                                                               .eps(o.eps)
                                                               .weight_decay(o.weight_decay));
                   },
                   [](const OptimizerSpec&) { return 2; }});
  r->add("adagrad", {no_momentum,
                     [](std::vector<Tensor> p, const OptimizerSpec& o) {
                       return std::make_unique<optim::Adagrad>(
                           std::move(p),
                           optim::AdagradOptions(o.lr).eps(o.eps).weight_decay(o.weight_decay));
                     },
                     [](const OptimizerSpec&) { return 1; }});
  r->add("rmsprop", {no_momentum,
                     [](std::vector<Tensor> p, const OptimizerSpec& o) {
                       return std::make_unique<optim::RMSprop>(std::move(p),
                                                               optim::RMSpropOptions(o.lr)
                                                                   .momentum(o.momentum)
                                                                   .eps(o.eps)
                                                                   .weight_decay(o.weight_decay));
                     },
                     [](const OptimizerSpec& o) { return o.momentum > 0 ? 2 : 1; }});
  return r;
}

}  // namespace

Registry<OptimizerKind>& optimizers() {
  static Registry<OptimizerKind>* table = make_builtin();  // never destroyed: used at exit too
  return *table;
}

}  // namespace exadnn::train
