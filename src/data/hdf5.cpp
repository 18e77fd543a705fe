// data/hdf5.h in libexadnn: the read limit and the dataset loader, and the file access forwarded
// to the HDF5 plugin (hdf5_api.h), loaded on the first call.
#include "exadnn/data/hdf5.h"

#include <unistd.h>

#include <limits>

#include "data/hdf5_api.h"
#include "exadnn/core/plugin.h"

namespace exadnn::data {
namespace {

constexpr const char* kWhere = "HDF5";

}  // namespace

const detail::Hdf5Api& internal::hdf5_api() {
  static const detail::Hdf5Api* api = [] {
    auto* entry =
        reinterpret_cast<const detail::Hdf5Api* (*)()>(plugin_symbol("hdf5", "exadnn_hdf5_api"));
    return entry ? entry() : nullptr;
  }();
  EXADNN_CHECK(api, kWhere, "HDF5 files are read and written by the plugin libexadnn_hdf5.so.0, ",
               "which did not load (build the exadnn_hdf5 target, or set EXADNN_PLUGIN_PATH to ",
               "its folder): ", plugin_error("hdf5"));
  EXADNN_CHECK(api->version == detail::kHdf5ApiVersion, kWhere,
               "the plugin libexadnn_hdf5.so.0 has interface version ", api->version,
               ", this libexadnn ", detail::kHdf5ApiVersion, " (a stale install?)");
  return *api;
}

using internal::hdf5_api;

void internal::check_examples(const std::string& path, const std::string& inputs_name,
                              const Shape& x, const std::string& targets_name, const Shape& y) {
  EXADNN_CHECK(x.size() >= 1 && y.size() >= 1, kWhere, path, ": datasets '", inputs_name, "' ", x,
               " and '", targets_name, "' ", y, " need a leading example axis");
  EXADNN_CHECK(x[0] == y[0], kWhere, path, ": '", targets_name, "' holds ", y[0], " targets but '",
               inputs_name, "' holds ", x[0], " examples");
  EXADNN_CHECK(x[0] > 0, kWhere, path, ": no examples: dataset '", inputs_name, "' ", x,
               " is empty (an empty dataset cannot train or be scored)");
}

int64_t hdf5_default_read_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max();  // unknown
  int64_t bytes = 0;
  if (__builtin_mul_overflow(int64_t{pages}, int64_t{page_size}, &bytes))
    return std::numeric_limits<int64_t>::max();
  return bytes;
}

Tensor read_hdf5(const std::string& path, const std::string& name, NonFinite non_finite,
                 int64_t max_bytes) {
  return hdf5_api().read(path, name, non_finite, max_bytes);
}

std::vector<std::string> hdf5_dataset_names(const std::string& path) {
  return hdf5_api().names(path);
}

void write_hdf5(const std::string& path,
                const std::vector<std::pair<std::string, Tensor>>& datasets) {
  hdf5_api().write(path, datasets);
}

TensorDataset load_hdf5_dataset(const std::string& path, const std::string& inputs_name,
                                const std::string& targets_name, DType input_dtype,
                                NonFinite non_finite, int64_t max_bytes) {
  Tensor x = read_hdf5(path, inputs_name, non_finite, max_bytes);
  Tensor y = read_hdf5(path, targets_name, non_finite, max_bytes);
  internal::check_examples(path, inputs_name, x.shape(), targets_name, y.shape());
  y = is_floating(y.dtype()) ? y.to(DType::f32) : y.to(DType::i64);
  x = x.to(input_dtype);
  if (non_finite == NonFinite::reject) {  // e.g. f64 values beyond f32's range became infinity
    check_finite(x, path, detail::cat("dataset '", inputs_name, "' as ", dtype_name(input_dtype)));
    check_finite(y, path, detail::cat("dataset '", targets_name, "' as f32"));
  }
  return TensorDataset(x, y);
}

}  // namespace exadnn::data
