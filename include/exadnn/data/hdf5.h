// HDF5 files: named datasets read into tensors, and written from them. The HDF5 library is
// called from src/data/hdf5.cpp only; calls are serialised (Debian's libhdf5 is not thread-safe).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/data/validate.h"

namespace exadnn::data {

/// The dataset `name` ("x", "group/x") of an HDF5 file as a tensor of its shape: floats of up to 4
/// bytes become f32, 8-byte floats f64, u8 stays u8, other integers of up to 4 bytes (u16 too)
/// i32, wider integers i64. Other types (strings, compounds, enums) are an error. NaN or infinity
/// in a float dataset is an Error naming the file, the dataset and the element's index unless
/// `non_finite` allows it.
Tensor read_hdf5(const std::string& path, const std::string& name,
                 NonFinite non_finite = NonFinite::reject);

/// Paths of every dataset in the file ("x", "group/y"), in name order.
std::vector<std::string> hdf5_dataset_names(const std::string& path);

/// Writes tensors (f32, f64, i32, i64, u8) as datasets of a new file (replacing any file there);
/// names may contain groups ("train/x"), which are created.
void write_hdf5(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets);

/// A dataset of inputs `inputs_name` [N, ...] converted to `input_dtype` and targets
/// `targets_name` [N] or [N, ...] (integers become i64, floats f32), N >= 1. Unless `non_finite`
/// allows them, NaN, infinity, and values too large for the dtype they are converted to are an
/// Error naming the file, the dataset and the element's index.
TensorDataset load_hdf5_dataset(const std::string& path, const std::string& inputs_name,
                                const std::string& targets_name, DType input_dtype = DType::f32,
                                NonFinite non_finite = NonFinite::reject);

}  // namespace exadnn::data
