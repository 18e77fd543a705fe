// Packing of the Executive's messages, and the polite wait both sides use.
#include "flow/executive_protocol.h"

#include <chrono>
#include <thread>

#include "exadnn/core/error.h"
#include "flow/commlib_mpi.h"

namespace exadnn::flow::detail {

std::vector<int64_t> pack_assignment(const Assignment& a) {
  std::vector<int64_t> w{kTask,      a.task,      a.module,
                         a.instance, a.iteration, static_cast<int64_t>(a.gang.size())};
  for (const auto& p : a.gang) {
    w.push_back(p.module);
    w.push_back(p.comm);
    w.push_back(static_cast<int64_t>(p.ranks.size()));
    w.insert(w.end(), p.ranks.begin(), p.ranks.end());
  }
  return w;
}

Assignment unpack_assignment(const std::vector<int64_t>& w) {
  EXADNN_CHECK(w.size() >= 6 && w[0] == kTask, "flow Executive", "malformed task assignment");
  Assignment a;
  a.task = w[1];
  a.module = static_cast<int>(w[2]);
  a.instance = static_cast<int>(w[3]);
  a.iteration = static_cast<int>(w[4]);
  size_t at = 6;
  for (int64_t g = 0; g < w[5]; ++g) {
    EXADNN_CHECK(at + 3 <= w.size(), "flow Executive", "malformed task assignment");
    Placement p;
    p.module = static_cast<int>(w[at]);
    p.comm = static_cast<int>(w[at + 1]);
    const auto n = static_cast<size_t>(w[at + 2]);
    at += 3;
    EXADNN_CHECK(at + n <= w.size(), "flow Executive", "malformed task assignment");
    p.ranks.assign(w.begin() + at, w.begin() + at + n);
    at += n;
    a.gang.push_back(std::move(p));
  }
  return a;
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool wait_politely(MPI_Request& request, MPI_Status* status, int64_t deadline_us, int max_sleep_us,
                   const std::function<void()>& idle) {
  // Spin for ~50 us (a reply that is already on its way costs no sleep), then back off.
  const int64_t spin_until = now_us() + 50;
  int sleep_us = 5;
  for (;;) {
    int done = 0;
    mpi_check(MPI_Test(&request, &done, status ? status : MPI_STATUS_IGNORE),
              "MPI_Test of an Executive message", kExecutive);
    if (done) return true;
    const int64_t now = now_us();
    if (deadline_us && now >= deadline_us) return false;
    if (now < spin_until) continue;
    if (idle) idle();
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    sleep_us = std::min(sleep_us * 2, max_sleep_us);
  }
}

}  // namespace exadnn::flow::detail
