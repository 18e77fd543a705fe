// The shard writer: one collective file per shard (parallel HDF5), or a plain file (serial build).
#include "cbed/shard_writer.h"

#include <algorithm>
#include <cstring>

#include "cbed/pattern_scale.h"
#include "h5_handle.h"

namespace cbed::shard {
namespace {

constexpr const char* kWhere = "cbed::write_shard";

// Rows [first, first + n) of a dataset [total, tail...] of `type`, chunked `chunk` rows at a time;
// the data is n rows of `tail` elements each.
struct Rows {
  hid_t file, dxpl;
  const std::string& path;
  int64_t first, n, total, chunk;
  int deflate;

  void write(const char* name, hid_t mem_type, hid_t file_type, std::vector<hsize_t> tail,
             const void* data) const {
    std::vector<hsize_t> dims{hsize_t(total)}, chunk_dims{hsize_t(chunk)};
    dims.insert(dims.end(), tail.begin(), tail.end());
    chunk_dims.insert(chunk_dims.end(), tail.begin(), tail.end());
    const int rank = int(dims.size());
    h5::Space space(H5Screate_simple(rank, dims.data(), nullptr));
    h5::Plist dcpl(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(dcpl.get(), rank, chunk_dims.data());
    if (deflate > 0) H5Pset_deflate(dcpl.get(), unsigned(deflate));
    h5::Dataset set(h5::check(
        H5Dcreate2(file, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
        kWhere, "cannot create dataset '" + std::string(name) + "' in " + path));
    std::vector<hsize_t> start(rank, 0), count = dims, mem_dims = dims;
    start[0] = hsize_t(first);
    count[0] = hsize_t(n);
    mem_dims[0] = hsize_t(std::max<int64_t>(n, 1));
    h5::Space mem(H5Screate_simple(rank, mem_dims.data(), nullptr));
    if (n > 0) {
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                          nullptr);
    } else {  // a rank with no rows still takes part in the collective write
      H5Sselect_none(space.get());
      H5Sselect_none(mem.get());
    }
    static const char nothing[64] = {};
    EXADNN_CHECK(
        H5Dwrite(set.get(), mem_type, mem.get(), space.get(), dxpl, n > 0 ? data : nothing) >= 0,
        kWhere, "writing rows ", first, "..", first + n, " of '", name, "' in ", path, " failed");
  }
};

void attribute(hid_t file, const char* name, hid_t type, const void* value, hsize_t count = 1) {
  h5::Space space(count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr));
  h5::Attribute a(H5Acreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  EXADNN_CHECK(a.valid() && H5Awrite(a.get(), type, value) >= 0, kWhere, "attribute '", name,
               "' could not be written");
}

void text_attribute(hid_t file, const char* name, const std::string& value) {
  h5::Type type(h5::text_type(value.size() + 1));
  attribute(file, name, type.get(), value.c_str());
}

void write_header(hid_t file, const ShardHeader& h, int64_t total) {
  const int version = kVersion;
  const int size[2] = {h.height, h.width};
  text_attribute(file, "format", kFormat);
  attribute(file, "version", H5T_NATIVE_INT, &version);
  text_attribute(file, "split", split_name(h.split));
  attribute(file, "shard", H5T_NATIVE_INT, &h.shard);
  attribute(file, "shards_in_split", H5T_NATIVE_INT, &h.shards_in_split);
  attribute(file, "samples", H5T_NATIVE_INT64, &total);
  attribute(file, "materials", H5T_NATIVE_INT64, &h.materials);
  attribute(file, "pattern_size", H5T_NATIVE_INT, size, 2);
  text_attribute(file, "simulation", h.simulation);
  attribute(file, "dose", H5T_NATIVE_DOUBLE, &h.dose);
  attribute(file, "kilovolts", H5T_NATIVE_DOUBLE, &h.kilovolts);
  attribute(file, "aperture_mrad", H5T_NATIVE_DOUBLE, &h.aperture_mrad);
  attribute(file, "detector_mrad", H5T_NATIVE_DOUBLE, &h.detector_mrad);
  attribute(file, "thickness", H5T_NATIVE_DOUBLE, &h.thickness);
  attribute(file, "seed", H5T_NATIVE_UINT64, &h.seed);
}

// This rank's first row and the shard's total, from every rank's row count.
std::array<int64_t, 2> place_rows([[maybe_unused]] MPI_Comm comm, int64_t mine) {
#ifdef H5_HAVE_PARALLEL
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  std::vector<int64_t> counts(ranks);
  MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm);
  int64_t first = 0, total = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r < rank) first += counts[r];
    total += counts[r];
  }
  return {first, total};
#else
  return {0, mine};
#endif
}

}  // namespace

bool parallel_hdf5() {
#ifdef H5_HAVE_PARALLEL
  // The property list and its driver must come from the same library: if another libhdf5 in the
  // process had taken H5Pcreate's symbols, the driver would not read back as MPI-IO.
  h5::Plist fapl(H5Pcreate(H5P_FILE_ACCESS));
  return H5Pset_fapl_mpio(fapl.get(), MPI_COMM_SELF, MPI_INFO_NULL) >= 0 &&
         H5Pget_driver(fapl.get()) == H5FD_MPIO;
#else
  return false;
#endif
}

void write_shard(MPI_Comm comm, const std::string& path, const ShardHeader& h,
                 const ShardRows& mine) {
  const int64_t n = int64_t(mine.labels.size());
  const size_t per_sample = size_t(3) * h.height * h.width;
  EXADNN_CHECK(h.height > 0 && h.width > 0 && mine.patterns.size() == n * per_sample, kWhere, path,
               ": ", mine.patterns.size(), " pattern values for ", n, " samples of 3 x ", h.height,
               " x ", h.width);
  EXADNN_CHECK(h.samples_per_chunk >= 1 && h.deflate >= 0 && h.deflate <= 9, kWhere, path,
               ": samples_per_chunk ", h.samples_per_chunk, " (>= 1) or deflate ", h.deflate,
               " (0..9) out of range");
  const auto [first, total] = place_rows(comm, n);
  EXADNN_CHECK(total >= 1, kWhere, path, ": no samples on any rank");

  h5::Plist fapl(H5Pcreate(H5P_FILE_ACCESS));
  h5::Plist dxpl(H5Pcreate(H5P_DATASET_XFER));
#ifdef H5_HAVE_PARALLEL
  H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);  // filters need collective writes
#endif
  h5::File file(h5::check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), kWhere,
                          "cannot create " + path));
  write_header(file.get(), h, total);

  std::vector<int32_t> groups(n), systems(n), composition(n * kElements);
  std::vector<double> lattice(n * 6);
  std::vector<int64_t> ids(n);
  std::vector<char> formula(n * kTextBytes, 0), axes(n * 3 * kTextBytes, 0);
  for (int64_t i = 0; i < n; ++i) {
    const SampleLabels& l = mine.labels[i];
    groups[i] = l.space_group;
    systems[i] = l.crystal_system;
    std::copy(l.lattice.begin(), l.lattice.end(), lattice.begin() + i * 6);
    std::copy(l.composition.begin(), l.composition.end(), composition.begin() + i * kElements);
    ids[i] = l.material_id;
    std::strncpy(&formula[i * kTextBytes], l.formula.c_str(), kTextBytes - 1);
    for (int a = 0; a < 3; ++a)
      std::strncpy(&axes[(i * 3 + a) * kTextBytes], l.zone_axes[a].c_str(), kTextBytes - 1);
  }
  const Rows rows{
      file.get(), dxpl.get(), path, first, n, total, std::min<int64_t>(h.samples_per_chunk, total),
      h.deflate};
  const hsize_t hw[3] = {3, hsize_t(h.height), hsize_t(h.width)};
  rows.write(kPatterns, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, {hw[0], hw[1], hw[2]},
             mine.patterns.data());
  std::vector<float> maxima(n * 3);
  for (int64_t p = 0; p < n * 3; ++p)
    maxima[p] = pattern_max(mine.patterns.data() + p * per_sample / 3, int64_t(per_sample / 3));
  rows.write(kPatternMax, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, {3}, maxima.data());
  rows.write(kSpaceGroup, H5T_NATIVE_INT32, H5T_STD_I32LE, {}, groups.data());
  rows.write(kCrystalSystem, H5T_NATIVE_INT32, H5T_STD_I32LE, {}, systems.data());
  rows.write(kLattice, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {6}, lattice.data());
  rows.write(kComposition, H5T_NATIVE_INT32, H5T_STD_I32LE, {kElements}, composition.data());
  rows.write(kMaterialId, H5T_NATIVE_INT64, H5T_STD_I64LE, {}, ids.data());
  h5::Type text(h5::text_type(kTextBytes));
  rows.write(kFormula, text.get(), text.get(), {}, formula.data());
  rows.write(kZoneAxes, text.get(), text.get(), {3}, axes.data());
  EXADNN_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, kWhere, "flushing ", path, " failed");
}

}  // namespace cbed::shard
