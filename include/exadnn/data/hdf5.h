// HDF5 files: named datasets read into tensors, and written from them. The HDF5 library is
// called from src/data/hdf5.cpp only; calls are serialised (Debian's libhdf5 is not thread-safe).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/data/tensor_dataset.h"

namespace exadnn::data {

/// The dataset `name` ("x", "group/x") of an HDF5 file as a tensor of its shape: floats of up to 4
/// bytes become f32, 8-byte floats f64, u8 stays u8, other integers of up to 4 bytes (u16 too)
/// i32, wider integers i64. Other types (strings, compounds, enums) are an error.
Tensor read_hdf5(const std::string& path, const std::string& name);

/// Paths of every dataset in the file ("x", "group/y"), in name order.
std::vector<std::string> hdf5_dataset_names(const std::string& path);

/// Writes tensors (f32, f64, i32, i64, u8) as datasets of a new file (replacing any file there);
/// names may contain groups ("train/x"), which are created.
void write_hdf5(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets);

/// A dataset of inputs `inputs_name` [N, ...] converted to `input_dtype` and targets
/// `targets_name` [N] or [N, ...] (integers become i64, floats f32).
TensorDataset load_hdf5_dataset(const std::string& path, const std::string& inputs_name,
                                const std::string& targets_name, DType input_dtype = DType::f32);

}  // namespace exadnn::data
