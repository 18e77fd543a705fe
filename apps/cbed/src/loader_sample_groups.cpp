// Files of one HDF5 group per sample (FileLayout::Format::sample_groups, the ORNL CBED files):
// opening and checking them, and reading their rows.
#include <cctype>
#include <charconv>

#include "cbed/space_group.h"
#include "h5_handle.h"
#include "loader_files.h"

namespace cbed::shard {
namespace {

constexpr const char* kWhere = "cbed::ShardSet";

// The groups at the root of `file`, in name order (links to anything else are skipped).
std::vector<std::string> root_groups(hid_t file, const std::string& path) {
  struct Found {
    hid_t file;
    std::vector<std::string> names;
  } found{file, {}};
  auto visit = [](hid_t root, const char* name, const H5L_info_t*, void* data) -> herr_t {
    const hid_t object = H5Oopen(root, name, H5P_DEFAULT);
    if (object < 0) return 0;  // a dangling link: not a sample
    if (H5Iget_type(object) == H5I_GROUP) static_cast<Found*>(data)->names.push_back(name);
    H5Oclose(object);
    return 0;
  };
  hsize_t index = 0;
  EXADNN_CHECK(H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &index, visit, &found) >= 0, kWhere,
               path, ": its root group cannot be listed: libhdf5: ", h5::error_stack());
  return found.names;
}

// The space group of `group` from its attribute `name`: an integer, or text holding one
// ("225", as the ORNL files store it). Error naming the file, group and value otherwise.
int32_t space_group_of(hid_t group, const std::string& name, const std::string& path,
                       const std::string& group_name) {
  h5::Attribute a(H5Aopen(group, name.c_str(), H5P_DEFAULT));
  EXADNN_CHECK(a.valid(), kWhere, path, ": group '", group_name, "' has no attribute '", name,
               "' (data.layout.space_group)");
  h5::Type stored(H5Aget_type(a.get()));
  int64_t value = 0;
  if (H5Tget_class(stored.get()) == H5T_INTEGER) {
    EXADNN_CHECK(H5Aread(a.get(), H5T_NATIVE_INT64, &value) >= 0, kWhere, path, ": group '",
                 group_name, "': attribute '", name, "' cannot be read");
  } else {
    std::string text;
    EXADNN_CHECK(h5::read_text(a.get(), text), kWhere, path, ": group '", group_name,
                 "': attribute '", name, "' is neither an integer nor text");
    size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    const auto [end, error] = std::from_chars(text.data() + b, text.data() + e, value);
    EXADNN_CHECK(b < e && error == std::errc() && end == text.data() + e, kWhere, path, ": group '",
                 group_name, "' has space group '", text, "', not a number");
  }
  EXADNN_CHECK(value >= 1 && value <= 230, kWhere, path, ": group '", group_name,
               "' has space group ", value, ", outside 1..230");
  return int32_t(value);
}

// "[3, 512, 512]".
std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

// A material's id from its name (FNV-1a, bit 62 set, so it never equals a row-number id).
int64_t material_id_of(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return int64_t((h & ((uint64_t(1) << 62) - 1)) | (uint64_t(1) << 62));
}

}  // namespace

OpenedFile open_sample_group_file(hid_t file, const std::string& path, const FileLayout& layout,
                                  int64_t first_id) {
  OpenedFile opened;
  opened.info.path = path;
  opened.info.groups = root_groups(file, path);
  EXADNN_CHECK(!opened.info.groups.empty(), kWhere, path,
               " holds no sample groups (data.layout.format: sample_groups)");
  opened.info.samples = int64_t(opened.info.groups.size());
  for (size_t row = 0; row < opened.info.groups.size(); ++row) {
    const std::string& name = opened.info.groups[row];
    h5::Handle<H5Gclose> group(H5Gopen2(file, name.c_str(), H5P_DEFAULT));
    EXADNN_CHECK(group.valid(), kWhere, path, ": group '", name, "' cannot be opened");
    const std::string dataset = name + "/" + layout.patterns;
    h5::Dataset patterns(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT));
    const auto dims = dims_of(patterns.get(), dataset, path);
    EXADNN_CHECK(dims.size() == 3 && dims[0] == 3 && dims[1] >= 1 && dims[2] >= 1, kWhere, path,
                 ": '", dataset, "' is ", shape_text(dims), ", not [3, H, W]");
    h5::Type type(H5Dget_type(patterns.get()));
    EXADNN_CHECK(H5Tget_class(type.get()) == H5T_FLOAT, kWhere, path, ": '", dataset,
                 "' is not floating point");
    if (row == 0) opened.height = int(dims[1]), opened.width = int(dims[2]);
    EXADNN_CHECK(int(dims[1]) == opened.height && int(dims[2]) == opened.width, kWhere, path, ": '",
                 dataset, "' is 3 x ", dims[1], " x ", dims[2], ", the file's first ",
                 opened.height, " x ", opened.width);
    const int32_t space_group = space_group_of(group.get(), layout.space_group, path, name);
    opened.space_groups.push_back(space_group);
    opened.crystal_systems.push_back(int32_t(crystal_system(space_group)));
    std::string material;
    h5::Attribute m(H5Aexists(group.get(), layout.material.c_str()) > 0
                        ? H5Aopen(group.get(), layout.material.c_str(), H5P_DEFAULT)
                        : -1);
    opened.material_ids.push_back(m.valid() && h5::read_text(m.get(), material)
                                      ? material_id_of(material)
                                      : first_id + int64_t(row));
  }
  return opened;
}

void read_sample_groups(hid_t file, const ShardFile& info, const std::string& patterns,
                        int64_t first, int64_t count, int height, int width, float* out) {
  const size_t per_sample = size_t(3) * height * width;
  for (int64_t r = 0; r < count; ++r) {
    const std::string dataset = info.groups[size_t(first + r)] + "/" + patterns;
    h5::Dataset set(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT));
    const auto dims = dims_of(set.get(), dataset, info.path);
    EXADNN_CHECK(
        dims.size() == 3 && dims[0] == 3 && int(dims[1]) == height && int(dims[2]) == width, kWhere,
        info.path, ": '", dataset, "' changed shape since it was opened");
    if (H5Dread(set.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                out + size_t(r) * per_sample) < 0)
      throw exadnn::Error(kWhere, info.path + ": reading '" + dataset +
                                      "' failed: " + h5::read_failure(file, info.path));
  }
}

}  // namespace cbed::shard
