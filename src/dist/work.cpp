#include "exadnn/dist/work.h"

#include <thread>

#include "comm_state.h"
#include "exadnn/dist/communicator.h"
#include "mpi_check.h"

namespace exadnn::dist {

bool Work::test() {
  if (!state_ || state_->done) return true;
  detail::WorkState& w = *state_;
  w.comm->serve_queries();
  int flag = 0;
  std::vector<MPI_Status> statuses(w.requests.size());
  const int rc =
      MPI_Testall(static_cast<int>(w.requests.size()), w.requests.data(), &flag, statuses.data());
  if (rc != MPI_SUCCESS) {
    int code = rc;
    for (const MPI_Status& s : statuses)
      if (s.MPI_ERROR != MPI_SUCCESS) code = s.MPI_ERROR;
    w.done = true;
    throw Error("dist", exadnn::detail::cat(w.what, " failed: ", detail::mpi_error_string(code)));
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
  // Spin briefly (latency), then back off so a rank sharing a core with its peer lets it run.
  for (int polls = 0; !test(); ++polls) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    if (waited > comm.timeout) {
      comm.waiting_on = previous;
      throw TimeoutError("dist", detail::diagnose_timeout(*state_, waited));
    }
    if (polls > 1000)
      std::this_thread::sleep_for(std::chrono::microseconds(polls > 20000 ? 200 : 20));
    else if (polls > 100)
      std::this_thread::yield();
  }
  comm.waiting_on = previous;
}

bool Work::completed() const {
  return !state_ || state_->done;
}

std::string Work::description() const {
  return state_ ? state_->what : "completed work";
}

}  // namespace exadnn::dist
