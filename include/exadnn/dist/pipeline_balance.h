// Where to cut a Sequential into pipeline stages: by each layer's parameter count (no
// measurement), or by each layer's measured forward + backward time on a micro-batch, so the
// stages take near-equal time (the bubble formula's assumption).
//
//   std::vector<double> cost = measure_layer_costs(model, micro_batch);   // seconds per layer
//   std::vector<size_t> cuts = cut_evenly(cost, 4);     // first layers of stages 1..3
//   PipelineParallel pipe(model, comm, PipelineOptions().boundaries(cuts));
//
// PipelineOptions::balance_by(micro_batch) does the same inside PipelineParallel, collectively:
// every rank measures, the mean over the ranks decides, rank 0's cut is broadcast.
#pragma once

#include <cstddef>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/nn/container.h"

namespace exadnn::dist {

/// Seconds of each layer's forward and backward pass (the gradient of its input included) on
/// `micro_batch` [b, ...] fed through the layers before it: the median of `repeats` timings after
/// one warm-up each. The model is left as it was: run in eval mode (no batch statistics updated,
/// no random draws), its parameters' gradients restored afterwards.
std::vector<double> measure_layer_costs(const nn::Sequential& model, const Tensor& micro_batch,
                                        int repeats = 3);

/// Cuts `costs` (one per layer, ≥ 0) into `parts` consecutive non-empty stages whose largest sum
/// is the smallest possible; returns the first layer of stages 1 .. parts − 1. Error when there
/// are fewer layers than parts.
std::vector<size_t> cut_evenly(const std::vector<double>& costs, int parts);

}  // namespace exadnn::dist
