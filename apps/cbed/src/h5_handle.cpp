#include "h5_handle.h"

#include <filesystem>
#include <system_error>

namespace cbed::h5 {

namespace {

// Collects "function: description (minor message)" of each entry of an error stack.
herr_t collect(unsigned, const H5E_error2_t* e, void* out) {
  auto& text = *static_cast<std::string*>(out);
  char minor[128] = "";
  H5Eget_msg(e->min_num, nullptr, minor, sizeof minor);
  if (!text.empty()) text += "; ";
  text += std::string(e->func_name ? e->func_name : "?") + ": " + (e->desc ? e->desc : "") + " (" +
          minor + ")";
  return 0;
}

}  // namespace

std::string error_stack() {
  std::string stack;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect, &stack);
  return stack.empty() ? "no reason given" : stack;
}

std::string read_failure(hid_t file, const std::string& path) {
  const std::string stack = error_stack();  // first: the calls below clear it
  haddr_t addressed = 0;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && H5Fget_eoa(file, &addressed) >= 0 && size < addressed)
    return "the file is truncated (" + std::to_string(size) + " of the " +
           std::to_string(addressed) + " bytes its HDF5 structure addresses are there)";
  return "libhdf5: " + stack;
}

hid_t text_type(size_t bytes) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, bytes);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  return type;
}

bool read_text(hid_t attribute, std::string& text) {
  Type stored(H5Aget_type(attribute));
  if (!stored.valid() || H5Tget_class(stored.get()) != H5T_STRING) return false;
  if (H5Tis_variable_str(stored.get()) > 0) {
    Type type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), H5T_VARIABLE);
    char* value = nullptr;
    if (H5Aread(attribute, type.get(), &value) < 0 || value == nullptr) return false;
    text = value;
    H5free_memory(value);
    return true;
  }
  // Read as stored, NUL-padded: a NUL-terminated type of the stored size would drop the last
  // character of numpy's fixed-length (NUL-padded, unterminated) strings.
  const size_t bytes = H5Tget_size(stored.get());
  Type type(H5Tcopy(stored.get()));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  text.assign(bytes, '\0');
  if (H5Aread(attribute, type.get(), text.data()) < 0) return false;
  text.resize(text.find('\0') == std::string::npos ? bytes : text.find('\0'));
  return true;
}

}  // namespace cbed::h5
