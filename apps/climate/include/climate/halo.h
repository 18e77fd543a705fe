// The exchange of element traces between ranks: each rank sends the edge values of its elements
// that border another rank's (ShallowWater::pack_traces, in Partition::sends order, one message
// per neighbouring rank) and receives its neighbours' (in Partition::receives order, which is
// the senders' order). Non-blocking: start() posts MPI_Irecv and MPI_Isend and returns, so the
// volume terms run while the messages travel; finish() waits for them.
#pragma once

#include <mpi.h>

#include <vector>

#include "climate/partition.h"
#include "climate/shallow_water.h"

namespace climate {

class TraceExchange {
 public:
  /// `local`: rank `rank`'s solver, built from `partition`; `comm` holds partition.ranks() ranks
  /// and stays valid while the exchange is used. Keeps a reference to `local`.
  TraceExchange(const ShallowWater& local, const Partition& partition, int rank, MPI_Comm comm);
  ~TraceExchange();
  TraceExchange(const TraceExchange&) = delete;
  TraceExchange& operator=(const TraceExchange&) = delete;

  /// Packs U's traces and posts the receives and sends.
  void start(const SwState& U);
  /// Waits for every message of the last start(); returns the received traces,
  /// [local.num_recv_traces()][4][p+1] (null when this rank receives none).
  const double* finish();

  /// The number of neighbouring ranks this rank exchanges with.
  int num_peers() const { return static_cast<int>(peers_.size()); }
  /// Seconds spent in finish() so far: the part of the messages' time the volume terms did not
  /// hide.
  double wait_seconds() const { return wait_seconds_; }
  /// CPU seconds spent in finish() so far (MPI polls while it waits: on shared cores, CPU time
  /// taken from the other ranks).
  double wait_cpu_seconds() const { return wait_cpu_seconds_; }

 private:
  // One neighbouring rank: the values sent to it and received from it, as offsets and counts in
  // the send and receive buffers.
  struct Peer {
    int rank;
    std::size_t send_offset, send_count;
    std::size_t recv_offset, recv_count;
  };

  const ShallowWater& local_;
  MPI_Comm comm_;
  std::vector<Peer> peers_;
  std::vector<double> send_, recv_;
  std::vector<MPI_Request> requests_;
  bool pending_ = false;
  double wait_seconds_ = 0;
  double wait_cpu_seconds_ = 0;
};

}  // namespace climate
