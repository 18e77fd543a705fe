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
constexpr int kHdf5ApiVersion = 1;

struct Hdf5Api {
  int version;  ///< kHdf5ApiVersion of the plugin's build
  Tensor (*read)(const std::string& path, const std::string& name, data::NonFinite non_finite,
                 int64_t max_bytes);
  std::vector<std::string> (*names)(const std::string& path);
  void (*write)(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets);
};

}  // namespace exadnn::detail

/// The plugin's table (defined in libexadnn_hdf5 only).
extern "C" const exadnn::detail::Hdf5Api* exadnn_hdf5_api();
