// Image transforms applied to a whole batch of inputs x: [B, C, H, W], as a DataLoader's worker
// produces it. Random transforms draw from the Generator they are given; the loader seeds one per
// batch from (seed, epoch, batch index), so a run is reproducible with or without prefetching.
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include "exadnn/core/rng.h"
#include "exadnn/core/tensor.h"

namespace exadnn::data {

/// A transform of a batch of inputs; const and free of shared mutable state.
class Transform {
 public:
  virtual ~Transform() = default;
  /// Returns the transformed batch (a new tensor; `x` is not modified). x: [B, ...].
  virtual Tensor apply(const Tensor& x, Generator& gen) const = 0;
  /// Same as apply().
  Tensor operator()(const Tensor& x, Generator& gen) const { return apply(x, gen); }
  /// Whether each output element depends only on the input element at the same place (not on
  /// its neighbours, the example's other pixels or a random draw), so that transforming a part of
  /// an example (a band of its rows, DataLoaderOptions::height_band) gives that part of the
  /// transformed example. False unless a transform says so: a loader then reads whole examples.
  virtual bool pointwise() const { return false; }
};

/// Several transforms applied in order.
class Compose : public Transform {
 public:
  explicit Compose(std::vector<std::shared_ptr<const Transform>> transforms);
  Tensor apply(const Tensor& x, Generator& gen) const override;
  /// When every transform is.
  bool pointwise() const override;

 private:
  std::vector<std::shared_ptr<const Transform>> transforms_;
};

/// Per-channel y = (x * scale - mean[c]) / std[c]. x: [B, C, ...] of any real dtype; the result
/// is f64 for f64 input and f32 otherwise. One mean/std value applies to every channel.
/// With scale = 1/255 it turns u8 pixels into normalised floats in one pass.
class Normalize : public Transform {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std, double scale = 1.0);
  Tensor apply(const Tensor& x, Generator& gen) const override;
  /// With one mean and std for every channel (per-channel values read axis 1, which a band of
  /// a 2-D example's rows would renumber).
  bool pointwise() const override { return mean_.size() == 1 && std_.size() == 1; }

 private:
  std::vector<double> mean_;
  std::vector<double> std_;
  double scale_;
};

/// y = x * scale as f32 (u8 pixels -> [0, 1] by default). x: [B, ...].
class ToFloat : public Transform {
 public:
  explicit ToFloat(double scale = 1.0 / 255.0) : scale_(scale) {}
  Tensor apply(const Tensor& x, Generator& gen) const override;
  bool pointwise() const override { return true; }

 private:
  double scale_;
};

/// Pads each image with `padding` zeros on every side, then cuts a window of height x width at
/// a random offset per example. x: [B, C, H, W] -> [B, C, height, width]; any dtype.
class RandomCrop : public Transform {
 public:
  /// A square size x size window of images padded by `padding` (CIFAR: RandomCrop(32, 4)).
  explicit RandomCrop(int64_t size, int64_t padding = 0) : RandomCrop(size, size, padding) {}
  /// A height x width window.
  RandomCrop(int64_t height, int64_t width, int64_t padding);
  Tensor apply(const Tensor& x, Generator& gen) const override;

 private:
  int64_t height_;
  int64_t width_;
  int64_t padding_;
};

/// Mirrors each image left-right with probability p. x: [B, C, H, W] (or [B, ..., W]); any dtype.
class RandomHorizontalFlip : public Transform {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  Tensor apply(const Tensor& x, Generator& gen) const override;

 private:
  double p_;
};

}  // namespace exadnn::data
