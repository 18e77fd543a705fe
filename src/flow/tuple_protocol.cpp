// Shared pieces of the tuple-space protocol: layout checks, key hashing, value encoding.
#include "tuple_protocol.h"

#include <set>

#include "exadnn/ops/factories.h"

namespace exadnn::flow::detail {

void check_layout(const dist::Communicator& comm, const TupleSpaceLayout& layout,
                  const char* where) {
  EXADNN_CHECK(!layout.server_ranks.empty(), where, "the layout names no server rank");
  std::set<int> seen;
  for (int r : layout.server_ranks) {
    EXADNN_CHECK(r >= 0 && r < comm.size(), where, "server rank ", r,
                 " is not a rank of the communicator of ", comm.size());
    EXADNN_CHECK(seen.insert(r).second, where, "server rank ", r, " appears twice");
  }
}

int shard_of_key(std::string_view key, int servers) {
  uint64_t h = 1469598103934665603ull;
  for (char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return static_cast<int>(h % static_cast<uint64_t>(servers));
}

void write_value(ByteWriter& w, const Tensor& value) {
  EXADNN_CHECK(value.defined(), "flow::TupleSpace", "cannot put an undefined tensor");
  Tensor t = value.device().is_cpu() ? value : value.to(Device::cpu());
  if (!t.is_contiguous()) t = t.contiguous();
  w.put<uint8_t>(static_cast<uint8_t>(ValueKind::tensor));
  write_meta(w, t.dtype(), t.shape());
  w.put<uint64_t>(t.nbytes());
  w.append(t.data_ptr(), t.nbytes());
}

void write_value(ByteWriter& w, const std::byte* data, size_t n) {
  w.put<uint8_t>(static_cast<uint8_t>(ValueKind::bytes));
  w.put<uint64_t>(n);
  w.append(data, n);
}

std::variant<Tensor, Bytes> read_value(ByteReader& r) {
  const auto kind = static_cast<ValueKind>(r.get<uint8_t>());
  if (kind == ValueKind::tensor) {
    const TensorMeta meta = read_meta(r);
    const auto nbytes = r.get<uint64_t>();
    EXADNN_CHECK(nbytes == static_cast<uint64_t>(meta.shape.numel()) * dtype_size(meta.dtype),
                 "flow::TupleSpace", "malformed value: ", nbytes, " bytes for ", meta.shape.str(),
                 " ", dtype_name(meta.dtype));
    const std::byte* p = r.take(nbytes);  // before allocating: the bytes must be there
    Tensor t = empty(meta.shape, meta.dtype);
    if (nbytes) std::memcpy(t.data_ptr(), p, nbytes);
    return t;
  }
  EXADNN_CHECK(kind == ValueKind::bytes, "flow::TupleSpace", "malformed value: kind ", int(kind));
  const auto n = r.get<uint64_t>();
  const std::byte* p = r.take(n);
  return Bytes(p, p + n);
}

}  // namespace exadnn::flow::detail
