// Shards for the loader's tests, written with the serial build of the shard writer: sample i of
// a shard has material id first_id + i, space group groups[i % size], and every pixel of its
// stack equal to its material id (so a batch says which samples it holds), or `pixel(id, k)` for
// the k-th value of its [3, size, size] stack where given.
#pragma once

#include <exadnn/core/error.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cbed/shard_writer.h"
#include "cbed/space_group.h"

namespace cbed::shard::testing {

/// The message of the exadnn::Error `f` throws ("no error" when it throws none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const exadnn::Error& e) {
    return e.what();
  }
  return "no error";
}

inline std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("cbed_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline void write_test_shard(const std::string& dir, Split split, int shard, int64_t first_id,
                             int64_t n, int size = 8, int chunk = 1,
                             std::vector<int> groups = {225, 194, 62, 14, 2},
                             const std::function<float(int64_t, int64_t)>& pixel = {}) {
  ShardHeader h;
  h.split = split;
  h.shard = shard;
  h.height = h.width = size;
  h.samples_per_chunk = chunk;
  h.materials = first_id + n;
  ShardRows rows;
  for (int64_t i = 0; i < n; ++i) {
    SampleLabels l;
    l.space_group = groups[size_t(i) % groups.size()];
    l.crystal_system =
        l.space_group >= 1 && l.space_group <= 230 ? int(crystal_system(l.space_group)) : 0;
    l.lattice = {4, 4, 4, 90, 90, 90};
    l.composition[13] = 2;
    l.formula = "Si";
    l.material_id = first_id + i;
    l.zone_axes = {"[100]", "[010]", "[001]"};
    rows.labels.push_back(l);
    for (int64_t k = 0; k < int64_t(3) * size * size; ++k)
      rows.patterns.push_back(pixel ? pixel(first_id + i, k) : float(first_id + i));
  }
  write_shard(MPI_COMM_NULL, dir + "/" + shard_file_name(split, shard), h, rows);
}

}  // namespace cbed::shard::testing
