// IDX files (the MNIST / Fashion-MNIST format), plain or gzip-compressed (detected by the gzip
// magic bytes, not the file name). Errors name the file and what is wrong with it.
#pragma once

#include <string>

#include "exadnn/core/tensor.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/data/validate.h"

namespace exadnn::data {

/// Any IDX file as a tensor of the shape its header gives: u8 stays u8, i8/i16/i32 become i32,
/// f32 and f64 stay as they are (values converted from big-endian). NaN or infinity in f32/f64
/// data is an Error naming the file and the element's index unless `non_finite` allows it.
Tensor read_idx(const std::string& path, NonFinite non_finite = NonFinite::reject);
/// An IDX image file (magic 0x00000803) as u8 [N, 1, rows, cols].
Tensor read_idx_images(const std::string& path);
/// An IDX label file (magic 0x00000801) as i64 [N].
Tensor read_idx_labels(const std::string& path);

/// How load_idx_dataset and load_mnist hold the images.
enum class Pixels {
  f32,  ///< pixel / 255 as f32 in [0, 1] (4 bytes a pixel)
  u8,   ///< the file's bytes (1 byte a pixel); a DataLoader with transform ToFloat() makes
        ///< batches bit-identical to the f32 ones, at a quarter of the memory
};

/// Images [N, 1, rows, cols] (f32 pixel / 255, or u8 as stored) with labels i64 [N]; the two
/// files must hold the same number of examples, at least one.
TensorDataset load_idx_dataset(const std::string& images_path, const std::string& labels_path,
                               Pixels pixels = Pixels::f32);

/// Which half of an MNIST-style dataset.
enum class Split { train, test };

/// The train (60000) or test (10000) split of MNIST / Fashion-MNIST in `dir`, from
/// {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz], as load_idx_dataset makes it.
TensorDataset load_mnist(const std::string& dir, Split split, Pixels pixels = Pixels::f32);

}  // namespace exadnn::data
