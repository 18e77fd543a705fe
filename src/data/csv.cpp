// CSV reader: the whole file (plain or gzip) is read once and parsed in place with from_chars.
#include "exadnn/data/csv.h"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "data/byte_stream.h"
#include "exadnn/ops/factories.h"

namespace exadnn::data {
namespace {

constexpr const char* kWhere = "CSV";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Splits a line into fields (no quoting: numeric files only).
void split(std::string_view line, char delim, std::vector<std::string_view>& fields) {
  fields.clear();
  size_t start = 0;
  for (;;) {
    const size_t end = line.find(delim, start);
    fields.push_back(trim(line.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

bool blank(std::string_view line) {
  return trim(line).empty();
}

// Parses a whole field as a number: from_chars, which takes "nan" and "inf" in any case, and for
// numbers beyond double's range strtod's value (+-infinity above it, 0 or subnormal below it).
// One optional sign; false when the field is not a number.
bool parse_number(std::string_view f, double& v) {
  if (!f.empty() && f.front() == '+') {
    f.remove_prefix(1);
    if (!f.empty() && (f.front() == '-' || f.front() == '+')) return false;
  }
  if (f.empty()) return false;
  const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ptr != f.data() + f.size()) return false;
  if (ec == std::errc::result_out_of_range) v = std::strtod(std::string(f).c_str(), nullptr);
  return ec == std::errc() || ec == std::errc::result_out_of_range;
}

// Whether v is finite once stored as `dtype` (f32 or f64).
bool finite_as(double v, DType dtype) {
  return dtype == DType::f32 ? std::fabs(v) <= FLT_MAX : std::isfinite(v);
}

// v stored as f32 (no undefined overflow: beyond the range is +-infinity).
float to_f32(double v) {
  if (std::isnan(v) || std::fabs(v) <= FLT_MAX) return static_cast<float>(v);
  return v > 0 ? INFINITY : -INFINITY;
}

// Strips a pair of double quotes around a header name.
std::string unquote(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

}  // namespace

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  EXADNN_CHECK(options.label_dtype() == DType::i64 || options.label_dtype() == DType::i32 ||
                   options.label_dtype() == DType::f32 || options.label_dtype() == DType::f64,
               kWhere, "label_dtype must be i64, i32, f32 or f64, got ",
               dtype_name(options.label_dtype()));
  internal::ByteStream in(path, kWhere);
  const std::vector<char> text = in.read_all();
  EXADNN_CHECK(!in.truncated(), kWhere, path, ": truncated: the gzip stream ends early");
  const std::string_view all(text.data(), text.size());

  std::vector<std::string_view> fields;
  std::vector<std::string> names;
  int64_t columns = -1;  // fixed by the header or the first row
  int64_t label = -1;    // label column, once columns is known
  std::vector<float> features;
  std::vector<double> labels;

  const auto resolve_label = [&] {
    if (options.label_name()) {
      EXADNN_CHECK(options.header(), kWhere, path, ": label column '", *options.label_name(),
                   "' is chosen by name but the options declare no header");
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == *options.label_name()) label = static_cast<int64_t>(i);
      EXADNN_CHECK(label >= 0, kWhere, path, ": no column named '", *options.label_name(),
                   "' in the header");
    } else if (options.label_index()) {
      const int64_t i = *options.label_index();
      label = i < 0 ? i + columns : i;
      EXADNN_CHECK(label >= 0 && label < columns, kWhere, path, ": label column ", i,
                   " is out of range for ", columns, " columns");
    }
  };

  int64_t line_no = 0;
  int64_t row = 0;  // data rows so far (1-based in messages)
  size_t pos = 0;
  bool header_pending = options.header();
  while (pos < all.size()) {
    size_t end = all.find('\n', pos);
    if (end == std::string_view::npos) end = all.size();
    const std::string_view line = all.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (blank(line)) continue;
    split(line, options.delimiter(), fields);
    const auto n = static_cast<int64_t>(fields.size());
    if (header_pending) {
      header_pending = false;
      for (auto f : fields) names.push_back(unquote(f));
      columns = n;
      resolve_label();
      continue;
    }
    if (columns < 0) {
      columns = n;
      resolve_label();
    }
    EXADNN_CHECK(n == columns, kWhere, path, ":", line_no, ": ragged row: ", n,
                 n == 1 ? " field" : " fields", " where ",
                 options.header() ? "the header" : "the first row", " has ", columns);
    ++row;
    for (int64_t c = 0; c < n; ++c) {
      const std::string_view f = fields[static_cast<size_t>(c)];
      double v = 0;
      EXADNN_CHECK(parse_number(f, v), kWhere, path, ":", line_no, ": column ", c + 1, ": '", f,
                   "' is not a number");
      const bool integer_label = c == label && (options.label_dtype() == DType::i64 ||
                                                options.label_dtype() == DType::i32);
      if (integer_label) {
        EXADNN_CHECK(std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15, kWhere, path,
                     ":", line_no, ": column ", c + 1, ": label '", f,
                     "' is not an integer (set label_dtype(f32) for real-valued targets)");
      } else {
        const DType dtype = c == label ? options.label_dtype() : DType::f32;
        EXADNN_CHECK(options.allow_non_finite() || finite_as(v, dtype), kWhere, path, ":", line_no,
                     ": column ", c + 1, " (data row ", row, "): '", f, "' is not a finite ",
                     dtype_name(dtype),
                     " value (NaN, infinity or beyond the range); set "
                     "CsvOptions().allow_non_finite() to read such values as data");
      }
      if (c == label)
        labels.push_back(options.label_dtype() == DType::f32 ? to_f32(v) : v);
      else
        features.push_back(to_f32(v));
    }
  }
  EXADNN_CHECK(columns >= 0, kWhere, path, ": no data: the file holds no rows");
  EXADNN_CHECK(row > 0, kWhere, path, ": no data: the file holds a header but no rows");

  CsvTable table;
  const int64_t f = label >= 0 ? columns - 1 : columns;
  const int64_t rows =
      f > 0 ? static_cast<int64_t>(features.size()) / f : static_cast<int64_t>(labels.size());
  table.features = empty({rows, f}, DType::f32);
  if (!features.empty())
    std::memcpy(table.features.data_ptr(), features.data(), features.size() * sizeof(float));
  if (label >= 0) {
    table.labels = from_vector(labels, {rows}, options.label_dtype());
    if (!names.empty()) table.label_name = names[static_cast<size_t>(label)];
  }
  for (int64_t c = 0; c < static_cast<int64_t>(names.size()); ++c)
    if (c != label) table.feature_names.push_back(names[static_cast<size_t>(c)]);
  return table;
}

TensorDataset load_csv_dataset(const std::string& path, const CsvOptions& options) {
  EXADNN_CHECK(options.has_label(), kWhere, path,
               ": a dataset needs a label column (CsvOptions::label_column)");
  CsvTable t = read_csv(path, options);
  return TensorDataset(t.features, t.labels);
}

}  // namespace exadnn::data
