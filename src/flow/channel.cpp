// Channel: header message (kind, dtype, shape, byte count; small payloads inline), then the
// payload straight from tensor memory on the next tag; a close is one header of its own kind
// (failed flag and reason). See include/exadnn/flow/channel.h.
#include "exadnn/flow/channel.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <thread>

#include "commlib_mpi.h"
#include "exadnn/dist/mpi_interop.h"
#include "exadnn/ops/factories.h"
#include "wire.h"

namespace exadnn::flow {

namespace {

constexpr uint32_t kMagic = 0x43484e4c;          // "CHNL": a data header
constexpr uint32_t kCloseMagic = 0x434c4f53;     // "CLOS": a sender's end-of-stream mark
constexpr size_t kMaxReasonBytes = 2000;         // keeps a close mark one small, eager message
constexpr size_t kChunkBytes = size_t{1} << 30;  // largest payload piece of one MPI message

// What a header announces.
struct Header {
  int dtype = -1;          // DType code, or -1 for a raw array of a type without one
  uint32_t elem_size = 1;  // bytes per element
  Shape shape;             // the tensor's shape; raw arrays: [count]
  uint64_t nbytes = 0;     // payload size
  bool inline_payload = false;
};

// Starts sending `nbytes` at `data` in pieces of at most kChunkBytes.
void isend_payload(const void* data, uint64_t nbytes, int dest, int tag, MPI_Comm comm,
                   std::vector<MPI_Request>& requests, const std::string& where) {
  const auto* p = static_cast<const std::byte*>(data);
  for (uint64_t at = 0; at < nbytes; at += kChunkBytes) {
    const int n = static_cast<int>(std::min<uint64_t>(kChunkBytes, nbytes - at));
    requests.push_back(MPI_REQUEST_NULL);
    detail::mpi_check(MPI_Isend(p + at, n, MPI_BYTE, dest, tag, comm, &requests.back()),
                      "MPI_Isend of the payload", where);
  }
}

}  // namespace

namespace detail {
// A received header and, when the payload rode along, where it starts; or a close mark.
struct ChannelIncoming {
  Header header;
  int source = -1;  // rank of the sender
  int sender = -1;  // its side index
  std::vector<std::byte> buffer;
  size_t payload_at = 0;
  bool close = false;  // an end-of-stream mark, with:
  bool failed = false;
  std::string reason;
};
}  // namespace detail

using Incoming = detail::ChannelIncoming;

Channel::Channel(dist::Communicator comm, ChannelEnds ends)
    : comm_(std::move(comm)), ends_(std::move(ends)) {
  where_ = "flow::Channel '" + ends_.name + "'";
  const std::string& where = where_;
  EXADNN_CHECK(!ends_.senders.empty(), where, "has no sending ranks");
  EXADNN_CHECK(!ends_.receivers.empty(), where, "has no receiving ranks");
  const int top = detail::max_tag(dist::native_handle(comm_));
  EXADNN_CHECK(ends_.tag >= 0 && ends_.tag <= (top - 1) / 2, where, "tag ", ends_.tag,
               " is outside 0 .. ", (top - 1) / 2, " (each channel uses MPI tags 2t and 2t+1)");
  auto check_side = [&](const std::vector<int>& ranks, const char* side) {
    std::set<int> seen;
    for (int r : ranks) {
      EXADNN_CHECK(r >= 0 && r < comm_.size(), where, side, " rank ", r,
                   " is not a rank of the communicator of ", comm_.size());
      EXADNN_CHECK(seen.insert(r).second, where, side, " rank ", r, " appears twice");
    }
  };
  check_side(ends_.senders, "sender");
  check_side(ends_.receivers, "receiver");
  const int me = comm_.rank();
  auto index_of = [me](const std::vector<int>& ranks) {
    auto it = std::find(ranks.begin(), ranks.end(), me);
    return it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
  };
  sender_index_ = index_of(ends_.senders);
  receiver_index_ = index_of(ends_.receivers);
  if (receiver_index_ >= 0) closed_by_.resize(ends_.senders.size());
}

int Channel::default_receiver() const {
  EXADNN_CHECK(is_sender(), "flow::Channel '" + ends_.name + "'", "rank ", comm_.rank(),
               " is not a sender, so it has no default receiver");
  return sender_index_ % receiver_count();
}

int Channel::default_sender() const {
  EXADNN_CHECK(is_receiver(), "flow::Channel '" + ends_.name + "'", "rank ", comm_.rank(),
               " is not a receiver, so it has no default sender");
  return receiver_index_ % sender_count();
}

std::vector<int> Channel::default_senders() const {
  EXADNN_CHECK(is_receiver(), "flow::Channel '" + ends_.name + "'", "rank ", comm_.rank(),
               " is not a receiver, so it has no default senders");
  std::vector<int> out;
  for (int i = receiver_index_; i < sender_count(); i += receiver_count()) out.push_back(i);
  return out;
}

int Channel::sender_peer(int peer, const char* op) const {
  const std::string& where = where_;
  EXADNN_CHECK(is_sender(), where, op, " on rank ", comm_.rank(),
               ", which is not one of the channel's senders (ranks of the sending module)");
  EXADNN_CHECK(!closed_, where, op, " on rank ", comm_.rank(), " after close()");
  if (peer == kDefaultPeer) return default_receiver();
  EXADNN_CHECK(peer >= 0 && peer < receiver_count(), where, op, ": receiver index ", peer,
               " is outside 0 .. ", receiver_count() - 1);
  return peer;
}

int Channel::receiver_peer(int peer, const char* op) const {
  const std::string& where = where_;
  EXADNN_CHECK(is_receiver(), where, op, " on rank ", comm_.rank(),
               ", which is not one of the channel's receivers (ranks of the receiving module)");
  if (peer == kDefaultPeer) return default_sender();
  EXADNN_CHECK(peer >= 0 && peer < sender_count(), where, op, ": sender index ", peer,
               " is outside 0 .. ", sender_count() - 1);
  return peer;
}

namespace {

// What the sends of one message read until they complete: its header, and the tensor (if any).
struct SendBuffers {
  std::vector<std::byte> header;
  std::vector<Tensor> tensors;
};

// Sends started before one of the same message failed: nobody waits for them (the error ends
// the task), so they are left to complete on their own, and the buffers they read are kept to
// the end of the process (leaked on purpose) rather than freed under them.
void abandon(std::vector<MPI_Request>& started, std::shared_ptr<SendBuffers> buffers) {
  for (MPI_Request& r : started)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  new std::shared_ptr<SendBuffers>(std::move(buffers));
}

// Starts the header send to `dest` on MPI tag 2·tag, then, unless the payload rode inline
// (payload_bytes 0), the payload's on 2·tag + 1: one Work over all of them, keeping `buffers`
// alive until they complete.
dist::Work start_sends(const dist::Communicator& comm, std::shared_ptr<SendBuffers> buffers,
                       const void* payload, uint64_t payload_bytes, int dest, int tag,
                       std::string what) {
  const MPI_Comm mpi = dist::native_handle(comm);
  std::vector<MPI_Request> requests;
  try {
    requests.push_back(MPI_REQUEST_NULL);
    const int rc = MPI_Isend(buffers->header.data(), static_cast<int>(buffers->header.size()),
                             MPI_BYTE, dest, 2 * tag, mpi, &requests.back());
    if (rc != MPI_SUCCESS)
      detail::throw_mpi_error(rc, "MPI_Isend of the header of " + what, "flow::Channel");
    if (payload_bytes)
      isend_payload(payload, payload_bytes, dest, 2 * tag + 1, mpi, requests, "flow::Channel");
  } catch (...) {
    abandon(requests, std::move(buffers));
    throw;
  }
  return dist::work_from_requests(comm, std::move(requests), std::move(what), std::move(buffers));
}

// Starts the header and payload sends of one message and wraps them in a Work that keeps
// `keep` (the tensor read from) alive until they complete.
dist::Work start_message(const dist::Communicator& comm, const Header& h, const void* payload,
                         int dest, int tag, std::vector<Tensor> keep, std::string what) {
  const bool inline_payload = h.nbytes <= Channel::kInlineBytes;
  detail::ByteWriter w;
  w.reserve(64 + 8 * h.shape.size() + (inline_payload ? h.nbytes : 0));
  w.put<uint32_t>(kMagic);
  w.put<int32_t>(h.dtype);
  w.put<uint32_t>(h.elem_size);
  detail::write_meta(w, h.dtype >= 0 ? static_cast<DType>(h.dtype) : DType::u8, h.shape);
  w.put<uint64_t>(h.nbytes);
  w.put<uint8_t>(inline_payload ? 1 : 0);
  if (inline_payload) w.append(payload, h.nbytes);

  auto buffers = std::make_shared<SendBuffers>();
  buffers->header = std::move(w.buffer());
  buffers->tensors = std::move(keep);
  return start_sends(comm, std::move(buffers), payload, inline_payload ? 0 : h.nbytes, dest, tag,
                     std::move(what));
}

// Takes the header `message` (probed from `status`) and decodes it: data or close mark.
Incoming take_header(MPI_Message& message, const MPI_Status& status, int tag,
                     const std::string& where) {
  int count = 0;
  detail::mpi_check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count of a header", where);
  Incoming in;
  in.source = status.MPI_SOURCE;
  in.buffer.resize(static_cast<size_t>(count));
  detail::mpi_check(MPI_Mrecv(in.buffer.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE),
                    "MPI_Mrecv of a header", where);
  detail::ByteReader r(in.buffer.data(), in.buffer.size(), where);
  const auto magic = r.get<uint32_t>();
  if (magic == kCloseMagic) {
    in.close = true;
    in.failed = r.get<uint8_t>() != 0;
    in.reason = r.get_string();
    return in;
  }
  EXADNN_CHECK(magic == kMagic, where, "message from rank ", in.source,
               " is not a channel header (another user of tag ", 2 * tag, "?)");
  in.header.dtype = r.get<int32_t>();
  in.header.elem_size = r.get<uint32_t>();
  in.header.shape = detail::read_meta(r).shape;
  in.header.nbytes = r.get<uint64_t>();
  in.header.inline_payload = r.get<uint8_t>() != 0;
  if (in.header.inline_payload) {
    in.payload_at = r.position();
    r.take(in.header.nbytes);
  }
  return in;
}

// Blocks for the next header from `source` (or MPI_ANY_SOURCE) on `tag`.
Incoming receive_header(const dist::Communicator& comm, int source, int tag,
                        const std::string& where) {
  MPI_Message message;
  MPI_Status status;
  detail::mpi_check(MPI_Mprobe(source, 2 * tag, dist::native_handle(comm), &message, &status),
                    "MPI_Mprobe", where);
  return take_header(message, status, tag, where);
}

// Receives (or copies, when inline) the payload announced by `in` into `dst`.
void receive_payload(const dist::Communicator& comm, const Incoming& in, void* dst, int tag,
                     const std::string& where) {
  const uint64_t nbytes = in.header.nbytes;
  if (in.header.inline_payload) {
    if (nbytes) std::memcpy(dst, in.buffer.data() + in.payload_at, nbytes);
    return;
  }
  const MPI_Comm mpi = dist::native_handle(comm);
  auto* p = static_cast<std::byte*>(dst);
  for (uint64_t at = 0; at < nbytes; at += kChunkBytes) {
    const int n = static_cast<int>(std::min<uint64_t>(kChunkBytes, nbytes - at));
    detail::mpi_check(MPI_Recv(p + at, n, MPI_BYTE, in.source, 2 * tag + 1, mpi, MPI_STATUS_IGNORE),
                      "MPI_Recv of the payload", where);
  }
}

// A new tensor for the message `in` (raw arrays of types without a dtype become u8 bytes).
Tensor tensor_for(const Header& h) {
  if (h.dtype < 0) return empty({static_cast<int64_t>(h.nbytes)}, DType::u8);
  return empty(h.shape, static_cast<DType>(h.dtype));
}

// "channel 'x' send of 4096 bytes to receiver 1 (rank 3)", for the Work (built without streams:
// it is made for every message).
std::string describe_send(const std::string& name, const char* op, uint64_t nbytes, int receiver,
                          int dest) {
  return "channel '" + name + "' " + op + " of " + std::to_string(nbytes) + " bytes to receiver " +
         std::to_string(receiver) + " (rank " + std::to_string(dest) + ")";
}

std::string describe_tensor(const Tensor& t) {
  return exadnn::detail::cat(t.numel(), " ", dtype_name(t.dtype()), " ", t.shape().str());
}

}  // namespace

dist::Work Channel::send(const Tensor& t, int peer) {
  return send_tensor(t, peer, "send");
}

dist::Work Channel::move(Tensor&& t, int peer) {
  Tensor taken = std::move(t);
  t = Tensor();
  return send_tensor(std::move(taken), peer, "move");
}

dist::Work Channel::send_tensor(Tensor t, int peer, const char* op) {
  const std::string& where = where_;
  const int receiver = sender_peer(peer, op);
  EXADNN_CHECK(t.defined(), where, op, " of an undefined tensor");
  if (!t.device().is_cpu()) t = t.to(Device::cpu());
  if (!t.is_contiguous()) t = t.contiguous();
  Header h;
  h.dtype = static_cast<int>(t.dtype());
  h.elem_size = static_cast<uint32_t>(t.element_size());
  h.shape = t.shape();
  h.nbytes = t.nbytes();
  const int dest = ends_.receivers[static_cast<size_t>(receiver)];
  std::string what = describe_send(ends_.name, op, h.nbytes, receiver, dest);
  const void* payload = t.data_ptr();
  return start_message(comm_, h, payload, dest, ends_.tag, {std::move(t)}, std::move(what));
}

dist::Work Channel::send_raw(const void* data, size_t count, size_t elem_size, int dtype,
                             int peer) {
  const int receiver = sender_peer(peer, "send");
  Header h;
  h.dtype = dtype;
  h.elem_size = static_cast<uint32_t>(elem_size);
  h.shape = Shape{static_cast<int64_t>(count)};
  h.nbytes = count * elem_size;
  const int dest = ends_.receivers[static_cast<size_t>(receiver)];
  std::string what = describe_send(ends_.name, "send", h.nbytes, receiver, dest);
  return start_message(comm_, h, data, dest, ends_.tag, {}, std::move(what));
}

dist::Work Channel::close(const std::string& reason, bool failed) {
  sender_peer(kDefaultPeer, "close");  // a sender that has not closed yet
  closed_ = true;
  detail::ByteWriter w;
  w.put<uint32_t>(kCloseMagic);
  w.put<uint8_t>(failed ? 1 : 0);
  w.put_string(reason.size() <= kMaxReasonBytes ? reason
                                                : reason.substr(0, kMaxReasonBytes) + " [...]");
  // One buffer read by one send per receiver: every receiver may wait on any sender.
  auto buffers = std::make_shared<SendBuffers>();
  buffers->header = std::move(w.buffer());
  const std::string what = "channel '" + ends_.name + "' close";
  const MPI_Comm mpi = dist::native_handle(comm_);
  std::vector<MPI_Request> requests;
  for (int receiver : ends_.receivers) {
    requests.push_back(MPI_REQUEST_NULL);
    const int rc = MPI_Isend(buffers->header.data(), static_cast<int>(buffers->header.size()),
                             MPI_BYTE, receiver, 2 * ends_.tag, mpi, &requests.back());
    if (rc != MPI_SUCCESS) {
      abandon(requests, std::move(buffers));
      detail::throw_mpi_error(rc, "MPI_Isend of a close to rank " + std::to_string(receiver),
                              where_);
    }
  }
  return dist::work_from_requests(comm_, std::move(requests), what, std::move(buffers));
}

bool Channel::is_closed_by(int peer) const {
  return closed_by_.at(static_cast<size_t>(receiver_peer(peer, "is_closed_by"))).has_value();
}

void Channel::throw_closed(int sender, const char* op) const {
  const auto& c = closed_by_.at(static_cast<size_t>(sender));
  const int rank = ends_.senders[static_cast<size_t>(sender)];
  throw ChannelClosed(where_,
                      exadnn::detail::cat(op, " from sender ", sender, " (rank ", rank,
                                          "): the sender closed the channel",
                                          c->failed ? " because it failed: " : ": ", c->reason),
                      sender, c->failed, c->reason);
}

Incoming Channel::next_message(int sender, const char* op) {
  auto open = [&] {
    return std::count_if(closed_by_.begin(), closed_by_.end(), [](auto& c) { return !c; });
  };
  if (sender >= 0 && closed_by_[static_cast<size_t>(sender)]) throw_closed(sender, op);
  if (sender < 0 && open() == 0) {
    // recv_any with every sender closed: name a failed one if any.
    int last = 0;
    for (int s = 0; s < sender_count(); ++s)
      if (closed_by_[static_cast<size_t>(s)]->failed) last = s;
    throw_closed(last, op);
  }
  for (;;) {
    const int source = sender >= 0 ? ends_.senders[static_cast<size_t>(sender)] : MPI_ANY_SOURCE;
    Incoming in = receive_header(comm_, source, ends_.tag, where_);
    const auto it = std::find(ends_.senders.begin(), ends_.senders.end(), in.source);
    EXADNN_CHECK(it != ends_.senders.end(), where_, "received a message from rank ", in.source,
                 ", which is not one of the channel's senders");
    in.sender = static_cast<int>(it - ends_.senders.begin());
    if (!in.close) return in;
    closed_by_[static_cast<size_t>(in.sender)] = Closed{in.failed, std::move(in.reason)};
    // recv_any goes on waiting for the other senders after an orderly close.
    if (sender >= 0 || in.failed || open() == 0) throw_closed(in.sender, op);
  }
}

bool Channel::drain_arrived(int64_t* discarded) {
  receiver_peer(kDefaultPeer, "drain");
  const MPI_Comm mpi = dist::native_handle(comm_);
  // Probes each open sender by rank, never any-source: a later task on this channel may already
  // be sending from other ranks.
  bool open = false;
  for (int s = 0; s < sender_count(); ++s) {
    for (int flag = 1; flag && !closed_by_[static_cast<size_t>(s)];) {
      MPI_Message message;
      MPI_Status status;
      detail::mpi_check(MPI_Improbe(ends_.senders[static_cast<size_t>(s)], 2 * ends_.tag, mpi,
                                    &flag, &message, &status),
                        "MPI_Improbe", where_);
      if (!flag) break;
      Incoming in = take_header(message, status, ends_.tag, where_);
      if (in.close) {
        closed_by_[static_cast<size_t>(s)] = Closed{in.failed, std::move(in.reason)};
        break;
      }
      Tensor dropped = tensor_for(in.header);
      receive_payload(comm_, in, dropped.data_ptr(), ends_.tag, where_);
      if (discarded) ++*discarded;
    }
    open |= !closed_by_[static_cast<size_t>(s)];
  }
  return !open;
}

int64_t Channel::drain() {
  int64_t discarded = 0;
  // Sleeps, up to 1 ms, while nothing comes.
  for (auto pause = std::chrono::microseconds(1); !drain_arrived(&discarded);) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
  return discarded;
}

Tensor Channel::recv(int peer) {
  Incoming in = next_message(receiver_peer(peer, "recv"), "recv");
  Tensor out = tensor_for(in.header);
  receive_payload(comm_, in, out.data_ptr(), ends_.tag, where_);
  return out;
}

ChannelMessage Channel::recv_any() {
  receiver_peer(kDefaultPeer, "recv_any");
  Incoming in = next_message(-1, "recv_any");
  Tensor out = tensor_for(in.header);
  receive_payload(comm_, in, out.data_ptr(), ends_.tag, where_);
  return {std::move(out), in.sender};
}

void Channel::recv_into(Tensor& out, int peer) {
  const std::string& where = where_;
  const int sender = receiver_peer(peer, "recv_into");
  EXADNN_CHECK(out.defined(), where, "recv_into an undefined tensor");
  EXADNN_CHECK(out.is_contiguous() && out.device().is_cpu(), where,
               "recv_into needs a contiguous host tensor, got ", describe_tensor(out),
               out.device().is_cpu() ? " (not contiguous)" : " on " + out.device().str());
  Incoming in = next_message(sender, "recv_into");
  const Header& h = in.header;
  const bool fits =
      h.nbytes == out.nbytes() &&
      (h.dtype < 0 ? out.dtype() == DType::u8 : static_cast<DType>(h.dtype) == out.dtype());
  if (!fits) {
    // Take the payload anyway, so the channel stays in step, then report the mismatch.
    Tensor drained = tensor_for(h);
    receive_payload(comm_, in, drained.data_ptr(), ends_.tag, where);
    throw Error(where,
                exadnn::detail::cat("recv_into a tensor of ", describe_tensor(out), ", but sender ",
                                    sender, " sent ", describe_tensor(drained)));
  }
  receive_payload(comm_, in, out.data_ptr(), ends_.tag, where);
}

size_t Channel::recv_raw(void* out, size_t capacity, size_t elem_size, int peer) {
  const std::string& where = where_;
  const int sender = receiver_peer(peer, "recv_into");
  Incoming in = next_message(sender, "recv_into");
  const Header& h = in.header;
  const bool fits = h.elem_size == elem_size && h.nbytes <= capacity * elem_size;
  if (!fits) {
    Tensor drained = tensor_for(h);
    receive_payload(comm_, in, drained.data_ptr(), ends_.tag, where);
    throw Error(where, exadnn::detail::cat("recv_into a span of ", capacity, " elements of ",
                                           elem_size, " bytes, but sender ", sender, " sent ",
                                           h.nbytes / std::max<uint32_t>(h.elem_size, 1),
                                           " elements of ", h.elem_size, " bytes"));
  }
  receive_payload(comm_, in, out, ends_.tag, where);
  return h.nbytes / elem_size;
}

void Channel::check_element_size(const Tensor& t, size_t elem_size) const {
  EXADNN_CHECK(
      t.nbytes() % elem_size == 0 && (t.dtype() == DType::u8 || t.element_size() == elem_size),
      "flow::Channel '" + ends_.name + "'", "recv_vector of ", elem_size,
      "-byte elements, but the message holds ", describe_tensor(t));
}

}  // namespace exadnn::flow
