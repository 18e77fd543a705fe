#include "exadnn/dist/work.h"

#include <thread>

#include "comm_state.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/dist/mpi_interop.h"
#include "mpi_check.h"

namespace exadnn::dist {

bool Work::test() {
  if (!state_ || state_->done) return true;
  detail::WorkState& w = *state_;
  w.comm->serve_queries();
  if (w.poll) {  // a device collective: its provider says when it is done
    bool finished = false;
    try {
      finished = w.poll();
    } catch (...) {
      w.done = true;
      throw;
    }
    if (!finished) return false;
    w.done = true;
    if (w.on_complete) w.on_complete();
    w.keep_alive.clear();
    w.on_complete = nullptr;
    w.poll = nullptr;
    w.on_timeout = nullptr;
    return true;
  }
  int flag = 0;
  std::vector<MPI_Status> statuses(w.requests.size());
  const int rc =
      MPI_Testall(static_cast<int>(w.requests.size()), w.requests.data(), &flag, statuses.data());
  if (rc != MPI_SUCCESS) {
    int code = rc;
    for (const MPI_Status& s : statuses)
      if (s.MPI_ERROR != MPI_SUCCESS) code = s.MPI_ERROR;
    w.done = true;
    detail::throw_mpi_error(code, exadnn::detail::cat("MPI_Testall of ", w.what));
  }
  if (!flag) return false;
  w.done = true;
  if (w.check_status) w.check_status(statuses);
  if (w.on_complete) w.on_complete();
  w.keep_alive.clear();
  w.on_complete = nullptr;
  return true;
}

void Work::wait() {
  if (!state_ || state_->done) return;
  detail::CommState& comm = *state_->comm;
  const uint64_t previous = comm.waiting_on;
  comm.waiting_on = state_->collective;
  const auto start = std::chrono::steady_clock::now();
  // Non-blocking collectives advance only inside MPI calls, so poll without pause for the first
  // 20 ms (a collective's rounds follow each other at memory speed); then back off, so a rank
  // that waits long (for a straggler) leaves its core to others.
  constexpr auto kSpin = std::chrono::milliseconds(20);
  while (!test()) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    if (waited > comm.timeout) {
      comm.waiting_on = previous;
      std::string message = detail::diagnose_timeout(*state_, waited);
      // A device collective cannot be cancelled: its provider aborts the transport (a later
      // test() or wait() then throws instead of completing).
      if (state_->on_timeout) state_->on_timeout();
      throw TimeoutError("dist", message);
    }
    if (waited > kSpin) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  comm.waiting_on = previous;
}

bool Work::completed() const {
  return !state_ || state_->done;
}

std::string Work::description() const {
  return state_ ? state_->what : "completed work";
}

Work work_from_requests(const Communicator& comm, std::vector<MPI_Request> requests,
                        std::string what, std::shared_ptr<const void> keep_alive) {
  auto state = std::make_shared<detail::WorkState>();
  state->comm = comm.state();
  state->requests = std::move(requests);
  state->what = std::move(what);
  // The completion step holds the buffers; the Work drops it once it has run.
  if (keep_alive) state->on_complete = [keep = std::move(keep_alive)] {};
  return Work(std::move(state));
}

}  // namespace exadnn::dist
