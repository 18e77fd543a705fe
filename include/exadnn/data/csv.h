// CSV files of numbers: one example per row, features as f32, one optional label column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/data/tensor_dataset.h"

namespace exadnn::data {

/// How to read a CSV file (chained setters).
class CsvOptions {
 public:
  CsvOptions() = default;
  /// The first non-empty line names the columns (default false).
  CsvOptions& header(bool on = true) {
    header_ = on;
    return *this;
  }
  /// Field separator (default ',').
  CsvOptions& delimiter(char c) {
    delimiter_ = c;
    return *this;
  }
  /// The label column by position; negative counts from the end (-1 is the last column).
  CsvOptions& label_column(int64_t index) {
    label_index_ = index;
    label_name_.reset();
    return *this;
  }
  /// The label column by its header name (needs header()).
  CsvOptions& label_column(std::string name) {
    label_name_ = std::move(name);
    label_index_.reset();
    return *this;
  }
  /// Dtype of the labels: i64 for classes (default; values must be integers) or f32/f64.
  CsvOptions& label_dtype(DType t) {
    label_dtype_ = t;
    return *this;
  }
  /// Reads NaN and infinity ("nan", "inf", "infinity" in any case, signed or not, and numbers too
  /// large for the column's dtype) as data instead of rejecting them (default false: an Error
  /// naming the file, line, data row and column). Integer labels must be finite either way.
  CsvOptions& allow_non_finite(bool on = true) {
    allow_non_finite_ = on;
    return *this;
  }

  bool header() const { return header_; }
  char delimiter() const { return delimiter_; }
  const std::optional<int64_t>& label_index() const { return label_index_; }
  const std::optional<std::string>& label_name() const { return label_name_; }
  DType label_dtype() const { return label_dtype_; }
  bool allow_non_finite() const { return allow_non_finite_; }
  /// True when a label column was chosen.
  bool has_label() const { return label_index_.has_value() || label_name_.has_value(); }

 private:
  bool header_ = false;
  char delimiter_ = ',';
  std::optional<int64_t> label_index_;
  std::optional<std::string> label_name_;
  DType label_dtype_ = DType::i64;
  bool allow_non_finite_ = false;
};

/// The contents of a numeric CSV file.
struct CsvTable {
  Tensor features;  ///< f32 [N, F]: every column but the label's
  Tensor labels;    ///< [N] of the label dtype; undefined without a label column
  std::vector<std::string> feature_names;  ///< header names of the feature columns (empty without)
  std::string label_name;                  ///< header name of the label column (empty without)
};

/// Reads a CSV file of numbers (plain or gzip). Empty lines are skipped; every row must have as
/// many fields as the first (or the header), each a finite number (see allow_non_finite), and
/// there must be at least one row of data.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

/// read_csv as a dataset of features [N, F] and labels [N] (N >= 1); the options must choose a
/// label column.
TensorDataset load_csv_dataset(const std::string& path, const CsvOptions& options);

}  // namespace exadnn::data
