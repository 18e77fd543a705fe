// Hdf5Dataset: an HDF5 file's examples read on demand, a batch at a time, instead of loaded whole
// (load_hdf5_dataset): for sets larger than memory, and for spatial parallelism, where each rank
// reads only its band of every image's rows (fetch_band: one hyperslab per example).
//
//   auto train = std::make_shared<Hdf5Dataset>("stacks.h5", "train/x", "train/y");
//   DataLoader loader(train, DataLoaderOptions().batch_size(32).height_band(rank, ranks));
//
// The targets are read into memory at construction (they are small); the inputs stay in the file,
// which is opened per batch (through the HDF5 plugin, data/hdf5.h: calls are serialised). A batch's
// examples are read in file order as one selection and put in the batch's order.
#pragma once

#include <span>
#include <string>

#include "exadnn/data/dataset.h"
#include "exadnn/data/validate.h"

namespace exadnn::data {

class Hdf5Dataset final : public Dataset {
 public:
  /// Inputs `inputs_name` [N, ...] (read as `input_dtype`: HDF5 converts the file's numbers) and
  /// targets `targets_name` [N] or [N, ...] (integers as i64, floats as f32), N ≥ 1. Errors name
  /// the file and the dataset: missing, of another type, without a leading example axis, N
  /// differing between the two, NaN or infinity in the targets (unless `non_finite` allows it);
  /// the inputs are checked batch by batch as they are read.
  Hdf5Dataset(std::string path, std::string inputs_name, const std::string& targets_name,
              DType input_dtype = DType::f32, NonFinite non_finite = NonFinite::reject);

  int64_t size() const override { return n_; }
  Shape input_shape() const override { return example_; }
  DType input_dtype() const override { return input_dtype_; }
  Shape target_shape() const override;
  DType target_dtype() const override { return targets_.dtype(); }
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override;
  /// Reads only `band`'s rows of each example from the file.
  void fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                  const Tensor& targets) const override;
  Tensor get_targets(std::span<const int64_t> indices) const override;
  const std::string& path() const { return path_; }

 private:
  // Examples `indices` (any order, repeats allowed), `band` of each (end 0: whole), into inputs.
  void read_inputs(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs) const;

  std::string path_, inputs_name_;
  DType input_dtype_;
  NonFinite non_finite_;
  Shape example_;
  int64_t n_ = 0;
  Tensor targets_;  // [N, ...]
};

}  // namespace exadnn::data
