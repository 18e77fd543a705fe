// The HDF5 plugin's interface. libhdf5 is not linked into libexadnn: Debian's libhdf5_serial maps
// libcurl, GnuTLS, libcrypto and Kerberos (its ROS3 driver) into every process that links it.
// The reader and writer live in libexadnn_hdf5.so.0 (src/data/hdf5/), which exports one C symbol,
// exadnn_hdf5_api, returning this table; read_hdf5, hdf5_dataset_names and write_hdf5
// (data/hdf5.h) load the plugin on first use and call through it, so a run that touches no HDF5
// file maps none of those libraries.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/data/hdf5.h"

namespace exadnn::detail {

/// The table's layout; a plugin built with another is refused (a stale install).
constexpr int kHdf5ApiVersion = 2;

struct Hdf5Api {
  int version;  ///< kHdf5ApiVersion of the plugin's build
  Tensor (*read)(const std::string& path, const std::string& name, data::NonFinite non_finite,
                 int64_t max_bytes);
  std::vector<std::string> (*names)(const std::string& path);
  void (*write)(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets);
  /// The shape and element type read() would return for dataset `name`, without reading it.
  void (*describe)(const std::string& path, const std::string& name, Shape* shape, DType* dtype);
  /// Examples `rows` (ascending, distinct) of dataset `name` [N, ...], cut to rows [band.begin,
  /// band.end) of the second-to-last axis (band.end 0: whole), into `out` [rows.size(), ...]
  /// (contiguous host; its dtype is the one read into: HDF5 converts the file's numbers).
  void (*read_examples)(const std::string& path, const std::string& name,
                        const std::vector<int64_t>& rows, data::HeightBand band, const Tensor& out);
};

}  // namespace exadnn::detail

namespace exadnn::data::internal {
/// The plugin's table, loaded on the first call (in libexadnn: data/hdf5.cpp); an Error saying
/// where it was looked for when it is missing or of another version.
const exadnn::detail::Hdf5Api& hdf5_api();
/// An Error naming the file and both datasets unless inputs [N, ...] and targets [N, ...] have a
/// leading example axis of the same N ≥ 1 (load_hdf5_dataset and Hdf5Dataset).
void check_examples(const std::string& path, const std::string& inputs_name, const Shape& inputs,
                    const std::string& targets_name, const Shape& targets);
}  // namespace exadnn::data::internal

/// The plugin's table (defined in libexadnn_hdf5 only).
extern "C" const exadnn::detail::Hdf5Api* exadnn_hdf5_api();
