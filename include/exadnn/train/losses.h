// The losses a training config names ("loss: cross_entropy"), as a registry users extend.
#pragma once

#include <functional>

#include "exadnn/core/tensor.h"
#include "exadnn/train/registry.h"

namespace exadnn::train {

/// A loss of a batch: output [B, ...] of the model, target [B] (class indices) or [B, ...]
/// (values); returns a 0-d tensor.
using LossFunction = std::function<Tensor(const Tensor& output, const Tensor& target)>;

/// cross_entropy (class indices), mse, l1 and huber (values, or class indices one-hot encoded
/// to the output's width), and every loss added with losses().add(name, f).
Registry<LossFunction>& losses();

}  // namespace exadnn::train
