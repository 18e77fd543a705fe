// SharedSegment: one block of POSIX shared memory that every rank of a single-node communicator
// maps (for the shared-memory gradient reduction, shared_memory_transport.h).
//
// Rank 0 creates it under a fresh name, reserves its pages (so a full /dev/shm is an error now,
// not a SIGBUS later), and broadcasts the name; the others map it; once every rank has it mapped,
// rank 0 unlinks the name, so nothing is left in /dev/shm even if the job dies. Unmapping is
// local: destroying a SharedSegment never blocks on other ranks (a rank unwinding from an error
// must not wait for peers that may be gone).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "comm_state.h"

namespace exadnn::dist::detail {

class SharedSegment {
 public:
  /// Collective over `comm`: a segment of `bytes` mapped by every rank, or nullopt on every rank
  /// (with the reason in `*why`) when any rank could not create or map it.
  static std::optional<SharedSegment> create(CommState& comm, size_t bytes, std::string* why);

  SharedSegment(SharedSegment&& other) noexcept;
  SharedSegment& operator=(SharedSegment&& other) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  ~SharedSegment();  // unmaps (local)

  /// The mapping: zero-filled at creation, page-aligned, the same bytes on every rank.
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  SharedSegment(std::byte* data, size_t size) : data_(data), size_(size) {}
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

/// True when every rank of `comm` runs on this rank's node (collective; the same answer on every
/// rank only when it is true: combine it over the ranks before acting on it).
bool single_node(const CommState& comm);

}  // namespace exadnn::dist::detail
