// IDX files (the MNIST / Fashion-MNIST format), plain or gzip-compressed (detected by the gzip
// magic bytes, not the file name). Errors name the file and what is wrong with it.
#pragma once

#include <string>

#include "exadnn/core/tensor.h"
#include "exadnn/data/tensor_dataset.h"

namespace exadnn::data {

/// Any IDX file as a tensor of the shape its header gives: u8 stays u8, i8/i16/i32 become i32,
/// f32 and f64 stay as they are (values converted from big-endian).
Tensor read_idx(const std::string& path);
/// An IDX image file (magic 0x00000803) as u8 [N, 1, rows, cols].
Tensor read_idx_images(const std::string& path);
/// An IDX label file (magic 0x00000801) as i64 [N].
Tensor read_idx_labels(const std::string& path);

/// Images [N, 1, rows, cols] as f32 in [0, 1] (pixel / 255) with labels i64 [N]; the two files
/// must hold the same number of examples.
TensorDataset load_idx_dataset(const std::string& images_path, const std::string& labels_path);

/// Which half of an MNIST-style dataset.
enum class Split { train, test };

/// The train (60000) or test (10000) split of MNIST / Fashion-MNIST in `dir`, from
/// {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz], as load_idx_dataset makes it.
TensorDataset load_mnist(const std::string& dir, Split split);

}  // namespace exadnn::data
