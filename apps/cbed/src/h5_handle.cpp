#include "h5_handle.h"

namespace cbed::h5 {

hid_t text_type(size_t bytes) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, bytes);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  return type;
}

}  // namespace cbed::h5
