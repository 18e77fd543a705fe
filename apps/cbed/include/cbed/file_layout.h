// How a split's HDF5 files are laid out, so the loader reads exadnn's own shards and the ORNL
// CBED dataset's files unchanged. Set in a training config as `data.layout`:
//
//   data: {dataset: cbed-space-group, path: /data/cbed, layout: {format: sample_groups}}
//
// `shards` (the default) is the generator's format (shard_layout.h: one [N, 3, H, W] dataset and
// label columns per file). `sample_groups` is the layout of the ORNL files (batch_train_R.h5, as
// their generator writes them): one group per sample at the file's root ("sample_<material>_<k>"),
// holding a [3, H, W] float dataset `cbed_stack` and the attributes `space_group` (text such as
// "225", or an integer) and `material`. Every name can be changed in the config.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cbed/shard_layout.h"

namespace cbed::shard {

struct FileLayout {
  enum class Format { shards, sample_groups };
  Format format = Format::shards;
  /// File-name patterns in the folder ('*' and '?' as in a shell), per split.
  std::string train_files = "cbed_train_*.h5", val_files = "cbed_val_*.h5",
              test_files = "cbed_test_*.h5";
  // sample_groups: in every group at a file's root, the [3, H, W] patterns dataset, the space-group
  // attribute, and the optional attribute naming the material (samples of one material share its
  // material id; without it every sample is its own material).
  std::string patterns = "cbed_stack", space_group = "space_group", material = "material";

  /// The generator's shards (the default).
  static FileLayout shards() { return {}; }
  /// The ORNL files: batch_{train,dev,test}_*.h5, groups of cbed_stack with those attributes.
  static FileLayout sample_groups();
  /// From a config's data.layout (keys as config_keys()); an Error saying problem() otherwise.
  static FileLayout from_config(const std::map<std::string, std::string>& layout);
  /// What is wrong with a data.layout, naming the key and value (an unknown format, a name the
  /// format does not use); empty when nothing is.
  static std::string problem(const std::map<std::string, std::string>& layout);
  /// The keys from_config reads, each with what it names.
  static std::vector<std::pair<std::string, std::string>> config_keys();

  const std::string& files(Split split) const;
};

/// Whether file name `name` matches `pattern` ('*' any run of characters, '?' one).
bool file_name_matches(const std::string& pattern, const std::string& name);

}  // namespace cbed::shard
