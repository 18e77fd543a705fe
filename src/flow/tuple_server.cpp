// The tuple-space server of one shard: an ordered multimap of tuples and a FIFO queue of blocked
// get/read requests, driven by one loop over incoming requests. Replies go out non-blocking, so a
// slow client never stalls the server. Once the declared producers leave a waiting client alone,
// its waits end with no_producer. Protocol: tuple_protocol.h; client: tuple_space.cpp.
#include <mpi.h>

#include <algorithm>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>

#include "commlib_mpi.h"
#include "exadnn/dist/mpi_interop.h"
#include "exadnn/flow/tuple_space.h"
#include "tuple_protocol.h"

namespace exadnn::flow {

namespace {

using detail::TupleOp;
using detail::TupleStatus;

constexpr const char* kWhere = "flow::serve_tuple_space";

// A get/read that found nothing and waits for a matching put.
struct Waiter {
  int client = 0;
  uint64_t id = 0;
  TupleOp op = TupleOp::get;
  std::string pattern;
};

// A reply on its way; its buffer must live until the send completes.
struct Outgoing {
  MPI_Request request = MPI_REQUEST_NULL;
  std::vector<std::byte> buffer;
};

class Shard {
 public:
  explicit Shard(MPI_Comm mpi) : mpi_(mpi) {}

  // Serves requests until a shutdown request; returns after every reply has gone out.
  void run() {
    for (bool running = true; running;) {
      MPI_Message message;
      MPI_Status status;
      detail::mpi_check(MPI_Mprobe(MPI_ANY_SOURCE, detail::kRequestTag, mpi_, &message, &status),
                        "MPI_Mprobe for a request", kWhere);
      int count = 0;
      detail::mpi_check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count of a request",
                        kWhere);
      std::vector<std::byte> buffer(static_cast<size_t>(count));
      detail::mpi_check(MPI_Mrecv(buffer.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE),
                        "MPI_Mrecv of a request", kWhere);
      running = handle(status.MPI_SOURCE, buffer);
      reap();
    }
    for (Outgoing& o : outgoing_)
      detail::mpi_check(MPI_Wait(&o.request, MPI_STATUS_IGNORE), "MPI_Wait of a reply", kWhere);
    outgoing_.clear();
  }

 private:
  using Store = std::map<std::string, std::deque<std::vector<std::byte>>, std::less<>>;

  // Handles one request from rank `client`; false once the request was a shutdown.
  bool handle(int client, const std::vector<std::byte>& buffer) {
    detail::ByteReader r(buffer.data(), buffer.size(), kWhere);
    const auto op = static_cast<TupleOp>(r.get<uint8_t>());
    const auto id = r.get<uint64_t>();
    std::string key = r.get_string();
    switch (op) {
      case TupleOp::put: {
        // The rest of the request is the encoded value, stored as it came.
        std::vector<std::byte> blob(buffer.begin() + static_cast<std::ptrdiff_t>(r.position()),
                                    buffer.end());
        store_or_hand_over(std::move(key), std::move(blob));
        reply_ack(client, id);
        return true;
      }
      case TupleOp::get:
      case TupleOp::read:
      case TupleOp::try_get:
      case TupleOp::try_read: {
        const bool remove = op == TupleOp::get || op == TupleOp::try_get;
        auto found = find(key);
        if (found) {
          reply_tuple(client, id, (*found)->first, (*found)->second.front());
          if (remove) pop(*found);
        } else if (op == TupleOp::try_get || op == TupleOp::try_read) {
          reply_ack(client, id, alone(client));
        } else if (alone(client)) {
          reply_no_producer({client, id, op, std::move(key)});
        } else {
          waiters_.push_back({client, id, op, std::move(key)});
        }
        return true;
      }
      case TupleOp::producers: {
        producers_.reset();
        if (r.get<uint8_t>() != 0) {
          producers_.emplace();
          for (auto n = r.get<uint32_t>(); n > 0; --n) producers_->insert(r.get<int32_t>());
        }
        // Waits no put can answer any more end now.
        for (auto it = waiters_.begin(); it != waiters_.end();) {
          if (!alone(it->client)) {
            ++it;
            continue;
          }
          reply_no_producer(*it);
          it = waiters_.erase(it);
        }
        reply_ack(client, id);
        return true;
      }
      case TupleOp::shutdown:
        for (const Waiter& w : waiters_)
          reply_error(w.client, w.id,
                      exadnn::detail::cat("the tuple space was shut down while this ",
                                          w.op == TupleOp::get ? "get" : "read", " of '", w.pattern,
                                          "' was waiting"));
        waiters_.clear();
        reply_ack(client, id);
        return false;
    }
    reply_error(client, id, exadnn::detail::cat("unknown request code ", int(op)));
    return true;
  }

  // True when producers are declared and none but `client` is among them: no put can come.
  bool alone(int client) const {
    return producers_ && std::all_of(producers_->begin(), producers_->end(),
                                     [client](int r) { return r == client; });
  }

  void reply_no_producer(const Waiter& w) {
    detail::ByteWriter out;
    out.put<uint64_t>(w.id);
    out.put<uint8_t>(static_cast<uint8_t>(TupleStatus::no_producer));
    out.put_string(exadnn::detail::cat(
        "nothing matches and no producer is left: no rank other than the waiting one (rank ",
        w.client,
        ") may still put (in a workflow: every other module instance has ended, ok or failed)"));
    send(w.client, std::move(out.buffer()));
  }

  // A new tuple: blocked reads matching it get a copy, in arrival order, until a blocked get
  // takes it; if none does, it is stored.
  void store_or_hand_over(std::string key, std::vector<std::byte> blob) {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (!key_matches(it->pattern, key)) {
        ++it;
        continue;
      }
      reply_tuple(it->client, it->id, key, blob);
      const bool taken = it->op == TupleOp::get;
      it = waiters_.erase(it);
      if (taken) return;
    }
    store_[std::move(key)].push_back(std::move(blob));
  }

  // The first stored key matching `pattern` (exact lookup for a key without wildcards).
  std::optional<Store::iterator> find(const std::string& pattern) {
    if (!is_pattern(pattern)) {
      auto it = store_.find(pattern);
      return it == store_.end() ? std::nullopt : std::optional(it);
    }
    const std::string_view literal(pattern.data(), pattern.find_first_of("*?"));
    for (auto it = store_.lower_bound(literal);
         it != store_.end() && it->first.compare(0, literal.size(), literal) == 0; ++it)
      if (key_matches(pattern, it->first)) return it;
    return std::nullopt;
  }

  // Removes the oldest tuple of a key (and the key once it holds none).
  void pop(Store::iterator it) {
    it->second.pop_front();
    if (it->second.empty()) store_.erase(it);
  }

  void reply_ack(int client, uint64_t id, bool no_producer = false) {
    detail::ByteWriter w;
    w.put<uint64_t>(id);
    w.put<uint8_t>(static_cast<uint8_t>(TupleStatus::ok));
    w.put<uint8_t>(0);
    w.put<uint8_t>(no_producer ? 1 : 0);
    send(client, std::move(w.buffer()));
  }

  void reply_tuple(int client, uint64_t id, const std::string& key,
                   const std::vector<std::byte>& blob) {
    detail::ByteWriter w;
    w.put<uint64_t>(id);
    w.put<uint8_t>(static_cast<uint8_t>(TupleStatus::ok));
    w.put<uint8_t>(1);
    w.put_string(key);
    w.append(blob.data(), blob.size());
    send(client, std::move(w.buffer()));
  }

  void reply_error(int client, uint64_t id, const std::string& message) {
    detail::ByteWriter w;
    w.put<uint64_t>(id);
    w.put<uint8_t>(static_cast<uint8_t>(TupleStatus::error));
    w.put_string(message);
    send(client, std::move(w.buffer()));
  }

  void send(int client, std::vector<std::byte> buffer) {
    Outgoing& o = outgoing_.emplace_back();
    o.buffer = std::move(buffer);
    const int rc = MPI_Isend(o.buffer.data(), static_cast<int>(o.buffer.size()), MPI_BYTE, client,
                             detail::kReplyTag, mpi_, &o.request);
    if (rc != MPI_SUCCESS)
      detail::throw_mpi_error(rc, exadnn::detail::cat("MPI_Isend of a reply to rank ", client),
                              kWhere);
  }

  // Forgets replies that have gone out.
  void reap() {
    for (auto it = outgoing_.begin(); it != outgoing_.end();) {
      int done = 0;
      detail::mpi_check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test of a reply",
                        kWhere);
      it = done ? outgoing_.erase(it) : std::next(it);
    }
  }

  MPI_Comm mpi_;
  Store store_;
  std::list<Waiter> waiters_;
  std::optional<std::set<int>> producers_;  // ranks that may still put; nullopt: any rank
  std::list<Outgoing> outgoing_;
};

}  // namespace

void serve_tuple_space(dist::Communicator comm, TupleSpaceLayout layout) {
  detail::check_layout(comm, layout, kWhere);
  const int me = comm.rank();
  EXADNN_CHECK(std::find(layout.server_ranks.begin(), layout.server_ranks.end(), me) !=
                   layout.server_ranks.end(),
               kWhere, "rank ", me,
               " is not one of the tuple space's server ranks; clients use "
               "flow::TupleSpace");
  Shard(dist::native_handle(comm)).run();
}

}  // namespace exadnn::flow
