// The trace exchange: one message each way per pair of neighbouring ranks.
#include "climate/halo.h"

#include <ctime>
#include <map>
#include <string>

#include "exadnn/core/error.h"

namespace climate {

namespace {

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  EXADNN_CHECK(false, "TraceExchange", what, " failed: ", std::string(text, len));
}

}  // namespace

TraceExchange::TraceExchange(const ShallowWater& local, const Partition& partition, int rank,
                             MPI_Comm comm)
    : local_(local), comm_(comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  EXADNN_CHECK(size == partition.ranks(), "TraceExchange", "a partition over ", partition.ranks(),
               " ranks used on a communicator of ", size);
  // Both lists are sorted by peer: consecutive runs are one message each.
  const std::size_t tv = local.trace_values();
  std::map<int, Peer> peers;
  const std::vector<Partition::Trace> sends = partition.sends(rank),
                                      recvs = partition.receives(rank);
  for (std::size_t s = 0; s < sends.size(); ++s) {
    Peer& p = peers.try_emplace(sends[s].peer, Peer{sends[s].peer, s * tv, 0, 0, 0}).first->second;
    p.send_count += tv;
  }
  for (std::size_t s = 0; s < recvs.size(); ++s) {
    auto it = peers.find(recvs[s].peer);
    EXADNN_CHECK(it != peers.end(), "TraceExchange", "rank ", rank, " receives from rank ",
                 recvs[s].peer, " but sends it nothing: an asymmetric partition");
    if (it->second.recv_count == 0) it->second.recv_offset = s * tv;
    it->second.recv_count += tv;
  }
  for (const auto& [r, p] : peers) peers_.push_back(p);
  send_.resize(sends.size() * tv);
  recv_.resize(recvs.size() * tv);
  requests_.resize(2 * peers_.size());
}

TraceExchange::~TraceExchange() {
  // A run stopped by an exception between start() and finish(): complete the messages so that
  // MPI does not write into freed buffers.
  if (pending_)
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

void TraceExchange::start(const SwState& U) {
  EXADNN_CHECK(!pending_, "TraceExchange", "start() called twice without finish()");
  local_.pack_traces(U, send_.data());
  const int tag = 17;
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    const Peer& p = peers_[k];
    check_mpi(MPI_Irecv(recv_.data() + p.recv_offset, static_cast<int>(p.recv_count), MPI_DOUBLE,
                        p.rank, tag, comm_, &requests_[2 * k]),
              "MPI_Irecv");
    check_mpi(MPI_Isend(send_.data() + p.send_offset, static_cast<int>(p.send_count), MPI_DOUBLE,
                        p.rank, tag, comm_, &requests_[2 * k + 1]),
              "MPI_Isend");
  }
  pending_ = true;
}

const double* TraceExchange::finish() {
  EXADNN_CHECK(pending_, "TraceExchange", "finish() without start()");
  pending_ = false;
  const double t0 = MPI_Wtime(), c0 = thread_cpu_seconds();
  check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  wait_seconds_ += MPI_Wtime() - t0;
  wait_cpu_seconds_ += thread_cpu_seconds() - c0;
  return recv_.empty() ? nullptr : recv_.data();
}

}  // namespace climate
