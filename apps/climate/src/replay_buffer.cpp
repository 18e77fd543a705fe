#include "climate/replay_buffer.h"

#include <exadnn/exadnn.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

namespace climate {

ReplayBuffer::ReplayBuffer(int64_t capacity, exadnn::Shape input_shape, exadnn::Shape target_shape)
    : capacity_(capacity),
      input_shape_(input_shape),
      target_shape_(target_shape),
      in_floats_(input_shape.numel()),
      out_floats_(target_shape.numel()) {
  EXADNN_CHECK(capacity >= 1, "climate::ReplayBuffer", "capacity ", capacity,
               ": need room for at least one example");
  EXADNN_CHECK(!input_shape.empty() && in_floats_ > 0, "climate::ReplayBuffer", "the input shape ",
               input_shape.str(), " holds no values");
  EXADNN_CHECK(!target_shape.empty() && out_floats_ > 0, "climate::ReplayBuffer",
               "the target shape ", target_shape.str(), " holds no values");
  inputs_.resize(static_cast<size_t>(capacity * in_floats_));
  targets_.resize(static_cast<size_t>(capacity * out_floats_));
}

void ReplayBuffer::push(const float* input, const float* target) {
  std::memcpy(&inputs_[next_ * in_floats_], input, in_floats_ * sizeof(float));
  std::memcpy(&targets_[next_ * out_floats_], target, out_floats_ * sizeof(float));
  next_ = (next_ + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
  ++pushed_;
}

int64_t ReplayBuffer::slot(int64_t k) const {
  return (next_ - size_ + k + capacity_) % capacity_;
}

std::shared_ptr<exadnn::data::TensorDataset> ReplayBuffer::gather(
    const std::vector<int64_t>& ages) const {
  const int64_t count = static_cast<int64_t>(ages.size());
  exadnn::Shape xs = input_shape_, ys = target_shape_;
  xs.insert(0, count);
  ys.insert(0, count);
  exadnn::Tensor x = exadnn::empty(xs, exadnn::TensorOptions().dtype(exadnn::DType::f32));
  exadnn::Tensor y = exadnn::empty(ys, exadnn::TensorOptions().dtype(exadnn::DType::f32));
  float* px = x.data<float>();
  float* py = y.data<float>();
  for (int64_t k = 0; k < count; ++k) {
    const int64_t s = slot(ages[k]);
    std::memcpy(px + k * in_floats_, &inputs_[s * in_floats_], in_floats_ * sizeof(float));
    std::memcpy(py + k * out_floats_, &targets_[s * out_floats_], out_floats_ * sizeof(float));
  }
  return std::make_shared<exadnn::data::TensorDataset>(x, y);
}

std::shared_ptr<exadnn::data::TensorDataset> ReplayBuffer::draw(int64_t count,
                                                                uint64_t seed) const {
  EXADNN_CHECK(size_ > 0, "climate::ReplayBuffer", "draw from an empty buffer");
  EXADNN_CHECK(count >= 1, "climate::ReplayBuffer", "draw of ", count, " examples");
  std::vector<int64_t> ages(static_cast<size_t>(size_));
  std::iota(ages.begin(), ages.end(), 0);
  if (count >= size_) return gather(ages);
  std::mt19937_64 rng(seed);
  for (int64_t k = 0; k < count; ++k) {  // a partial Fisher–Yates shuffle
    std::uniform_int_distribution<int64_t> pick(k, size_ - 1);
    std::swap(ages[k], ages[pick(rng)]);
  }
  ages.resize(static_cast<size_t>(count));
  return gather(ages);
}

std::shared_ptr<exadnn::data::TensorDataset> ReplayBuffer::newest(int64_t count) const {
  EXADNN_CHECK(size_ > 0, "climate::ReplayBuffer", "newest examples of an empty buffer");
  count = std::clamp<int64_t>(count, 1, size_);
  std::vector<int64_t> ages(static_cast<size_t>(count));
  std::iota(ages.begin(), ages.end(), size_ - count);
  return gather(ages);
}

}  // namespace climate
