// HDF5 files: named datasets read into tensors, and written from them. The HDF5 library is
// called from src/data/hdf5.cpp only; calls are serialised (Debian's libhdf5 is not thread-safe).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/data/validate.h"

namespace exadnn::data {

/// The default `max_bytes` of read_hdf5 and load_hdf5_dataset: the machine's physical memory (a
/// dataset larger than that could not be held anyway).
int64_t hdf5_default_read_limit();

/// The dataset `name` ("x", "group/x") of an HDF5 file as a tensor of its shape: floats of up to 4
/// bytes become f32, 8-byte floats f64, u8 stays u8, other integers of up to 4 bytes (u16 too)
/// i32, wider integers i64. Other types (strings, compounds, enums) are an error. NaN or infinity
/// in a float dataset is an Error naming the file, the dataset and the element's index unless
/// `non_finite` allows it.
///
/// A dataset whose tensor would take more than `max_bytes` is an Error naming the file, the
/// dataset, its shape, the bytes it needs and the limit, raised before anything is allocated.
/// The size comes from the file's metadata, and a small file may rightly describe a huge dataset
/// (chunks never written read as the fill value; compression), so the file's own size bounds
/// nothing: this limit is what keeps a corrupt or hostile file from claiming gigabytes.
Tensor read_hdf5(const std::string& path, const std::string& name,
                 NonFinite non_finite = NonFinite::reject,
                 int64_t max_bytes = hdf5_default_read_limit());

/// Paths of every dataset in the file ("x", "group/y"), in name order.
std::vector<std::string> hdf5_dataset_names(const std::string& path);

/// Writes tensors (f32, f64, i32, i64, u8) as datasets of a new file (replacing any file there);
/// names may contain groups ("train/x"), which are created.
void write_hdf5(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets);

/// A dataset of inputs `inputs_name` [N, ...] converted to `input_dtype` and targets
/// `targets_name` [N] or [N, ...] (integers become i64, floats f32), N >= 1. Unless `non_finite`
/// allows them, NaN, infinity, and values too large for the dtype they are converted to are an
/// Error naming the file, the dataset and the element's index. `max_bytes` limits each of the two
/// reads as in read_hdf5.
TensorDataset load_hdf5_dataset(const std::string& path, const std::string& inputs_name,
                                const std::string& targets_name, DType input_dtype = DType::f32,
                                NonFinite non_finite = NonFinite::reject,
                                int64_t max_bytes = hdf5_default_read_limit());

}  // namespace exadnn::data
