#include "wire.h"

#include <algorithm>

#include "exadnn/core/error.h"

namespace exadnn::flow::detail {

const std::byte* ByteReader::take(size_t n) {
  EXADNN_CHECK(n <= size_ - at_, std::string(where_), "malformed message: ", n,
               " bytes wanted at offset ", at_, " of ", size_);
  const std::byte* p = data_ + at_;
  at_ += n;
  return p;
}

void write_meta(ByteWriter& w, DType dtype, const Shape& shape) {
  w.put<uint8_t>(static_cast<uint8_t>(dtype));
  w.put<uint8_t>(static_cast<uint8_t>(shape.size()));
  for (int64_t d : shape) w.put<int64_t>(d);
}

TensorMeta read_meta(ByteReader& r) {
  TensorMeta m;
  const auto dtype = r.get<uint8_t>();
  EXADNN_CHECK(dtype < kDTypeCount, "flow", "malformed message: dtype code ", int(dtype));
  m.dtype = static_cast<DType>(dtype);
  const auto ndim = r.get<uint8_t>();
  EXADNN_CHECK(ndim <= kMaxDims, "flow", "malformed message: ", int(ndim), " dimensions");
  // The tensor's bytes must be an int64 (the extents of a corrupt message can overflow it), and
  // so must its strides: a zero extent does not excuse the others.
  int64_t bytes = static_cast<int64_t>(dtype_size(m.dtype));
  for (int i = 0; i < ndim; ++i) {
    const auto d = r.get<int64_t>();
    EXADNN_CHECK(d >= 0, "flow", "malformed message: negative extent ", d);
    m.shape.push_back(d);
    EXADNN_CHECK(!__builtin_mul_overflow(bytes, std::max<int64_t>(d, 1), &bytes), "flow",
                 "malformed message: a ", dtype_name(m.dtype), " tensor of shape ", m.shape,
                 "... has more than 2^63 bytes");
  }
  return m;
}

}  // namespace exadnn::flow::detail
