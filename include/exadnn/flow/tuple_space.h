// TupleSpace: a shared key → value store of the workflow (COMMLIB), served by dedicated ranks.
//
//   // on the server ranks (TupleSpaceLayout::server_ranks):
//   flow::serve_tuple_space(comm, layout);          // returns after shutdown_servers()
//   // on every other rank:
//   flow::TupleSpace ts(comm, layout);
//   ts.put("result/lr0.1", loss);                   // tensor or bytes; returns once stored
//   flow::Tuple t = ts.get("result/*");             // blocks until a match, removes it
//   ...
//   ts.shutdown_servers();                          // one client, after every client is done
//
// Keys and patterns. A key is a non-empty string without '*' or '?'. A pattern is a key in which
// '*' matches any run of characters (empty included, '/' included) and '?' exactly one character;
// "result/*" is thus a prefix pattern, "run?/loss" and "*/loss" wildcard patterns, and a pattern
// without wildcards names one key. The space is a multiset: several tuples may share a key, and
// get/read of a key take its oldest tuple first. When several keys match a pattern, a shard
// answers with the smallest matching key (byte order); across shards, the first shard asked that
// holds a match answers.
//
// Sharding and waiting. Tuples live on server `hash(key) mod servers` (FNV-1a of the key). An
// exact key, and any pattern when there is one server, is routed to one shard whose server keeps
// a FIFO queue of blocked get/read requests and answers them as matching tuples arrive (a read
// is answered with a copy, a get takes the tuple, so no tuple is delivered twice). A blocking
// pattern over several shards polls the shards with try_get/try_read, starting at a different
// shard each round and backing off from 20 µs to 2 ms between rounds: each try is atomic on its
// server, so a tuple is delivered once and never lost, at the price of up to one back-off period
// of extra latency. Every request is acknowledged, so a put has been stored when it returns.
//
// Producers. A wait can only be answered by a put, so the space can be told which client ranks
// may still put (set_producers; the Executive declares the ranks still running module instances,
// once no task is queued). A blocking get/read by rank c that finds no match then ends with
// NoProducerError as soon as no rank other than c is declared, instead of waiting forever: tuples
// already stored are still taken, only waits no put could answer end. Puts by other threads of
// the waiting rank do not count. Until declared (and after set_producers(nullopt)), any rank may
// put and waits are unbounded.
//
// Threads: one TupleSpace may be used by several threads of a rank at once (blocking calls do
// not hold the lock while they wait); MPI calls are serialised by one process-wide lock, as
// MPI_THREAD_SERIALIZED asks, so other MPI traffic of the process must not run concurrently.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/dist/communicator.h"

namespace exadnn::flow {

/// Which ranks of the COMMLIB communicator serve the tuple space.
struct TupleSpaceLayout {
  std::vector<int> server_ranks;  ///< one shard per server rank, in this order
};

/// Thrown by a blocking get/read that no put can answer any more: nothing matches its pattern and
/// no rank other than the waiting one may still put (TupleSpace::set_producers).
class NoProducerError : public Error {
 public:
  using Error::Error;
};

/// A value of raw bytes.
using Bytes = std::vector<std::byte>;

/// A tuple taken from the space: its key and its value (a tensor or bytes).
struct Tuple {
  std::string key;                    ///< the tuple's (exact) key
  std::variant<Tensor, Bytes> value;  ///< the value as put

  /// True when the value is a tensor.
  bool is_tensor() const { return std::holds_alternative<Tensor>(value); }
  /// The tensor value; throws exadnn::Error naming the key if the value is bytes.
  const Tensor& tensor() const;
  /// The bytes value; throws exadnn::Error naming the key if the value is a tensor.
  const Bytes& bytes() const;
  /// The bytes value as a string (for text such as JSON).
  std::string text() const;
};

/// True when `key` holds a wildcard ('*' or '?').
bool is_pattern(std::string_view key);
/// True when `key` matches `pattern` ('*' any run of characters, '?' one character).
bool key_matches(std::string_view pattern, std::string_view key);

/// Serves this rank's shard until a client calls TupleSpace::shutdown_servers(); call it on each
/// rank of `layout.server_ranks` (throws exadnn::Error on any other rank). Tuples left at
/// shutdown are dropped, and requests still blocked are answered with an error.
void serve_tuple_space(dist::Communicator comm, TupleSpaceLayout layout);

/// A client of the tuple space on one rank that is not a server. Copies share the client.
class TupleSpace {
 public:
  /// Checks the layout (at least one server, ranks of `comm`, none twice) and that this rank is
  /// not a server. Not collective.
  TupleSpace(dist::Communicator comm, TupleSpaceLayout layout);

  /// Stores a tensor (any dtype and shape; copied, so `value` may change afterwards) under `key`.
  void put(const std::string& key, const Tensor& value);
  /// Stores raw bytes under `key`.
  void put(const std::string& key, std::span<const std::byte> value);
  /// Stores text (as bytes) under `key`; Tuple::text() gives it back.
  void put(const std::string& key, std::string_view text);

  /// Blocks until a tuple matches `pattern`, removes it and returns it.
  Tuple get(const std::string& pattern);
  /// Blocks until a tuple matches `pattern` and returns a copy, leaving it in the space.
  Tuple read(const std::string& pattern);
  /// Removes and returns a matching tuple, or nullopt when none is there now.
  std::optional<Tuple> try_get(const std::string& pattern);
  /// Returns a copy of a matching tuple, or nullopt when none is there now.
  std::optional<Tuple> try_read(const std::string& pattern);

  /// Declares, to every server, the client ranks that may still put (nullopt: any rank may).
  /// Blocking gets/reads by a rank c that match nothing end with NoProducerError once no rank
  /// other than c is declared (see "Producers" above). Returns once every server has it.
  void set_producers(const std::optional<std::vector<int>>& ranks);

  /// Stops every server (they return from serve_tuple_space). Call it on ONE client rank once
  /// all clients are done; afterwards this client's calls throw exadnn::Error.
  void shutdown_servers();
  /// True once this client has called shutdown_servers().
  bool is_shut_down() const;
  /// Number of server ranks (shards).
  int server_count() const;
  /// The shard (index into server_ranks) that holds tuples of `key`.
  int shard_of(std::string_view key) const;

  /// Client state shared by copies (defined in src/flow).
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace exadnn::flow
