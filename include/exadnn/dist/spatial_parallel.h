// Spatial parallelism: images split along their height over the ranks of a Communicator, for
// activations too large for one rank. Rank r holds rows [r·H/P, (r+1)·H/P) of every feature map
// ([N, C, H/P, W]); the layers below exchange the rows a kernel needs across the cut (halos) and
// reduce statistics over the whole image, so the network computes what it would on the whole image:
// losses and gradients equal the unsplit run's (to round-off).
//
//   halo_exchange          [N, C, h, W] → [N, C, top + h + bottom, W]: the neighbours' edge rows
//                          (`fill` beyond the image's edge); backward returns the halo rows'
//                          gradients to their owners and adds them to their edge rows
// (built with all_reduce, reduce_from_group and copy_to_group of dist/parallel_ops.h: a weight used
// by every rank's rows receives the sum of the ranks' gradients)
//   SpatialConv2d          halo of the kernel's reach, then the convolution without height padding
//   SpatialMaxPool2d       the same with −∞ halos
//   SpatialBatchNorm2d     mean and variance over N, H and W of the whole image
//   SpatialGlobalAvgPool   [N, C, h, W] → [N, C], the mean over the whole image, replicated
//
// The local height of every layer's input must be divisible by its stride, and a halo may not be
// taller than the neighbour's rows (Errors naming the layer otherwise). Layers are initialised
// exactly like their one-process nn:: twins (same seed on every rank), with the same parameter
// names, so state dicts move between spatial and one-process runs unchanged.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/nn/conv.h"
#include "exadnn/nn/module.h"

namespace exadnn::dist {

/// x [N, C, h, W] (this rank's rows) → [N, C, top + h + bottom, W] with the last `top` rows of the
/// rank above and the first `bottom` rows of the rank below (`fill` at the image's edges).
Tensor halo_exchange(const Tensor& x, const Communicator& comm, int64_t top, int64_t bottom,
                     double fill = 0.0);

/// The rows above ([N, C, top, W]) and below ([N, C, bottom, W]) a rank's part.
struct HaloRows {
  Tensor top, bottom;
};

/// A halo exchange in two halves, so the work that needs no halo overlaps the messages: the
/// constructor posts them and returns; finish(x) waits and returns the rows as a graph node (its
/// backward returns their gradients to the neighbours). Every rank must make the same exchanges in
/// the same order.
class PendingHalo {
 public:
  PendingHalo(const Tensor& x, Communicator comm, int64_t top, int64_t bottom, double fill = 0.0);
  ~PendingHalo();  // waits for messages still in flight
  PendingHalo(const PendingHalo&) = delete;
  PendingHalo& operator=(const PendingHalo&) = delete;
  /// The neighbours' rows (`fill` at the image's edges); `x` is the tensor given to the
  /// constructor.
  HaloRows finish(const Tensor& x);

 private:
  Communicator comm_;
  Tensor top_rows_, bottom_rows_;  // [N, C, top, W] and [N, C, bottom, W]
  std::vector<Work> works_;
};

/// nn::Conv2d on height-split images: x [N, C_in, h, W] → [N, C_out, h / stride, W_out].
class SpatialConv2d : public nn::Module {
 public:
  SpatialConv2d(const nn::Conv2dOptions& options, Communicator comm);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "SpatialConv2d"; }

  Tensor weight;  ///< [C_out, C_in / groups, kh, kw], whole on every rank
  Tensor bias;    ///< [C_out]; undefined without bias

 private:
  nn::Conv2dOptions options_;
  Communicator comm_;
};

/// Max pooling on height-split images: x [N, C, h, W] → [N, C, h / stride, W_out].
class SpatialMaxPool2d : public nn::Module {
 public:
  SpatialMaxPool2d(Size2 kernel, Size2 stride, Size2 padding, Communicator comm);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "SpatialMaxPool2d"; }

 private:
  Size2 kernel_, stride_, padding_;
  Communicator comm_;
};

/// Batch norm over N, H, W of the whole (split) image; running statistics as nn::BatchNorm2d.
class SpatialBatchNorm2d : public nn::Module {
 public:
  SpatialBatchNorm2d(int64_t channels, Communicator comm, double eps = 1e-5, double momentum = 0.1);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "SpatialBatchNorm2d"; }

  Tensor weight, bias;               ///< [C]
  Tensor running_mean, running_var;  ///< [C] buffers

 private:
  int64_t channels_;
  Communicator comm_;
  double eps_, momentum_;
};

/// [N, C, h, W] → [N, C]: the mean over the whole image, the same on every rank.
class SpatialGlobalAvgPool : public nn::Module {
 public:
  explicit SpatialGlobalAvgPool(Communicator comm) : comm_(std::move(comm)) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "SpatialGlobalAvgPool"; }

 private:
  Communicator comm_;
};

/// Rows [rank·H/P, (rank+1)·H/P) of x [N, C, H, W] (H divisible by P), contiguous.
Tensor spatial_rows(const Tensor& x, const Communicator& comm);

}  // namespace exadnn::dist
