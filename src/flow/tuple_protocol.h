// The tuple-space wire protocol between clients (tuple_space.cpp) and servers
// (tuple_server.cpp); internal to src/flow.
//
// request (client → server, tag kRequestTag):  u8 op, u64 id, string key-or-pattern, [value]
//   producers: the value is u8 declared, u32 n, n × i32 ranks (declared 0: any rank may put)
// reply   (server → client, tag kReplyTag):    u64 id, u8 status, then
//           status ok with a tuple: u8 1, string key, value
//           ok without:             u8 0, u8 no_producer (1: no rank but the asker may put)
//           status error or no_producer: string message
// value:   u8 kind (0 tensor: meta then u64 nbytes and the bytes; 1 bytes: u64 n and the bytes)
// Request ids are unique in the process, so replies to several clients (or threads) of one rank
// can be told apart by any thread that happens to receive them.
#pragma once

#include <cstdint>
#include <string_view>

#include "exadnn/dist/communicator.h"
#include "exadnn/flow/tuple_space.h"
#include "wire.h"

namespace exadnn::flow::detail {

/// MPI tag of requests on the tuple space's communicator.
inline constexpr int kRequestTag = 1;
/// MPI tag of replies.
inline constexpr int kReplyTag = 2;

/// What a request asks.
enum class TupleOp : uint8_t {
  put,        ///< store the value; reply ok
  get,        ///< blocking: reply with the tuple (removed) once one matches
  read,       ///< blocking: reply with a copy once one matches
  try_get,    ///< reply with the tuple (removed) or ok-without-tuple
  try_read,   ///< reply with a copy or ok-without-tuple
  shutdown,   ///< fail blocked requests, reply ok, stop serving
  producers,  ///< declare which ranks may still put (TupleSpace::set_producers); reply ok
};

/// How a request ended.
enum class TupleStatus : uint8_t {
  ok,
  error,
  no_producer,  ///< a blocking get/read that no put can answer any more
};

/// Kinds of values.
enum class ValueKind : uint8_t { tensor, bytes };

/// Throws exadnn::Error (from `where`) unless `layout` names at least one server, every server is
/// a rank of `comm`, and none appears twice.
void check_layout(const dist::Communicator& comm, const TupleSpaceLayout& layout,
                  const char* where);

/// The shard (index into server_ranks) of `key` among `servers` shards: FNV-1a 64 of the key.
int shard_of_key(std::string_view key, int servers);

/// Appends a tensor value (copied from any layout and device into packed host bytes).
void write_value(ByteWriter& w, const Tensor& value);
/// Appends a bytes value.
void write_value(ByteWriter& w, const std::byte* data, size_t n);
/// Reads a value written by write_value into a new tensor or byte vector.
std::variant<Tensor, Bytes> read_value(ByteReader& r);

}  // namespace exadnn::flow::detail
