// Builds the nn::Sequential a config's `model` list describes, inferring each layer's input size
// from the data's sample shape.
#pragma once

#include <memory>

#include "exadnn/core/dims.h"
#include "exadnn/nn/container.h"
#include "exadnn/train/layers.h"
#include "exadnn/train/memory_budget.h"

namespace exadnn::train {

/// `sample_shape` is one example's shape (e.g. [1, 28, 28]). A layer that cannot take the shape
/// it receives (linear after an image without flatten, conv2d on flat data, ...) is an Error
/// naming the layer, its config line and the shape. With a `budget`, each layer's parameters are
/// counted before it is allocated and its activations after: a model that cannot fit is refused
/// (memory_budget.h) before its large layers exist.
std::shared_ptr<nn::Sequential> build_model(const std::vector<LayerSpec>& layers,
                                            const Shape& sample_shape,
                                            MemoryBudget* budget = nullptr);

}  // namespace exadnn::train
