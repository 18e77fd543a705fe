// Work: the handle of a non-blocking communication, waited on later.
//
//   dist::Work w = comm.allreduce(grad);   // starts the allreduce and returns at once
//   ...                                    // compute while it runs
//   w.wait();                              // grad now holds the sum over ranks
#pragma once

#include <memory>
#include <string>

namespace exadnn::dist {

namespace detail {
struct WorkState;
}

/// A started communication. The tensors it reads or writes are kept alive until it completes;
/// reading a result before wait() (or a true test()) returns is undefined.
class Work {
 public:
  /// An already-completed handle.
  Work() = default;
  explicit Work(std::shared_ptr<detail::WorkState> state) : state_(std::move(state)) {}

  /// Drives progress; true once the operation has completed (its completion step, such as
  /// unpacking a received buffer, has then run).
  bool test();
  /// Blocks until the operation completes. Waiting longer than the communicator's timeout
  /// throws dist::TimeoutError naming the ranks that have not arrived.
  void wait();
  /// True once test() or wait() has seen the operation complete.
  bool completed() const;
  /// What this is, for messages: "allreduce #3 (1000 f32)".
  std::string description() const;

 private:
  std::shared_ptr<detail::WorkState> state_;
};

}  // namespace exadnn::dist
