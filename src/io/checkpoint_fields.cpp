// Checked field access for loaded checkpoints (see exadnn/io/checkpoint_fields.h).
#include "exadnn/io/checkpoint_fields.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace exadnn::io {
namespace {

constexpr const char* kWhere = "checkpoint";

// "<file>: " for messages (a Checkpoint built in memory has no file).
std::string file_of(const Checkpoint& ckpt) {
  return ckpt.path.empty() ? std::string("checkpoint: ") : ckpt.path + ": ";
}

std::string describe(const Tensor& t) {
  return detail::cat(dtype_name(t.dtype()), " ", t.shape());
}

}  // namespace

const Tensor& checkpoint_tensor(const Checkpoint& ckpt, const std::string& name, DType dtype,
                                const Shape& shape) {
  EXADNN_CHECK(ckpt.tensors.contains(name), kWhere, file_of(ckpt), "field '", name, "' is missing");
  const Tensor& t = ckpt.tensors.at(name);
  EXADNN_CHECK(t.dtype() == dtype && t.shape() == shape, kWhere, file_of(ckpt), "field '", name,
               "' must be ", dtype_name(dtype), " ", shape, ", got ", describe(t));
  return t;
}

StateDict checkpoint_state(const Checkpoint& ckpt, const std::string& prefix,
                           const StateDict& expected) {
  const StateDict found = ckpt.tensors.with_prefix_removed(prefix);
  for (const auto& [name, t] : found)
    EXADNN_CHECK(expected.contains(name), kWhere, file_of(ckpt), "unexpected field '", prefix, name,
                 "' (", expected.size(), " fields under '", prefix,
                 "' expected; was it saved by another model, optimizer or configuration?)");
  for (const auto& [name, want] : expected) {
    EXADNN_CHECK(found.contains(name), kWhere, file_of(ckpt), "field '", prefix, name,
                 "' is missing (", found.size(), " of the ", expected.size(), " fields under '",
                 prefix, "' are there)");
    const Tensor& got = found.at(name);
    EXADNN_CHECK(got.dtype() == want.dtype() && got.shape() == want.shape(), kWhere, file_of(ckpt),
                 "field '", prefix, name, "' must be ", describe(want), ", got ", describe(got));
  }
  return found;
}

const std::string& checkpoint_string(const Checkpoint& ckpt, const std::string& key) {
  const auto it = ckpt.metadata.find(key);
  EXADNN_CHECK(it != ckpt.metadata.end(), kWhere, file_of(ckpt), "metadata field '", key,
               "' is missing");
  return it->second;
}

int64_t checkpoint_int(const Checkpoint& ckpt, const std::string& key, int64_t min, int64_t max) {
  const std::string& text = checkpoint_string(ckpt, key);
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  EXADNN_CHECK(ec != std::errc::result_out_of_range, kWhere, file_of(ckpt), "metadata field '", key,
               "' = '", text, "' is out of range");
  EXADNN_CHECK(ec == std::errc() && ptr == text.data() + text.size(), kWhere, file_of(ckpt),
               "metadata field '", key, "' = '", text, "' is not an integer");
  EXADNN_CHECK(value >= min && value <= max, kWhere, file_of(ckpt), "metadata field '", key,
               "' = ", value, " is outside [", min, ", ", max, "]");
  return value;
}

std::vector<std::vector<double>> checkpoint_table(const Checkpoint& ckpt, const std::string& key,
                                                  size_t columns) {
  if (!ckpt.metadata.count(key)) return {};
  using nlohmann::json;
  const std::string where = detail::cat(file_of(ckpt), "metadata field '", key, "'");
  json table;
  try {
    table = json::parse(ckpt.metadata.at(key));
  } catch (const json::parse_error& e) {
    throw Error(kWhere, detail::cat(where, " is not valid JSON (at byte ", e.byte, ")"));
  }
  EXADNN_CHECK(table.is_array(), kWhere, where, " must be an array of rows, got a ",
               table.type_name());
  std::vector<std::vector<double>> rows;
  for (size_t r = 0; r < table.size(); ++r) {
    const json& row = table[r];
    EXADNN_CHECK(row.is_array() && row.size() == columns, kWhere, where, ": row ", r,
                 " must be an array of ", columns, " numbers, got ", row.dump());
    std::vector<double> values;
    for (size_t c = 0; c < columns; ++c) {
      const json& v = row[c];
      EXADNN_CHECK(v.is_number() || v.is_null(), kWhere, where, ": row ", r, " column ", c,
                   " must be a number, got ", v.dump());
      values.push_back(v.is_null() ? std::nan("") : v.get<double>());
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

}  // namespace exadnn::io
