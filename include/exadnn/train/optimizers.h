// The optimizers a training config names ("optimizer: {name: adam, lr: 1e-3}"), as a registry
// users extend: each kind has its defaults, builds the optimizer over a model's parameters, and
// says how many state tensors it keeps per parameter (for the memory estimate).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/optim/optimizer.h"
#include "exadnn/train/registry.h"

namespace exadnn::train {

/// An optimizer's settings as a config gives them (each kind reads the ones it has).
struct OptimizerSpec {
  std::string name = "sgd";
  double lr = 0.05;
  double momentum = 0.9;  ///< sgd, rmsprop
  bool nesterov = false;  ///< sgd
  double weight_decay = 0.0;
  double beta1 = 0.9, beta2 = 0.999;  ///< adam, adamw
  double eps = 1e-8;                  ///< adam, adamw, adagrad, rmsprop
};

struct OptimizerKind {
  /// Sets this kind's defaults before the config's own settings are read (AdamW decays its
  /// weights by 1e-2 unless told otherwise; only SGD has momentum by default).
  std::function<void(OptimizerSpec&)> defaults;
  std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor> params, const OptimizerSpec&)>
      make;
  /// State tensors of a parameter's size that it keeps per parameter (SGD with momentum: 1).
  std::function<int(const OptimizerSpec&)> state_buffers;
};

/// sgd, adam, adamw, adagrad, rmsprop, and every kind added with optimizers().add(name, kind).
Registry<OptimizerKind>& optimizers();

}  // namespace exadnn::train
