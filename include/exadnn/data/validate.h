// Checks a training program runs on the data it loads, so bad data fails at load time with a
// message naming the file (and the example or element) instead of training on garbage: no
// examples, NaN or infinity among the values, class labels outside the model's classes.
#pragma once

#include <string>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/data/dataset.h"

namespace exadnn::data {

/// What a reader does with NaN or infinity in floating-point data (numbers too large for the
/// dtype they are read into count as infinity).
enum class NonFinite {
  reject,  ///< an Error naming the file and the first such value's position (default)
  allow,   ///< kept as data (e.g. NaN marking missing values that a transform fills in)
};

/// Throws unless `dataset` holds at least one example: "<source>: no examples ...".
void check_not_empty(const Dataset& dataset, const std::string& source);

/// Throws unless every value of `values` (any dtype; integers always pass) is finite:
/// "<source>: <what> holds nan at index [i, j]". `what` names the part, e.g. "dataset 'x'".
void check_finite(const Tensor& values, const std::string& source, const std::string& what);

/// Every example's class index, [size()], read through get_targets (no inputs) in chunks.
/// Throws, naming `source`, unless the targets are integers (u8, i32, i64) of shape [] each.
std::vector<int64_t> read_class_labels(const Dataset& dataset, const std::string& source);

/// The labels (read_class_labels), after checking every one is a class index in
/// [0, num_classes). The Error names `source` (the labels' file), the first bad example's index
/// and its label, e.g. "<source>: example 17 has label 12, outside the 10 classes [0, 9]".
std::vector<int64_t> check_class_labels(const Dataset& dataset, int64_t num_classes,
                                        const std::string& source);

}  // namespace exadnn::data
