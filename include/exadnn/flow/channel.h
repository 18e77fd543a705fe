// Channel: a named, direct point-to-point link between two modules of a workflow (COMMLIB).
//
//   flow::Channel ch(comm, {"snapshots", 3, {0, 1}, {2, 3}});   // ranks 0,1 send; 2,3 receive
//   dist::Work w = ch.send(snapshot);   // sender side: starts at once, payload straight from
//   memory
//   ...
//   w.wait();                           // the snapshot may be modified again
//   Tensor s = ch.recv();               // receiver side: blocks; dtype and shape travel along
//
// Pairing. Each side is a list of ranks in module-local order, so a rank has a side index
// (0 .. m-1 among the m senders, 0 .. n-1 among the n receivers). Every call takes a peer index
// on the other side; by default it is `own index mod the other side's size`: sender i talks to
// receiver i mod n, receiver j listens to sender j mod m. With m == n that is one-to-one. With
// m > n, receiver j is the default target of every sender in default_senders() (i ≡ j mod n), and
// loops over them (or calls recv_any()); with m < n, a sender reaches the other receivers with
// explicit peer indices. Messages between one (sender, receiver) pair arrive in the order sent.
//
// A rank may sit on both sides (a module that talks to itself); a sender-side call on a rank that
// is not a sender (or a receiver-side call on one that is not a receiver) throws exadnn::Error
// naming the channel. Channel calls are not collective, and a Channel object is meant to be used
// by one thread at a time (and not while another thread of the process makes MPI calls: exadnn
// runs MPI at MPI_THREAD_SERIALIZED). A blocking recv waits until a message or the sender's
// close arrives.
//
// End of stream. A sender's close() tells every receiver that it sends nothing more, and how it
// ended (finished, or failed with an error). A receiver takes the messages sent before the close
// as usual; a recv from a sender whose close has arrived throws ChannelClosed naming that sender,
// its rank and its reason, so a receiver never waits for a sender that is gone. drain() discards
// what is left until every sender has closed. The Executive closes the sending ends of every
// channel of a module instance when it ends, and drains the receiving ends, so each task starts
// on a clean channel.
//
// Wire format: a small header message (kind, dtype, shape; payloads up to kInlineBytes ride in
// it) then, for larger payloads, the payload sent from the tensor's own memory (no staging copy;
// payloads over 1 GiB go as several messages). The channel's `tag` t uses the MPI tags 2t
// (headers) and 2t + 1 (payloads) of the COMMLIB communicator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/core/tensor.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/dist/work.h"

namespace exadnn::flow {

namespace detail {
struct ChannelIncoming;  // a received header (defined in src/flow/channel.cpp)
}

/// Who sits at each end of a channel, as ranks of the COMMLIB communicator.
struct ChannelEnds {
  std::string name;            ///< the channel's name (as in the control file), for messages
  int tag = 0;                 ///< distinct per channel on one communicator (>= 0)
  std::vector<int> senders;    ///< the sending module's ranks, in module-local rank order
  std::vector<int> receivers;  ///< the receiving module's ranks, in module-local rank order
};

/// A message taken by Channel::recv_any(): the value and which sender (side index) sent it.
struct ChannelMessage {
  Tensor value;    ///< the received tensor (raw arrays arrive as 1-D tensors)
  int sender = 0;  ///< side index of the sender (0 .. sender_count() - 1)
};

/// Thrown by a receiving call when the sender it waits for has closed its end (Channel::close):
/// what() names the channel, the sender (side index and rank) and the sender's reason.
class ChannelClosed : public Error {
 public:
  ChannelClosed(const std::string& where, const std::string& message, int sender, bool failed,
                std::string reason)
      : Error(where, message), sender_(sender), failed_(failed), reason_(std::move(reason)) {}
  /// Side index of the sender that closed.
  int sender() const { return sender_; }
  /// True when the sender closed because it failed.
  bool failed() const { return failed_; }
  /// What the sender gave as its reason ("module 'sim' instance 0 iteration 0 failed on ...").
  const std::string& reason() const { return reason_; }

 private:
  int sender_;
  bool failed_;
  std::string reason_;
};

/// One rank's view of a named channel between a sending and a receiving module.
class Channel {
 public:
  /// Peer argument meaning "the default peer" (own side index mod the other side's size).
  static constexpr int kDefaultPeer = -1;
  /// Largest payload that rides inside the header message (smaller messages are one MPI message).
  static constexpr size_t kInlineBytes = 8192;

  /// Checks the layout (non-empty sides, ranks of `comm`, no rank twice on a side, tag in
  /// range); not collective: every rank of either side constructs its own.
  Channel(dist::Communicator comm, ChannelEnds ends);

  /// The channel's name.
  const std::string& name() const { return ends_.name; }
  /// The layout this channel was built with.
  const ChannelEnds& ends() const { return ends_; }
  /// True when this rank is one of the senders.
  bool is_sender() const { return sender_index_ >= 0; }
  /// True when this rank is one of the receivers.
  bool is_receiver() const { return receiver_index_ >= 0; }
  /// This rank's index among the senders, or -1.
  int sender_index() const { return sender_index_; }
  /// This rank's index among the receivers, or -1.
  int receiver_index() const { return receiver_index_; }
  /// Number of sending ranks (m).
  int sender_count() const { return static_cast<int>(ends_.senders.size()); }
  /// Number of receiving ranks (n).
  int receiver_count() const { return static_cast<int>(ends_.receivers.size()); }
  /// Sender side: the receiver index a send goes to by default (sender_index() mod n).
  int default_receiver() const;
  /// Receiver side: the sender index a recv listens to by default (receiver_index() mod m).
  int default_sender() const;
  /// Receiver side: the senders whose default receiver is this rank (i with i mod n == own index).
  std::vector<int> default_senders() const;

  // --- sender side ------------------------------------------------------------------------
  /// Starts sending `t` (any dtype and shape; non-contiguous or device tensors are first copied
  /// to a packed host tensor) to receiver `peer`. Returns at once; `t` must not be modified until
  /// the returned Work completes (the payload is read straight from its memory). Keep the Work
  /// until then: dropping it early frees buffers still in flight. Its wait() follows the
  /// communicator's timeout, like every dist::Work.
  [[nodiscard]] dist::Work send(const Tensor& t, int peer = kDefaultPeer);
  /// Like send(), but takes the caller's handle: `t` is left undefined and the channel keeps the
  /// tensor only until the send completes, so no reference stays with the caller.
  [[nodiscard]] dist::Work move(Tensor&& t, int peer = kDefaultPeer);
  /// Starts sending a raw array (arithmetic elements or std::byte) as a 1-D message. The memory
  /// must stay valid and unmodified until the returned Work completes.
  template <class T>
  [[nodiscard]] dist::Work send(std::span<const T> data, int peer = kDefaultPeer) {
    static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::byte>,
                  "Channel::send takes spans of arithmetic types or std::byte");
    return send_raw(data.data(), data.size(), sizeof(T), raw_dtype<T>(), peer);
  }

  /// The same for a span of mutable elements.
  template <class T>
  requires(!std::is_const_v<T>) [[nodiscard]] dist::Work
      send(std::span<T> data, int peer = kDefaultPeer) {
    return send(std::span<const T>(data), peer);
  }

  /// Closes this rank's sending end: every receiver gets, after the messages sent before it, an
  /// end-of-stream mark carrying `reason` and whether the sender `failed`; its receiving calls
  /// from this sender then throw ChannelClosed. Sends after close() and a second close() are
  /// Errors. Returns at once; keep the Work until it completes, as for send().
  [[nodiscard]] dist::Work close(const std::string& reason, bool failed = false);
  /// True once this rank has closed its sending end.
  bool is_closed() const { return closed_; }

  // --- receiver side ----------------------------------------------------------------------
  /// Blocks until the next message from sender `peer` arrives and returns it as a new tensor
  /// (raw arrays arrive as 1-D tensors of their dtype, or u8 for element types without one).
  /// Throws ChannelClosed once `peer` has closed and every message it sent before was taken.
  Tensor recv(int peer = kDefaultPeer);
  /// Blocks until a message from any sender arrives; returns it with the sender's index. Throws
  /// ChannelClosed when a sender's close says it failed, or when every sender has closed.
  ChannelMessage recv_any();
  /// Receives the next message from `peer` into `out` (contiguous, host), which must have the
  /// message's dtype and element count (its shape may differ); the payload lands in place.
  void recv_into(Tensor& out, int peer = kDefaultPeer);
  /// Receives a raw array from `peer` into `out`; returns the number of elements received.
  /// The message must hold elements of sizeof(T) bytes and fit in `out`.
  template <class T>
  size_t recv_into(std::span<T> out, int peer = kDefaultPeer) {
    static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::byte>,
                  "Channel::recv_into takes spans of arithmetic types or std::byte");
    return recv_raw(out.data(), out.size(), sizeof(T), peer);
  }
  /// Receives a raw array (or tensor) from `peer` as a vector of T.
  template <class T>
  std::vector<T> recv_vector(int peer = kDefaultPeer) {
    Tensor t = recv(peer);
    check_element_size(t, sizeof(T));
    std::vector<T> out(t.nbytes() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), t.data_ptr(), t.nbytes());
    return out;
  }
  /// True once sender `peer`'s close has been taken (by a receiving call or a drain).
  bool is_closed_by(int peer) const;
  /// Takes and discards the messages that have arrived, up to each sender's close, without
  /// waiting; true once every sender's close has arrived. Adds the messages to `*discarded`.
  bool drain_arrived(int64_t* discarded = nullptr);
  /// drain_arrived() until every sender's close has arrived (the senders must close: it waits
  /// for them); returns how many messages it discarded.
  int64_t drain();

 private:
  struct Closed {  // a sender's end-of-stream mark, as received
    bool failed = false;
    std::string reason;
  };
  // The dtype a raw array of T travels as (u8 with its element size for types without one).
  template <class T>
  static int raw_dtype() {
    if constexpr (std::is_same_v<T, float>)
      return static_cast<int>(DType::f32);
    else if constexpr (std::is_same_v<T, double>)
      return static_cast<int>(DType::f64);
    else if constexpr (std::is_same_v<T, int32_t>)
      return static_cast<int>(DType::i32);
    else if constexpr (std::is_same_v<T, int64_t>)
      return static_cast<int>(DType::i64);
    else if constexpr (std::is_same_v<T, uint8_t>)
      return static_cast<int>(DType::u8);
    else if constexpr (std::is_same_v<T, bool>)
      return static_cast<int>(DType::boolean);
    else
      return -1;
  }
  dist::Work send_raw(const void* data, size_t count, size_t elem_size, int dtype, int peer);
  size_t recv_raw(void* out, size_t capacity, size_t elem_size, int peer);
  void check_element_size(const Tensor& t, size_t elem_size) const;
  dist::Work send_tensor(Tensor t, int peer, const char* op);
  int sender_peer(int peer, const char* op) const;
  int receiver_peer(int peer, const char* op) const;
  // The next data message from sender index `sender` (-1: any sender), taking close marks on the
  // way; throws ChannelClosed as documented at recv() and recv_any().
  detail::ChannelIncoming next_message(int sender, const char* op);
  [[noreturn]] void throw_closed(int sender, const char* op) const;

  dist::Communicator comm_;
  ChannelEnds ends_;
  std::string where_;  // "flow::Channel '<name>'", the origin of every error
  int sender_index_ = -1;
  int receiver_index_ = -1;
  bool closed_ = false;                           // this rank's sending end
  std::vector<std::optional<Closed>> closed_by_;  // receiver side: each sender's close, once taken
};

}  // namespace exadnn::flow
