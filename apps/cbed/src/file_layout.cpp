// FileLayout: the two formats' names and their reading from a config's data.layout.
#include "cbed/file_layout.h"

#include <fnmatch.h>

#include <exadnn/core/error.h>

namespace cbed::shard {

FileLayout FileLayout::sample_groups() {
  FileLayout l;
  l.format = Format::sample_groups;
  l.train_files = "batch_train_*.h5";
  l.val_files = "batch_dev_*.h5";
  l.test_files = "batch_test_*.h5";
  return l;
}

std::vector<std::pair<std::string, std::string>> FileLayout::config_keys() {
  return {{"format", "shards (the generator's files) or sample_groups (one group per sample)"},
          {"train", "the training files' name pattern"},
          {"val", "the validation files' name pattern"},
          {"test", "the test files' name pattern"},
          {"patterns", "sample_groups: each group's [3, H, W] dataset"},
          {"space_group", "sample_groups: each group's space-group attribute"},
          {"material", "sample_groups: each group's material attribute"}};
}

std::string FileLayout::problem(const std::map<std::string, std::string>& layout) {
  const auto format = layout.find("format");
  const bool groups = format != layout.end() && format->second == "sample_groups";
  if (format != layout.end() && !groups && format->second != "shards")
    return "data.layout.format '" + format->second +
           "' is unknown (allowed: shards, sample_groups)";
  for (const auto& [key, value] : layout) {
    if (key == "format" || key == "train" || key == "val" || key == "test") continue;
    if (key != "patterns" && key != "space_group" && key != "material")
      return "data.layout has an unknown key '" + key + "'";
    if (!groups)
      return "data.layout." + key + " ('" + value +
             "') names a dataset or attribute of format sample_groups; the shards' names are fixed";
  }
  return "";
}

FileLayout FileLayout::from_config(const std::map<std::string, std::string>& layout) {
  const std::string why = problem(layout);
  EXADNN_CHECK(why.empty(), "cbed::FileLayout", why);
  const auto format = layout.find("format");
  FileLayout l =
      format != layout.end() && format->second == "sample_groups" ? sample_groups() : shards();
  const std::pair<const char*, std::string FileLayout::*> names[] = {
      {"train", &FileLayout::train_files},       {"val", &FileLayout::val_files},
      {"test", &FileLayout::test_files},         {"patterns", &FileLayout::patterns},
      {"space_group", &FileLayout::space_group}, {"material", &FileLayout::material}};
  for (const auto& [key, member] : names)
    if (auto it = layout.find(key); it != layout.end()) l.*member = it->second;
  return l;
}

const std::string& FileLayout::files(Split split) const {
  return split == Split::train ? train_files : split == Split::val ? val_files : test_files;
}

bool file_name_matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0;
}

}  // namespace cbed::shard
