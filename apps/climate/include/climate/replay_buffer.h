// A bounded replay buffer of training examples (input, target) for in-situ training: the newest
// `capacity` examples are kept (a ring: a full buffer drops its oldest), and a training round
// draws a uniform sample of them, so the network keeps seeing earlier output steps while the
// flow evolves and the memory stays fixed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "exadnn/core/dims.h"

namespace exadnn::data {
class TensorDataset;
}

namespace climate {

class ReplayBuffer {
 public:
  /// Room for `capacity` ≥ 1 examples of f32 inputs `input_shape` and targets `target_shape`
  /// (the whole memory is taken now). An Error names a bad capacity or an empty shape.
  ReplayBuffer(int64_t capacity, exadnn::Shape input_shape, exadnn::Shape target_shape);

  int64_t capacity() const { return capacity_; }
  /// Examples held (≤ capacity).
  int64_t size() const { return size_; }
  /// Examples pushed since the start (those dropped included).
  int64_t pushed() const { return pushed_; }
  const exadnn::Shape& input_shape() const { return input_shape_; }
  const exadnn::Shape& target_shape() const { return target_shape_; }

  /// Copies one example in (input: input_shape's numel floats, target: target_shape's); when
  /// full, it replaces the oldest.
  void push(const float* input, const float* target);
  /// `count` distinct examples drawn uniformly without replacement (every example, in age order
  /// from the oldest, when count ≥ size), as a dataset: inputs [count, ...input_shape], targets
  /// [count, ...target_shape]. An Error when the buffer is empty or count < 1.
  std::shared_ptr<exadnn::data::TensorDataset> draw(int64_t count, uint64_t seed) const;
  /// The `count` newest examples (fewer if the buffer holds fewer), oldest first.
  std::shared_ptr<exadnn::data::TensorDataset> newest(int64_t count) const;

 private:
  // Slot of the k-th example in age order (0: the oldest held).
  int64_t slot(int64_t k) const;
  std::shared_ptr<exadnn::data::TensorDataset> gather(const std::vector<int64_t>& ages) const;

  int64_t capacity_;
  exadnn::Shape input_shape_, target_shape_;
  int64_t in_floats_, out_floats_;
  std::vector<float> inputs_, targets_;  // [capacity][in_floats], [capacity][out_floats]
  int64_t size_ = 0, next_ = 0, pushed_ = 0;
};

}  // namespace climate
