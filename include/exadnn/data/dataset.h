// Dataset: a random-access collection of (input, target) examples of fixed shapes, read a batch
// at a time into preallocated contiguous tensors, so a loader fills a batch with row copies.
#pragma once

#include <cstdint>
#include <span>

#include "exadnn/core/tensor.h"

namespace exadnn::data {

/// A batch of examples: inputs [B, ...input_shape] and targets [B, ...target_shape].
struct Batch {
  Tensor inputs;   ///< [B, ...input_shape]
  Tensor targets;  ///< [B] for class labels, [B, ...target_shape] otherwise
  /// Number of examples B.
  int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
};

/// Rows [begin, end) of each example's height axis: the second to last (H of [C, H, W]
/// examples, of [H, W] ones). Spatial parallelism reads each rank's band only
/// (DataLoaderOptions::height_band).
struct HeightBand {
  int64_t begin = 0, end = 0;
  int64_t rows() const { return end - begin; }
};

/// A read-only collection of examples; subclasses implement fetch() with row copies.
///
/// Every example has the same input shape and dtype, and the same target shape and dtype.
/// fetch() may be called from a loader's worker thread and from several loaders at once, so it
/// must not mutate shared state (datasets are immutable after construction).
class Dataset {
 public:
  virtual ~Dataset() = default;

  /// Number of examples N.
  virtual int64_t size() const = 0;
  /// Shape of one input example, without the batch axis (e.g. [1, 28, 28]).
  virtual Shape input_shape() const = 0;
  /// Element type of the inputs.
  virtual DType input_dtype() const = 0;
  /// Shape of one target, without the batch axis ([] for a class label).
  virtual Shape target_shape() const = 0;
  /// Element type of the targets.
  virtual DType target_dtype() const = 0;

  /// Copies examples `indices` into rows 0..B-1 of `inputs` [B, ...input_shape] and `targets`
  /// [B, ...target_shape], B = indices.size(): contiguous host tensors of the dataset's dtypes,
  /// as made by allocate_batch(). Throws exadnn::Error for an index outside [0, size()).
  virtual void fetch(std::span<const int64_t> indices, const Tensor& inputs,
                     const Tensor& targets) const = 0;

  /// Examples `indices` cut to `band` of their height axis, into `inputs` [B, ..., band.rows(),
  /// W] (contiguous host, the dataset's dtype) and `targets` as fetch(). By default fetch() into
  /// a whole batch, then the band's rows copied; a dataset that can read less (an in-memory
  /// tensor, a file by hyperslab) overrides it. Error for a band outside the height or empty.
  virtual void fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                          const Tensor& targets) const;

  /// The targets of examples `indices` ([B, ...target_shape]) alone. By default through fetch()
  /// (inputs read and dropped); a dataset whose inputs live on disk overrides it, so label scans
  /// (class checks, class weights) do not read the whole set.
  virtual Tensor get_targets(std::span<const int64_t> indices) const;

  /// Uninitialised contiguous host tensors for a batch of `batch_size` examples.
  Batch allocate_batch(int64_t batch_size) const;
  /// A new batch holding examples `indices` (allocate_batch + fetch).
  Batch get_batch(std::span<const int64_t> indices) const;
  /// A batch of one example.
  Batch get(int64_t index) const;

  /// Throws exadnn::Error naming `where` unless every index is in [0, size()).
  void check_indices(std::span<const int64_t> indices, const char* where) const;

 protected:
  /// Throws unless inputs/targets match allocate_batch(indices.size()) in shape, dtype, layout.
  void check_batch(std::span<const int64_t> indices, const Tensor& inputs, const Tensor& targets,
                   const char* where) const;
  /// The same for fetch_band(): inputs of `band`'s rows; also checks the band against the height.
  void check_band_batch(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                        const Tensor& targets, const char* where) const;
};

}  // namespace exadnn::data
