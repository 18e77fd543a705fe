// ShardSet and ShardDataset: opening, checking and reading the shards (serial libhdf5).
#include "cbed/loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>

#include <exadnn/ops/factories.h>

#include "cbed/pattern_scale.h"
#include "cbed/space_group.h"
#include "h5_handle.h"
#include "loader_files.h"
#include "loader_lock.h"

namespace cbed::shard {
namespace {

constexpr const char* kWhere = "cbed::ShardSet";

std::string read_text_attribute(hid_t file, const char* name, const std::string& path) {
  h5::Attribute a(H5Aopen(file, name, H5P_DEFAULT));
  EXADNN_CHECK(a.valid(), kWhere, path, " has no attribute '", name, "': not a CBED shard");
  std::string text;
  EXADNN_CHECK(h5::read_text(a.get(), text), kWhere, path, ": attribute '", name,
               "' is not a string");
  return text;
}

int read_int_attribute(hid_t file, const char* name, const std::string& path) {
  h5::Attribute a(H5Aopen(file, name, H5P_DEFAULT));
  int value = 0;
  EXADNN_CHECK(a.valid() && H5Aread(a.get(), H5T_NATIVE_INT, &value) >= 0, kWhere, path,
               " lacks the integer attribute '", name, "'");
  return value;
}

template <class T>
std::vector<T> read_column(hid_t file, const char* name, hid_t type, hsize_t rows,
                           const std::string& path) {
  h5::Dataset set(H5Dopen2(file, name, H5P_DEFAULT));
  const auto dims = dims_of(set.get(), name, path);
  EXADNN_CHECK(dims.size() == 1 && dims[0] == rows, kWhere, path, ": '", name, "' has ",
               dims.empty() ? 0 : dims[0], " rows (rank ", dims.size(), "), the patterns ", rows);
  std::vector<T> values(rows);
  if (H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw exadnn::Error(kWhere,
                        path + ": reading '" + name + "' failed: " + h5::read_failure(file, path));
  return values;
}

// `pattern_max` [N, 3] (positive, finite) when the shard has it, else nothing.
std::vector<float> read_pattern_max(hid_t file, hsize_t rows, const std::string& path);

}  // namespace

// The dimensions of dataset `name` (Error naming the file when it is missing).
std::vector<hsize_t> dims_of(hid_t set, const std::string& name, const std::string& path) {
  EXADNN_CHECK(set >= 0, kWhere, path, " has no dataset '", name, "'");
  h5::Space space(H5Dget_space(set));
  std::vector<hsize_t> dims(std::max(0, H5Sget_simple_extent_ndims(space.get())));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

std::mutex& hdf5_lock() {
  static std::mutex lock;
  return lock;
}

OpenedFile open_generator_shard(hid_t f, const std::string& path) {
  EXADNN_CHECK(read_text_attribute(f, "format", path) == kFormat, kWhere, path, ": format is not ",
               kFormat);
  const int version = read_int_attribute(f, "version", path);
  EXADNN_CHECK(version == kVersion, kWhere, path, ": shard version ", version, ", expected ",
               kVersion);
  const std::string split = read_text_attribute(f, "split", path);
  OpenedFile opened;
  ShardFile& info = opened.info;
  info.path = path;
  bool known = false;
  for (Split s : {Split::train, Split::val, Split::test})
    if (split == split_name(s)) info.split = s, known = true;
  EXADNN_CHECK(known, kWhere, path, ": unknown split '", split, "'");

  h5::Dataset patterns(H5Dopen2(f, kPatterns, H5P_DEFAULT));
  const auto dims = dims_of(patterns.get(), kPatterns, path);
  EXADNN_CHECK(dims.size() == 4 && dims[1] == 3 && dims[0] >= 1, kWhere, path,
               ": 'patterns' must be [N, 3, H, W] with N >= 1, not of rank ", dims.size());
  h5::Type type(H5Dget_type(patterns.get()));
  EXADNN_CHECK(H5Tget_class(type.get()) == H5T_FLOAT && H5Tget_size(type.get()) == 4, kWhere, path,
               ": 'patterns' is not float32");
  opened.height = int(dims[2]);
  opened.width = int(dims[3]);
  h5::Plist dcpl(H5Dget_create_plist(patterns.get()));
  hsize_t chunk[4] = {1, 3, 1, 1};
  if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) H5Pget_chunk(dcpl.get(), 4, chunk);
  info.samples = int64_t(dims[0]);
  info.chunk_rows = int(chunk[0]);

  opened.space_groups = read_column<int32_t>(f, kSpaceGroup, H5T_NATIVE_INT32, dims[0], path);
  opened.crystal_systems = read_column<int32_t>(f, kCrystalSystem, H5T_NATIVE_INT32, dims[0], path);
  opened.material_ids = read_column<int64_t>(f, kMaterialId, H5T_NATIVE_INT64, dims[0], path);
  opened.pattern_max = read_pattern_max(f, dims[0], path);
  for (hsize_t i = 0; i < dims[0]; ++i) {
    const int32_t group = opened.space_groups[i], system = opened.crystal_systems[i];
    EXADNN_CHECK(group >= 1 && group <= 230, kWhere, path, ": row ", i, " has space group ", group,
                 ", outside 1..230");
    EXADNN_CHECK(system == int(crystal_system(group)), kWhere, path, ": row ", i,
                 " has crystal system ", system, ", but space group ", group, " is ",
                 crystal_system_name(crystal_system(group)));
  }
  return opened;
}

namespace {

std::vector<float> read_pattern_max(hid_t file, hsize_t rows, const std::string& path) {
  if (H5Lexists(file, kPatternMax, H5P_DEFAULT) <= 0) return {};
  h5::Dataset set(H5Dopen2(file, kPatternMax, H5P_DEFAULT));
  const auto dims = dims_of(set.get(), kPatternMax, path);
  EXADNN_CHECK(dims.size() == 2 && dims[0] == rows && dims[1] == 3, kWhere, path, ": '",
               kPatternMax, "' must be [", rows, ", 3] like the patterns, not of rank ",
               dims.size());
  std::vector<float> values(rows * 3);
  if (H5Dread(set.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw exadnn::Error(
        kWhere, path + ": reading '" + kPatternMax + "' failed: " + h5::read_failure(file, path));
  for (size_t i = 0; i < values.size(); ++i)
    EXADNN_CHECK(std::isfinite(values[i]) && values[i] > 0, kWhere, path, ": '", kPatternMax,
                 "' of row ", i / 3, " pattern ", i % 3, " is ", values[i],
                 " (a pattern's largest value must be positive and finite)");
  return values;
}

}  // namespace

ShardSet::ShardSet(std::vector<std::string> paths, FileLayout layout,
                   std::optional<std::array<int, 2>> expected)
    : layout_(std::move(layout)) {
  EXADNN_CHECK(!paths.empty(), kWhere, "no shard files given");
  std::lock_guard guard(hdf5_lock());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // failures become Errors naming the file
  offsets_.push_back(0);
  for (const std::string& path : paths) {
    EXADNN_CHECK(std::filesystem::is_regular_file(path), kWhere, "shard ", path, " does not exist");
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    EXADNN_CHECK(file.valid(), kWhere, "shard ", path, " (", std::filesystem::file_size(path),
                 " bytes) cannot be opened as HDF5: truncated or "
                 "not an HDF5 file");
    OpenedFile opened = layout_.format == FileLayout::Format::shards
                            ? open_generator_shard(file.get(), path)
                            : open_sample_group_file(file.get(), path, layout_, offsets_.back());
    const int h = opened.height, w = opened.width;
    const char* what = layout_.format == FileLayout::Format::shards ? "shard" : "file";
    if (expected)
      EXADNN_CHECK(h == (*expected)[0] && w == (*expected)[1], kWhere, path, ": patterns are ", h,
                   " x ", w, ", the model expects ", (*expected)[0], " x ", (*expected)[1]);
    if (files_.empty()) height_ = h, width_ = w;
    EXADNN_CHECK(h == height_ && w == width_, kWhere, path, ": patterns are ", h, " x ", w,
                 ", the first ", what, "'s ", height_, " x ", width_);
    space_group_.insert(space_group_.end(), opened.space_groups.begin(), opened.space_groups.end());
    crystal_system_.insert(crystal_system_.end(), opened.crystal_systems.begin(),
                           opened.crystal_systems.end());
    material_id_.insert(material_id_.end(), opened.material_ids.begin(), opened.material_ids.end());
    // The maxima only if every file has them (a set mixing old and new shards reads whole).
    if (files_.empty() || !pattern_max_.empty())
      pattern_max_.insert(pattern_max_.end(), opened.pattern_max.begin(), opened.pattern_max.end());
    if (opened.pattern_max.empty()) pattern_max_.clear();
    files_.push_back(std::move(opened.info));
    offsets_.push_back(offsets_.back() + files_.back().samples);
  }
}

ShardSet::~ShardSet() {
  std::lock_guard guard(hdf5_lock());
  for (const OpenFile& o : open_) {
    if (o.patterns >= 0) H5Dclose(o.patterns);
    if (o.file >= 0) H5Fclose(o.file);
  }
}

ShardSet ShardSet::open_split(const std::string& dir, Split split, const FileLayout& layout,
                              std::optional<std::array<int, 2>> expected_size) {
  EXADNN_CHECK(std::filesystem::is_directory(dir), kWhere, "shard folder ", dir, " does not exist");
  const std::string& pattern = layout.files(split);
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (file_name_matches(pattern, entry.path().filename().string()))
      paths.push_back(entry.path().string());
  EXADNN_CHECK(!paths.empty(), kWhere, "no ", pattern, " ",
               layout.format == FileLayout::Format::shards ? "shards" : "files", " in ", dir);
  std::sort(paths.begin(), paths.end());
  return ShardSet(std::move(paths), layout, expected_size);
}

int64_t ShardSet::target(int64_t i, Target t) const {
  return t == Target::space_group ? space_group_[i] - 1 : crystal_system_[i];
}

std::pair<int, int64_t> ShardSet::locate(int64_t i) const {
  EXADNN_CHECK(i >= 0 && i < size(), kWhere, "sample ", i, " is outside 0..", size() - 1);
  const int f = int(std::upper_bound(offsets_.begin(), offsets_.end(), i) - offsets_.begin()) - 1;
  return {f, i - offsets_[f]};
}

void ShardSet::read_rows(int f, int64_t first, int64_t count, float* out,
                         std::optional<exadnn::data::HeightBand> band) const {
  const ShardFile& file_info = files_.at(f);
  EXADNN_CHECK(first >= 0 && count >= 1 && first + count <= file_info.samples, kWhere,
               file_info.path, ": rows ", first, "..", first + count, " are outside its ",
               file_info.samples);
  std::lock_guard guard(hdf5_lock());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // per thread: this may be the loader's thread
  open_.resize(files_.size());
  OpenFile& open = open_[f];
  EXADNN_CHECK(!band || (band->begin >= 0 && band->rows() >= 1 && band->end <= height_ &&
                         file_info.groups.empty()),
               kWhere, file_info.path, ": rows [", band ? band->begin : 0, ", ",
               band ? band->end : 0, ") of its ", height_, "-row patterns cannot be read",
               file_info.groups.empty() ? "" : " (a file of per-sample groups is read whole)");
  if (!file_info.groups.empty()) {  // one dataset per sample
    if (open.file < 0) {
      open.file = H5Fopen(file_info.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      EXADNN_CHECK(open.file >= 0, kWhere, "file ", file_info.path,
                   " can no longer be opened: libhdf5: ", h5::error_stack());
    }
    read_sample_groups(open.file, file_info, layout_.patterns, first, count, height_, width_, out);
    return;
  }
  if (open.patterns < 0) {
    const hid_t file = H5Fopen(file_info.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXADNN_CHECK(file >= 0, kWhere, "shard ", file_info.path,
                 " can no longer be opened: libhdf5: ", h5::error_stack());
    // No chunk cache (1 MiB per open dataset by default: 48 shards held ~48 MiB outside the
    // stream's buffer): the stream reads whole chunks once, random access one sample each.
    h5::Plist access(H5Pcreate(H5P_DATASET_ACCESS));
    H5Pset_chunk_cache(access.get(), H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0, H5D_CHUNK_CACHE_W0_DEFAULT);
    const hid_t patterns = H5Dopen2(file, kPatterns, access.get());
    if (patterns < 0) H5Fclose(file);
    EXADNN_CHECK(patterns >= 0, kWhere, file_info.path, ": 'patterns' cannot be opened");
    open = {file, patterns};
  }
  const hid_t set = open.patterns;
  h5::Space space(H5Dget_space(set));
  const hsize_t start[4] = {hsize_t(first), 0, hsize_t(band ? band->begin : 0), 0};
  const hsize_t dims[4] = {hsize_t(count), 3, hsize_t(band ? band->rows() : height_),
                           hsize_t(width_)};
  H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, dims, nullptr);
  h5::Space mem(H5Screate_simple(4, dims, nullptr));
  if (H5Dread(set, H5T_NATIVE_FLOAT, mem.get(), space.get(), H5P_DEFAULT, out) < 0)
    throw exadnn::Error(kWhere, file_info.path + ": reading rows " + std::to_string(first) + ".." +
                                    std::to_string(first + count) +
                                    " failed: " + h5::read_failure(open.file, file_info.path));
}

ShardDataset::ShardDataset(std::shared_ptr<const ShardSet> shards, Target target, Scale scale)
    : shards_(std::move(shards)), target_(target), scale_(scale) {}

exadnn::Shape ShardDataset::input_shape() const {
  return {3, shards_->height(), shards_->width()};
}

void ShardDataset::fetch(std::span<const int64_t> indices, const exadnn::Tensor& inputs,
                         const exadnn::Tensor& targets) const {
  check_batch(indices, inputs, targets, "cbed::ShardDataset");
  const int64_t pixels = int64_t(shards_->height()) * shards_->width();
  float* x = inputs.data<float>();
  int64_t* y = targets.data<int64_t>();
  for (size_t b = 0; b < indices.size(); ++b) {
    const auto [f, row] = shards_->locate(indices[b]);
    shards_->read_rows(f, row, 1, x + b * 3 * pixels);
    y[b] = shards_->target(indices[b], target_);
  }
  if (scale_ == Scale::log) log_scale_patterns(x, int64_t(indices.size()) * 3, pixels);
}

void ShardDataset::fetch_band(std::span<const int64_t> indices, exadnn::data::HeightBand band,
                              const exadnn::Tensor& inputs, const exadnn::Tensor& targets) const {
  const bool per_sample_groups = shards_->layout().format != FileLayout::Format::shards;
  if (per_sample_groups || (scale_ == Scale::log && !shards_->has_pattern_max()))
    return Dataset::fetch_band(indices, band, inputs, targets);  // whole patterns, then the band
  check_band_batch(indices, band, inputs, targets, "cbed::ShardDataset");
  const int64_t pixels = band.rows() * shards_->width();  // of one pattern's band
  float* x = inputs.data<float>();
  int64_t* y = targets.data<int64_t>();
  for (size_t b = 0; b < indices.size(); ++b) {
    const auto [f, row] = shards_->locate(indices[b]);
    float* stack = x + b * 3 * pixels;
    shards_->read_rows(f, row, 1, stack, band);
    if (scale_ == Scale::log)
      for (int axis = 0; axis < 3; ++axis)
        log_scale_pixels(stack + axis * pixels, pixels, shards_->pattern_max(indices[b], axis));
    y[b] = shards_->target(indices[b], target_);
  }
}

exadnn::Tensor ShardDataset::get_targets(std::span<const int64_t> indices) const {
  check_indices(indices, "cbed::ShardDataset");
  exadnn::Tensor targets = exadnn::empty({int64_t(indices.size())}, exadnn::DType::i64);
  int64_t* y = targets.data<int64_t>();
  for (size_t b = 0; b < indices.size(); ++b) y[b] = shards_->target(indices[b], target_);
  return targets;
}

}  // namespace cbed::shard
