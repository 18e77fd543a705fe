// Checked access to the fields of a loaded checkpoint: each function compares a field with what
// the caller expects of it (dtype, shape, an integer's range, a table's columns) and throws an
// exadnn::Error naming the checkpoint's file, the field and the problem — never a raw library
// message, never a crash on a field that is well-formed but not what the reader needs.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "exadnn/io/checkpoint.h"

namespace exadnn::io {

/// The tensor `name`, which must exist with exactly `dtype` and `shape`.
const Tensor& checkpoint_tensor(const Checkpoint& ckpt, const std::string& name, DType dtype,
                                const Shape& shape);

/// The entries whose names start with `prefix`, prefix removed, after checking that they are
/// exactly the entries of `expected` (no missing, no extra ones) with the same dtypes and shapes;
/// values are not compared. `expected` is the state a freshly built object would save, e.g.
/// `opt.state_dict()` for "optimizer.", `model.state_dict()` for "model.".
StateDict checkpoint_state(const Checkpoint& ckpt, const std::string& prefix,
                           const StateDict& expected);

/// Metadata `key`, which must exist.
const std::string& checkpoint_string(const Checkpoint& ckpt, const std::string& key);

/// Metadata `key` as a base-10 integer (no spaces, no fraction) in [min, max].
int64_t checkpoint_int(const Checkpoint& ckpt, const std::string& key,
                       int64_t min = std::numeric_limits<int64_t>::min(),
                       int64_t max = std::numeric_limits<int64_t>::max());

/// Metadata `key` as a table: a JSON array of rows, each an array of exactly `columns` numbers
/// (null reads as NaN: the JSON writer stores NaN as null). A missing key is an empty table.
std::vector<std::vector<double>> checkpoint_table(const Checkpoint& ckpt, const std::string& key,
                                                  size_t columns);

}  // namespace exadnn::io
