// The HDF5 plugin (libexadnn_hdf5.so.0): reader and writer over the HDF5 C API, reached through
// the table of hdf5_api.h. Every call happens under one mutex (Debian's serial libhdf5 is not
// built thread-safe) with HDF5's own error printing switched off, so failures become
// exadnn::Error messages instead of stderr noise.
#include "data/hdf5_api.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>

#include "exadnn/ops/factories.h"

namespace exadnn::data {
namespace {

constexpr const char* kWhere = "HDF5";

std::mutex& hdf5_mutex() {
  static std::mutex m;
  return m;
}

// Holds the HDF5 mutex and silences HDF5's automatic error printing for one call.
class Hdf5Session {
 public:
  Hdf5Session() : lock_(hdf5_mutex()) {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~Hdf5Session() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  Hdf5Session(const Hdf5Session&) = delete;
  Hdf5Session& operator=(const Hdf5Session&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// An HDF5 identifier closed by `close` when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// Opens an existing file read-only (an id for Handle), or throws saying why not.
hid_t open_file(const std::string& path) {
  EXADNN_CHECK(std::filesystem::exists(path), kWhere, path, ": cannot open: no such file");
  EXADNN_CHECK(H5Fis_hdf5(path.c_str()) > 0, kWhere, path,
               ": not an HDF5 file (no HDF5 signature; truncated or corrupt?)");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXADNN_CHECK(file >= 0, kWhere, path, ": cannot open as HDF5 (truncated or corrupt?)");
  return file;
}

// What H5Lvisit's callback gathers: the dataset paths; and how many links it has been shown and
// the deepest path, against what the file's size allows.
struct LinkVisit {
  std::vector<std::string> names;
  uint64_t links = 0, max_links = 0;  // a stored link takes several bytes: at most the file size
  uint64_t depth = 0, max_depth = 0;  // each level is a group of its own: >16 bytes of the file
};

// A corrupt header can hide that a group is linked twice (its reference count says 1), and then
// H5Lvisit visits it again each time: a group linked into itself nests without end, twin links
// double the visits per level. Neither can happen in a sound file of that size, so the visit
// stops (returns 1) past either bound, which the caller reports.
herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t*, void* out) {
  auto& visit = *static_cast<LinkVisit*>(out);
  visit.depth =
      std::max<uint64_t>(visit.depth, 1 + std::count(name, name + std::strlen(name), '/'));
  if (++visit.links > visit.max_links || visit.depth > visit.max_depth) return 1;
  const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0) return 0;  // a dangling link: skip it
  if (H5Iget_type(obj) == H5I_DATASET) visit.names.push_back(name);
  H5Oclose(obj);
  return 0;
}

std::vector<std::string> dataset_names(hid_t file, const std::string& path) {
  hsize_t bytes = 0;
  if (H5Fget_filesize(file, &bytes) < 0) bytes = std::numeric_limits<hsize_t>::max();  // unknown
  LinkVisit visit;
  visit.max_links = bytes;
  visit.max_depth = std::max<uint64_t>(1, bytes / 16);
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &visit);
  EXADNN_CHECK(visit.links <= visit.max_links, kWhere, path, ": its groups show more than ",
               visit.max_links, " links, more than a file of ", bytes,
               " bytes can hold (a group linked twice: the file is corrupt)");
  EXADNN_CHECK(visit.depth <= visit.max_depth, kWhere, path, ": its groups nest more than ",
               visit.max_depth, " deep, more than a file of ", bytes,
               " bytes can hold (a group linked into itself: the file is corrupt)");
  return visit.names;
}

std::string list_names(const std::vector<std::string>& names) {
  if (names.empty()) return "it holds no datasets";
  std::string s = "it holds: ";
  for (size_t i = 0; i < names.size() && i < 20; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 20) s += detail::cat(", ... (", names.size(), " in all)");
  return s;
}

const char* class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "float";
    case H5T_TIME:
      return "time";
    case H5T_STRING:
      return "string";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_COMPOUND:
      return "compound";
    case H5T_REFERENCE:
      return "reference";
    case H5T_ENUM:
      return "enum";
    case H5T_VLEN:
      return "variable-length";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

// The tensor dtype a dataset reads into and the HDF5 memory type for it: floats of up to 4 bytes
// f32, 8-byte floats f64, u8 stays u8, other integers of up to 4 bytes (u16 too) i32, wider i64;
// anything else an Error naming the file, the dataset and what it holds.
std::pair<DType, hid_t> element_type(hid_t ds, const std::string& path, const std::string& name) {
  Handle type(H5Dget_type(ds), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  const size_t size = H5Tget_size(type.get());
  if (cls == H5T_FLOAT && size <= 4) return {DType::f32, H5T_NATIVE_FLOAT};
  if (cls == H5T_FLOAT && size == 8) return {DType::f64, H5T_NATIVE_DOUBLE};
  if (cls == H5T_INTEGER) {
    const bool is_unsigned = H5Tget_sign(type.get()) == H5T_SGN_NONE;
    if (size == 1 && is_unsigned) return {DType::u8, H5T_NATIVE_UINT8};
    if (size <= 2 || (size == 4 && !is_unsigned)) return {DType::i32, H5T_NATIVE_INT32};
    if (size <= 8) return {DType::i64, H5T_NATIVE_INT64};
    throw Error(kWhere, detail::cat(path, ": dataset '", name, "' holds ", size,
                                    "-byte integers, wider than exadnn's i64"));
  }
  throw Error(kWhere,
              detail::cat(path, ": dataset '", name, "' holds ", size, "-byte ", class_name(cls),
                          " values; exadnn reads float and integer datasets only"));
}

// The HDF5 memory type that reads into a tensor of `dtype`.
hid_t memory_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return H5T_NATIVE_FLOAT;
    case DType::f64:
      return H5T_NATIVE_DOUBLE;
    case DType::u8:
      return H5T_NATIVE_UINT8;
    case DType::i32:
      return H5T_NATIVE_INT32;
    case DType::i64:
      return H5T_NATIVE_INT64;
    default:
      throw Error(kWhere, detail::cat("cannot read into ", dtype_name(dtype),
                                      " (f32, f64, u8, i32 and i64 only)"));
  }
}

// Opens dataset `name` of `file` (an id for Handle), or throws naming the datasets there are.
hid_t open_dataset(hid_t file, const std::string& path, const std::string& name) {
  const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXADNN_CHECK(ds >= 0, kWhere, path, ": no dataset named '", name, "' (",
               list_names(dataset_names(file, path)), ")");
  return ds;
}

// The extents of a dataset's dataspace (at most kMaxDims axes).
Shape extents(hid_t ds, const std::string& path, const std::string& name) {
  Handle space(H5Dget_space(ds), H5Sclose);
  const int ndims = H5Sget_simple_extent_ndims(space.get());
  EXADNN_CHECK(ndims >= 0 && ndims <= kMaxDims, kWhere, path, ": dataset '", name, "' has ", ndims,
               " dimensions (at most ", kMaxDims, " supported)");
  hsize_t dims[kMaxDims];
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  Shape shape;
  for (int d = 0; d < ndims; ++d) shape.push_back(static_cast<int64_t>(dims[d]));
  return shape;
}

Tensor read_file(const std::string& path, const std::string& name, NonFinite non_finite,
                 int64_t max_bytes) {
  EXADNN_CHECK(max_bytes >= 0, kWhere, path, ": dataset '", name, "': max_bytes is ", max_bytes,
               " (a limit in bytes, 0 or more)");
  Hdf5Session session;
  Handle file(open_file(path), H5Fclose);
  Handle ds(open_dataset(file.get(), path, name), H5Dclose);

  const auto [dtype, mem_type] = element_type(ds.get(), path, name);
  const Shape shape = extents(ds.get(), path, name);
  // The tensor's bytes over the nonzero extents (its strides) must fit an int64: a corrupt
  // dataspace can say anything (an extent past int64 reads as negative).
  int64_t span = static_cast<int64_t>(dtype_size(dtype));
  for (int64_t d = 0; d < shape.size(); ++d)
    EXADNN_CHECK(
        shape[d] >= 0 && !__builtin_mul_overflow(span, std::max<int64_t>(shape[d], 1), &span),
        kWhere, path, ": dataset '", name, "' has an impossibly large extent ",
        static_cast<uint64_t>(shape[d]), " on axis ", d, " (the file is corrupt)");

  // span is the tensor's bytes when no extent is zero; with one, nothing is allocated.
  const int64_t bytes =
      std::any_of(shape.begin(), shape.end(), [](int64_t e) { return e == 0; }) ? 0 : span;
  EXADNN_CHECK(bytes <= max_bytes, kWhere, path, ": dataset '", name, "' ", shape, " as ",
               dtype_name(dtype), " needs ", bytes, " bytes, more than the read limit of ",
               max_bytes, " bytes (max_bytes of read_hdf5; by default the machine's physical",
               " memory); a corrupt file can claim any size");
  Tensor out = empty(shape, dtype);
  if (out.numel() > 0) {
    EXADNN_CHECK(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data_ptr()) >= 0,
                 kWhere, path, ": cannot read dataset '", name, "' ", shape,
                 " (the file is truncated or corrupt)");
  }
  if (non_finite == NonFinite::reject) check_finite(out, path, detail::cat("dataset '", name, "'"));
  return out;
}

void describe_dataset(const std::string& path, const std::string& name, Shape* shape,
                      DType* dtype) {
  Hdf5Session session;
  Handle file(open_file(path), H5Fclose);
  Handle ds(open_dataset(file.get(), path, name), H5Dclose);
  *dtype = element_type(ds.get(), path, name).first;
  *shape = extents(ds.get(), path, name);
}

// One hyperslab per example (OR'ed: HDF5 reads a union in file order, hence ascending rows), the
// band's rows of each, into a memory space of out's shape.
void read_example_rows(const std::string& path, const std::string& name,
                       const std::vector<int64_t>& rows, HeightBand band, const Tensor& out) {
  Hdf5Session session;
  Handle file(open_file(path), H5Fclose);
  Handle ds(open_dataset(file.get(), path, name), H5Dclose);
  const Shape shape = extents(ds.get(), path, name);
  const int ndims = static_cast<int>(shape.size());  // ≤ kMaxDims
  EXADNN_CHECK(ndims >= 1, kWhere, path, ": dataset '", name, "' has no example axis");
  const bool banded = band.end > 0;
  EXADNN_CHECK(!banded || (ndims >= 3 && band.begin >= 0 && band.begin < band.end &&
                           band.end <= shape[ndims - 2]),
               kWhere, path, ": dataset '", name, "' ", shape, " has no rows [", band.begin, ", ",
               band.end, ") on its height axis");
  hsize_t start[kMaxDims] = {}, count[kMaxDims];
  for (int d = 0; d < ndims; ++d) count[d] = static_cast<hsize_t>(shape[d]);
  count[0] = 1;
  if (banded) {
    start[ndims - 2] = static_cast<hsize_t>(band.begin);
    count[ndims - 2] = static_cast<hsize_t>(band.rows());
  }
  Handle space(H5Dget_space(ds.get()), H5Sclose);
  H5Sselect_none(space.get());
  for (size_t k = 0; k < rows.size(); ++k) {
    EXADNN_CHECK(rows[k] >= 0 && rows[k] < shape[0] && (k == 0 || rows[k] > rows[k - 1]), kWhere,
                 path, ": dataset '", name, "': example ", rows[k], " is outside [0, ", shape[0],
                 ") or out of ascending order");
    start[0] = static_cast<hsize_t>(rows[k]);
    EXADNN_CHECK(
        H5Sselect_hyperslab(space.get(), H5S_SELECT_OR, start, nullptr, count, nullptr) >= 0,
        kWhere, path, ": dataset '", name, "': cannot select example ", rows[k]);
  }
  hsize_t mem_dims[kMaxDims];
  for (int d = 0; d < ndims; ++d) mem_dims[d] = d == 0 ? rows.size() : count[d];
  EXADNN_CHECK(out.is_contiguous() && out.dim() == ndims, kWhere, path, ": dataset '", name,
               "': the batch to read into is ", out.shape(), ", not ", ndims, "-dimensional");
  for (int d = 0; d < ndims; ++d)
    EXADNN_CHECK(out.size(d) == static_cast<int64_t>(mem_dims[d]), kWhere, path, ": dataset '",
                 name, "': the batch to read into is ", out.shape(), " for ", rows.size(),
                 " examples of ", shape);
  if (rows.empty()) return;
  Handle memory(H5Screate_simple(ndims, mem_dims, nullptr), H5Sclose);
  EXADNN_CHECK(H5Dread(ds.get(), memory_type(out.dtype()), memory.get(), space.get(), H5P_DEFAULT,
                       out.data_ptr()) >= 0,
               kWhere, path, ": cannot read ", rows.size(), " examples of dataset '", name,
               "' (the file is truncated or corrupt)");
}

std::vector<std::string> names_in_file(const std::string& path) {
  Hdf5Session session;
  Handle file(open_file(path), H5Fclose);
  return dataset_names(file.get(), path);
}

void write_file(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets) {
  Hdf5Session session;
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  EXADNN_CHECK(file.ok(), kWhere, path, ": cannot create the file");
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  for (const auto& [name, tensor] : datasets) {
    EXADNN_CHECK(tensor.defined(), kWhere, path, ": dataset '", name, "' is an undefined tensor");
    hid_t file_type = -1, mem_type = -1;
    switch (tensor.dtype()) {
      case DType::f32:
        file_type = H5T_IEEE_F32LE, mem_type = H5T_NATIVE_FLOAT;
        break;
      case DType::f64:
        file_type = H5T_IEEE_F64LE, mem_type = H5T_NATIVE_DOUBLE;
        break;
      case DType::i32:
        file_type = H5T_STD_I32LE, mem_type = H5T_NATIVE_INT32;
        break;
      case DType::i64:
        file_type = H5T_STD_I64LE, mem_type = H5T_NATIVE_INT64;
        break;
      case DType::u8:
        file_type = H5T_STD_U8LE, mem_type = H5T_NATIVE_UINT8;
        break;
      default:
        throw Error(kWhere,
                    detail::cat(path, ": dataset '", name, "': cannot write ",
                                dtype_name(tensor.dtype()), " (f32, f64, i32, i64 and u8 only)"));
    }
    const Tensor host = tensor.detach().to(Device::cpu()).contiguous();
    hsize_t dims[kMaxDims];
    for (int64_t d = 0; d < host.dim(); ++d) dims[d] = static_cast<hsize_t>(host.size(d));
    Handle space(host.dim() == 0 ? H5Screate(H5S_SCALAR)
                                 : H5Screate_simple(static_cast<int>(host.dim()), dims, nullptr),
                 H5Sclose);
    Handle ds(H5Dcreate2(file.get(), name.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
    EXADNN_CHECK(ds.ok(), kWhere, path, ": cannot create dataset '", name,
                 "' (a duplicate or invalid name?)");
    EXADNN_CHECK(host.numel() == 0 || H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                               host.data_ptr()) >= 0,
                 kWhere, path, ": cannot write dataset '", name, "'");
  }
  EXADNN_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, kWhere, path,
               ": cannot flush the file");
}

}  // namespace

}  // namespace exadnn::data

extern "C" const exadnn::detail::Hdf5Api* exadnn_hdf5_api() {
  static const exadnn::detail::Hdf5Api api{
      exadnn::detail::kHdf5ApiVersion, &exadnn::data::read_file,
      &exadnn::data::names_in_file,    &exadnn::data::write_file,
      &exadnn::data::describe_dataset, &exadnn::data::read_example_rows};
  return &api;
}
