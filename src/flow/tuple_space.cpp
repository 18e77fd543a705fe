// TupleSpace client: requests to the shard servers, replies collected through a process-wide
// mailbox so several threads (and clients) of one rank can wait at once. Server: tuple_server.cpp.
#include "exadnn/flow/tuple_space.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <unordered_map>

#include "commlib_mpi.h"
#include "exadnn/dist/mpi_interop.h"
#include "tuple_protocol.h"

namespace exadnn::flow {

using detail::TupleOp;

// --- keys -----------------------------------------------------------------------------------

bool is_pattern(std::string_view key) {
  return key.find_first_of("*?") != std::string_view::npos;
}

bool key_matches(std::string_view pattern, std::string_view key) {
  // Greedy glob with backtracking to the last '*': linear in practice, never exponential.
  size_t p = 0, k = 0, star = std::string_view::npos, mark = 0;
  while (k < key.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == key[k])) {
      ++p;
      ++k;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = k;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      k = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// --- Tuple ----------------------------------------------------------------------------------

const Tensor& Tuple::tensor() const {
  EXADNN_CHECK(is_tensor(), "flow::Tuple", "the value of '", key, "' is bytes, not a tensor");
  return std::get<Tensor>(value);
}

const Bytes& Tuple::bytes() const {
  EXADNN_CHECK(!is_tensor(), "flow::Tuple", "the value of '", key, "' is a tensor, not bytes");
  return std::get<Bytes>(value);
}

std::string Tuple::text() const {
  const Bytes& b = bytes();
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// --- client ---------------------------------------------------------------------------------

namespace {

constexpr const char* kWhere = "flow::TupleSpace";

// Replies received by one thread on behalf of another, by request id; guarded by mpi_mutex().
std::unordered_map<uint64_t, std::vector<std::byte>>& mailbox() {
  static std::unordered_map<uint64_t, std::vector<std::byte>> box;
  return box;
}
// Request ids, unique in the process; guarded by mpi_mutex().
uint64_t next_request_id = 1;

const char* op_name(TupleOp op) {
  switch (op) {
    case TupleOp::put:
      return "put";
    case TupleOp::get:
      return "get";
    case TupleOp::read:
      return "read";
    case TupleOp::try_get:
      return "try_get";
    case TupleOp::try_read:
      return "try_read";
    case TupleOp::shutdown:
      return "shutdown_servers";
    case TupleOp::producers:
      return "set_producers";
  }
  return "?";
}

// Grows the pause between polls: a few yields first (replies usually come within microseconds),
// then sleeps doubling from `first` to `cap`.
class Backoff {
 public:
  Backoff(std::chrono::microseconds first, std::chrono::microseconds cap)
      : pause_(first), cap_(cap) {}
  void operator()() {
    if (yields_ < 64) {
      ++yields_;
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(pause_);
    pause_ = std::min(pause_ * 2, cap_);
  }

 private:
  int yields_ = 0;
  std::chrono::microseconds pause_, cap_;
};

}  // namespace

struct TupleSpace::State {
  State(dist::Communicator c, TupleSpaceLayout l)
      : comm(std::move(c)), mpi(dist::native_handle(comm)), layout(std::move(l)) {}

  dist::Communicator comm;
  MPI_Comm mpi = MPI_COMM_NULL;
  TupleSpaceLayout layout;
  bool shut_down = false;  // guarded by mpi_mutex()

  // A reply: its bytes, and where its body (after the id and status) starts.
  struct Reply {
    std::vector<std::byte> bytes;
    size_t body = 0;
  };

  // Sends the request in `w` (whose id slot is patched here) to shard `shard` and blocks for
  // the reply; returns it, or throws the server's error.
  Reply exchange(int shard, TupleOp op, const std::string& key, detail::ByteWriter& w,
                 bool allow_after_shutdown = false) {
    uint64_t id = 0;
    {
      std::lock_guard lock(detail::mpi_mutex());
      EXADNN_CHECK(!shut_down || allow_after_shutdown, kWhere, op_name(op), " of '", key,
                   "' after shutdown_servers(): the tuple space's servers have stopped");
      id = next_request_id++;
      w.patch<uint64_t>(1, id);
      const int server = layout.server_ranks[static_cast<size_t>(shard)];
      const int rc = MPI_Send(w.buffer().data(), static_cast<int>(w.size()), MPI_BYTE, server,
                              detail::kRequestTag, mpi);
      if (rc != MPI_SUCCESS)  // the message is built only when needed: this is the hot path
        detail::throw_mpi_error(rc,
                                exadnn::detail::cat("MPI_Send of ", op_name(op), " '", key,
                                                    "' to server rank ", server),
                                kWhere);
    }
    Reply reply{wait_reply(id), 0};
    detail::ByteReader r(reply.bytes.data(), reply.bytes.size(), kWhere);
    r.get<uint64_t>();
    const auto status = static_cast<detail::TupleStatus>(r.get<uint8_t>());
    if (status == detail::TupleStatus::no_producer)
      throw NoProducerError(kWhere,
                            exadnn::detail::cat(op_name(op), " of '", key, "': ", r.get_string()));
    if (status == detail::TupleStatus::error)
      throw Error(kWhere, exadnn::detail::cat(op_name(op), " of '", key, "': ", r.get_string()));
    reply.body = r.position();
    return reply;
  }

  // Polls for the reply to request `id`, filing replies meant for other waiters in the mailbox.
  std::vector<std::byte> wait_reply(uint64_t id) {
    Backoff backoff(std::chrono::microseconds(20), std::chrono::microseconds(1000));
    for (;;) {
      {
        std::lock_guard lock(detail::mpi_mutex());
        auto& box = mailbox();
        if (auto it = box.find(id); it != box.end()) {
          std::vector<std::byte> mine = std::move(it->second);
          box.erase(it);
          return mine;
        }
        for (;;) {
          int flag = 0;
          MPI_Message message;
          MPI_Status status;
          detail::mpi_check(
              MPI_Improbe(MPI_ANY_SOURCE, detail::kReplyTag, mpi, &flag, &message, &status),
              "MPI_Improbe for a reply", kWhere);
          if (!flag) break;
          int count = 0;
          detail::mpi_check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count of a reply",
                            kWhere);
          std::vector<std::byte> buffer(static_cast<size_t>(count));
          detail::mpi_check(MPI_Mrecv(buffer.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE),
                            "MPI_Mrecv of a reply", kWhere);
          EXADNN_CHECK(buffer.size() >= sizeof(uint64_t) + 1, kWhere, "malformed reply of ",
                       buffer.size(), " bytes from rank ", status.MPI_SOURCE);
          uint64_t reply_id = 0;
          std::memcpy(&reply_id, buffer.data(), sizeof reply_id);
          if (reply_id == id) return buffer;
          box.emplace(reply_id, std::move(buffer));
        }
      }
      backoff();
    }
  }

  // One request about `pattern` to one shard; the tuple of the reply, if any. `no_producer`
  // (when given) learns whether the shard said that no rank but this one may still put.
  std::optional<Tuple> ask(int shard, TupleOp op, const std::string& pattern,
                           bool* no_producer = nullptr) {
    detail::ByteWriter w;
    w.put<uint8_t>(static_cast<uint8_t>(op));
    w.put<uint64_t>(0);
    w.put_string(pattern);
    const Reply reply = exchange(shard, op, pattern, w);
    detail::ByteReader r(reply.bytes.data() + reply.body, reply.bytes.size() - reply.body, kWhere);
    if (r.get<uint8_t>() == 0) {
      if (no_producer && r.remaining() > 0 && r.get<uint8_t>() != 0) *no_producer = true;
      return std::nullopt;
    }
    Tuple t;
    t.key = r.get_string();
    t.value = detail::read_value(r);
    return t;
  }

  // A blocking get/read: one shard waits for us when the pattern routes to one shard; otherwise
  // the shards are polled with the try_ form (see the header).
  Tuple take(TupleOp blocking, TupleOp poll, const std::string& pattern) {
    EXADNN_CHECK(!pattern.empty(), kWhere, op_name(blocking), " of an empty pattern");
    const int servers = static_cast<int>(layout.server_ranks.size());
    if (!is_pattern(pattern) || servers == 1) {
      const int shard = is_pattern(pattern) ? 0 : detail::shard_of_key(pattern, servers);
      std::optional<Tuple> t = ask(shard, blocking, pattern);
      EXADNN_CHECK(t.has_value(), kWhere, op_name(blocking), " of '", pattern,
                   "': the server answered without a tuple");
      return std::move(*t);
    }
    // Once a shard has said that no other rank may put, the tuples of every producer that
    // ended are stored (each put is acknowledged before its instance ends), so one more full
    // round without a match is conclusive.
    Backoff backoff(std::chrono::microseconds(20), std::chrono::microseconds(2000));
    bool no_producer = false;
    for (int round = 0;; ++round) {
      const bool last_round = no_producer;
      for (int k = 0; k < servers; ++k)
        if (auto t = ask((round + k) % servers, poll, pattern, &no_producer)) return std::move(*t);
      if (last_round)
        throw NoProducerError(
            kWhere, exadnn::detail::cat(op_name(blocking), " of '", pattern,
                                        "': nothing matches on any of the ", servers,
                                        " servers and no producer is left: no rank other than "
                                        "this one may still put (in a workflow: every other "
                                        "module instance has ended, ok or failed)"));
      if (!no_producer) backoff();
    }
  }

  std::optional<Tuple> try_take(TupleOp op, const std::string& pattern) {
    EXADNN_CHECK(!pattern.empty(), kWhere, op_name(op), " of an empty pattern");
    const int servers = static_cast<int>(layout.server_ranks.size());
    if (!is_pattern(pattern)) return ask(detail::shard_of_key(pattern, servers), op, pattern);
    for (int shard = 0; shard < servers; ++shard)
      if (auto t = ask(shard, op, pattern)) return t;
    return std::nullopt;
  }

  void put(const std::string& key, const std::function<void(detail::ByteWriter&)>& value) {
    EXADNN_CHECK(!key.empty(), kWhere, "put with an empty key");
    EXADNN_CHECK(!is_pattern(key), kWhere, "put under '", key,
                 "': keys may not hold the wildcards '*' or '?'");
    detail::ByteWriter w;
    w.put<uint8_t>(static_cast<uint8_t>(TupleOp::put));
    w.put<uint64_t>(0);
    w.put_string(key);
    value(w);
    const int shard = detail::shard_of_key(key, static_cast<int>(layout.server_ranks.size()));
    exchange(shard, TupleOp::put, key, w);
  }
};

TupleSpace::TupleSpace(dist::Communicator comm, TupleSpaceLayout layout) {
  detail::check_layout(comm, layout, kWhere);
  const int me = comm.rank();
  EXADNN_CHECK(std::find(layout.server_ranks.begin(), layout.server_ranks.end(), me) ==
                   layout.server_ranks.end(),
               kWhere, "rank ", me,
               " is a server of the tuple space and cannot be a client; it runs "
               "serve_tuple_space()");
  state_ = std::make_shared<State>(std::move(comm), std::move(layout));
}

void TupleSpace::put(const std::string& key, const Tensor& value) {
  state_->put(key, [&](detail::ByteWriter& w) { detail::write_value(w, value); });
}

void TupleSpace::put(const std::string& key, std::span<const std::byte> value) {
  state_->put(key,
              [&](detail::ByteWriter& w) { detail::write_value(w, value.data(), value.size()); });
}

void TupleSpace::put(const std::string& key, std::string_view text) {
  put(key, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

Tuple TupleSpace::get(const std::string& pattern) {
  return state_->take(TupleOp::get, TupleOp::try_get, pattern);
}

Tuple TupleSpace::read(const std::string& pattern) {
  return state_->take(TupleOp::read, TupleOp::try_read, pattern);
}

std::optional<Tuple> TupleSpace::try_get(const std::string& pattern) {
  return state_->try_take(TupleOp::try_get, pattern);
}

std::optional<Tuple> TupleSpace::try_read(const std::string& pattern) {
  return state_->try_take(TupleOp::try_read, pattern);
}

void TupleSpace::set_producers(const std::optional<std::vector<int>>& ranks) {
  for (int shard = 0; shard < server_count(); ++shard) {
    detail::ByteWriter w;
    w.put<uint8_t>(static_cast<uint8_t>(TupleOp::producers));
    w.put<uint64_t>(0);
    w.put_string("");
    w.put<uint8_t>(ranks ? 1 : 0);
    if (ranks) {
      w.put<uint32_t>(static_cast<uint32_t>(ranks->size()));
      for (int r : *ranks) w.put<int32_t>(r);
    }
    state_->exchange(shard, TupleOp::producers, "", w);
  }
}

void TupleSpace::shutdown_servers() {
  {
    std::lock_guard lock(detail::mpi_mutex());
    EXADNN_CHECK(!state_->shut_down, kWhere, "shutdown_servers() called twice");
    state_->shut_down = true;
  }
  for (int shard = 0; shard < server_count(); ++shard) {
    detail::ByteWriter w;
    w.put<uint8_t>(static_cast<uint8_t>(TupleOp::shutdown));
    w.put<uint64_t>(0);
    w.put_string("");
    state_->exchange(shard, TupleOp::shutdown, "", w, /*allow_after_shutdown=*/true);
  }
}

bool TupleSpace::is_shut_down() const {
  std::lock_guard lock(detail::mpi_mutex());
  return state_->shut_down;
}

int TupleSpace::server_count() const {
  return static_cast<int>(state_->layout.server_ranks.size());
}

int TupleSpace::shard_of(std::string_view key) const {
  return detail::shard_of_key(key, server_count());
}

}  // namespace exadnn::flow
