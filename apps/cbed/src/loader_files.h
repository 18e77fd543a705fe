// Opening one file of a split, per format (file_layout.h), for ShardSet: its samples, pattern
// size and labels, checked. Private to apps/cbed/src; every call under hdf5_lock().
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cbed/loader.h"

namespace cbed::shard {

/// The dimensions of dataset `set`, named `name` in file `path` (Error naming both when it is
/// missing, i.e. `set` < 0).
std::vector<hsize_t> dims_of(hid_t set, const std::string& name, const std::string& path);

/// One file's samples and labels (per row), as opened and checked.
struct OpenedFile {
  ShardFile info;
  int height = 0, width = 0;  // of every row's [3, H, W] stack
  std::vector<int32_t> space_groups, crystal_systems;
  std::vector<int64_t> material_ids;
  std::vector<float> pattern_max;  // [N, 3] where the file has `pattern_max`, else empty
};

/// A generator shard (shard_layout.h): format, version, split, [N, 3, H, W] f32 patterns and the
/// label columns (Error naming the file, and the row and value of a bad label).
OpenedFile open_generator_shard(hid_t file, const std::string& path);

/// A file of per-sample groups (FileLayout::Format::sample_groups): every group at the root, in
/// name order, is a sample; its `patterns` dataset is [3, H, W] floating point and its
/// `space_group` attribute an integer or the text of one, 1..230 (Error naming the file, group and
/// value). Samples without `material` get ids first_id + row.
OpenedFile open_sample_group_file(hid_t file, const std::string& path, const FileLayout& layout,
                                  int64_t first_id);

/// Rows [first, first + count) of a sample-group file into `out` ([count, 3, H, W] f32).
void read_sample_groups(hid_t file, const ShardFile& info, const std::string& patterns,
                        int64_t first, int64_t count, int height, int width, float* out);

}  // namespace cbed::shard
