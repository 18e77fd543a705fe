// Helpers shared by the optim tests: deterministic parameters and gradients, one optimizer of
// each kind, and exact comparison of tensors.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "testing.h"

namespace exadnn::testing::optim_util {

/// A leaf of `shape` requiring grad with values sin(0.37·j + seed), in `dtype`.
inline Tensor make_param(const Shape& shape, double seed, DType dtype = DType::f64) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (size_t j = 0; j < v.size(); ++j) v[j] = std::sin(0.37 * static_cast<double>(j) + seed);
  Tensor p = from_vector<double>(v, shape).to(dtype);
  p.requires_grad_(true);
  return p;
}

/// Sets a deterministic gradient on each parameter for step `step` (cos-based, varies per step).
inline void set_grads(std::vector<Tensor> params, int step) {  // copies alias the parameters
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor& p = params[i];
    std::vector<double> g(static_cast<size_t>(p.numel()));
    for (size_t j = 0; j < g.size(); ++j)
      g[j] = std::cos(0.11 * static_cast<double>(j) + 1.3 * step + 0.7 * static_cast<double>(i)) *
             (1.0 + 0.2 * step);
    p.set_grad(from_vector<double>(g, p.shape()).to(p.dtype()));
  }
}

/// A factory of one optimizer configuration over some parameters.
using OptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

/// One configuration of each optimizer, with every state buffer in use.
inline std::vector<std::pair<std::string, OptimizerFactory>> all_optimizers() {
  using namespace exadnn::optim;
  return {
      {"SGD",
       [](std::vector<Tensor> p) -> std::unique_ptr<Optimizer> {
         return std::make_unique<SGD>(
             p, SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(1e-4));
       }},
      {"Adam",
       [](std::vector<Tensor> p) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Adam>(p, AdamOptions(1e-2).amsgrad(true).weight_decay(1e-3));
       }},
      {"AdamW",
       [](std::vector<Tensor> p) -> std::unique_ptr<Optimizer> {
         return std::make_unique<AdamW>(p, AdamWOptions(1e-2));
       }},
      {"Adagrad",
       [](std::vector<Tensor> p) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Adagrad>(p, AdagradOptions(0.1).lr_decay(0.01));
       }},
      {"RMSprop",
       [](std::vector<Tensor> p) -> std::unique_ptr<Optimizer> {
         return std::make_unique<RMSprop>(
             p, RMSpropOptions(1e-2).momentum(0.9).centered(true).weight_decay(1e-3));
       }},
  };
}

/// True when a and b hold bit-identical values (same shape).
inline ::testing::AssertionResult identical(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure() << "shape " << a.shape() << " vs " << b.shape();
  const std::vector<double> x = values(a), y = values(b);
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))))
      return ::testing::AssertionFailure() << "element " << i << ": " << x[i] << " vs " << y[i];
  return ::testing::AssertionSuccess();
}

}  // namespace exadnn::testing::optim_util
