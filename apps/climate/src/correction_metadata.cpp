#include "climate/correction_metadata.h"

#include <exadnn/core/error.h>

#include <sstream>
#include <vector>

namespace climate {

namespace {

constexpr const char* kKind = "climate_correction";

std::string join(const std::vector<int>& values) {
  std::string out;
  for (const int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

// The entry `key`, or an Error naming the file.
const std::string& entry(const Metadata& metadata, const std::string& key,
                         const std::string& source) {
  const auto it = metadata.find(key);
  EXADNN_CHECK(it != metadata.end(), "climate_correction", source, " has no '", key,
               "': not a correction written by the in-situ trainer");
  return it->second;
}

int whole_number(const std::string& text, const std::string& key, const std::string& source) {
  // stoi alone would take "3x" as 3 and " 3" as 3.
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  EXADNN_CHECK(used > 0 && used == text.size(), "climate_correction", source, ": '", key, "' is '",
               text, "', not a whole number");
  return value;
}

std::vector<int> numbers(const std::string& text, const std::string& key,
                         const std::string& source) {
  std::vector<int> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');)
    out.push_back(whole_number(item, key, source));
  return out;
}

}  // namespace

std::vector<int> whole_numbers(const std::string& text, const std::string& what) {
  return numbers(text, what, "the list");
}

Metadata correction_metadata(const CorrectionOptions& options) {
  return {{"kind", kKind},
          {"width", std::to_string(options.width)},
          {"depth", std::to_string(options.depth)},
          {"dilations", join(options.dilations)},
          {"periods", join(options.periods)},
          {"levels", std::to_string(options.levels)},
          {"halo", std::to_string(options.halo)}};
}

CorrectionOptions correction_options(const Metadata& metadata, int fields,
                                     const std::string& source) {
  const std::string& kind = entry(metadata, "kind", source);
  EXADNN_CHECK(kind == kKind, "climate_correction", source, " holds a '", kind, "', not a ", kKind);
  CorrectionOptions options{
      .fields = fields,
      .width = whole_number(entry(metadata, "width", source), "width", source),
      .depth = whole_number(entry(metadata, "depth", source), "depth", source)};
  if (const auto it = metadata.find("dilations"); it != metadata.end())
    options.dilations = numbers(it->second, "dilations", source);
  options.periods = numbers(entry(metadata, "periods", source), "periods", source);
  // Written before the U-Net existed: the plain CNN.
  if (const auto it = metadata.find("levels"); it != metadata.end())
    options.levels = whole_number(it->second, "levels", source);
  if (const auto it = metadata.find("halo"); it != metadata.end())
    options.halo = whole_number(it->second, "halo", source);
  return options;
}

}  // namespace climate
