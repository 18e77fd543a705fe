// RAII for HDF5 identifiers and the checks around HDF5 calls, shared by the shard writer (built
// against Debian's parallel libhdf5 in the generator program) and the loader (the framework's
// serial libhdf5). Private to apps/cbed/src.
#pragma once

#include <hdf5.h>

#include <exadnn/core/error.h>

#include <string>
#include <utility>

namespace cbed::h5 {

/// An identifier closed with `Close` (H5Fclose, H5Dclose, ...) when it goes.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (id_ >= 0) Close(id_);
    id_ = -1;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
};
using File = Handle<H5Fclose>;
using Dataset = Handle<H5Dclose>;
using Space = Handle<H5Sclose>;
using Plist = Handle<H5Pclose>;
using Type = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;

/// `id` when it is valid, else an Error "where: what (file)".
inline hid_t check(hid_t id, const char* where, const std::string& what) {
  EXADNN_CHECK(id >= 0, where, what);
  return id;
}

/// libhdf5's account of the call that just failed, from the thread's error stack: "function:
/// description (minor message)" per entry, innermost first ("no reason given" when empty).
std::string error_stack();

/// Why a read from `file` (at `path`) just failed, for an error message: "the file is truncated
/// (X of the Y bytes its HDF5 structure addresses are there)" when it is, else libhdf5's own
/// account from the error stack (e.g. a memory allocation that failed). Call it right after the
/// failing call: any other HDF5 call clears the error stack.
std::string read_failure(hid_t file, const std::string& path);

/// A fixed-length, NUL-padded string type of kTextBytes.
hid_t text_type(size_t bytes);

/// Attribute `attribute`'s text (fixed- or variable-length string, as written by this writer or
/// by h5py), up to its first NUL; false when it is not a string or cannot be read.
bool read_text(hid_t attribute, std::string& text);

}  // namespace cbed::h5
