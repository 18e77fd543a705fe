// Harness: the COMMLIB wire formats (src/flow/wire.h, tuple_protocol.h) decoded from bytes, no
// MPI. The first byte picks the message:
//   0  a tuple-space value (read_value: tensor meta + bytes, or raw bytes)
//   1  a tuple-space request as the server reads it: u8 op, u64 id, string key, then a value
//      (put) or the producers list (u8 declared, u32 n, n x i32)
//   2  a tuple-space reply with a tuple: u64 id, u8 status, u8 1, string key, value
//   3  a channel header's fields after its magic: i32 dtype, u32 element size, tensor meta,
//      u64 bytes, u8 inline, then the inline payload
// The readers must reject a short or malformed buffer with an exadnn::Error.
#include <cstddef>

#include "fuzz_input.h"
#include "tuple_protocol.h"
#include "wire.h"

namespace {

using namespace exadnn::flow::detail;

void decode(uint8_t kind, ByteReader& r) {
  switch (kind % 4) {
    case 0:
      read_value(r);
      break;
    case 1: {
      const auto op = static_cast<TupleOp>(r.get<uint8_t>());
      r.get<uint64_t>();
      r.get_string();
      if (op == TupleOp::put) {
        read_value(r);
      } else if (op == TupleOp::producers && r.get<uint8_t>() != 0) {
        for (auto n = r.get<uint32_t>(); n > 0; --n) r.get<int32_t>();
      }
      break;
    }
    case 2:
      r.get<uint64_t>();
      r.get<uint8_t>();
      if (r.get<uint8_t>() != 0) {
        r.get_string();
        read_value(r);
      }
      break;
    case 3: {
      r.get<int32_t>();
      r.get<uint32_t>();
      read_meta(r);
      const auto nbytes = r.get<uint64_t>();
      if (r.get<uint8_t>() != 0) r.take(nbytes);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ByteReader r(reinterpret_cast<const std::byte*>(data + 1), size - 1, "flow wire");
  exadnn::fuzz::accept_or_reject([&] { decode(data[0], r); });
  return 0;
}
