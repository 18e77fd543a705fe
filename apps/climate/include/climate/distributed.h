// The shallow-water solver over MPI ranks: the partition (partition.h), this rank's solver of its
// elements, and the trace exchange (halo.h) overlapped with the volume terms:
//
//   rhs:  post the trace messages → volume terms of every local element → wait → interface
//         terms (neighbours on other ranks read from the received traces), Coriolis, projection.
//
// Each node's arithmetic is that of one process, in the same order, so 1, 2, 3, 6, … ranks give
// bit-identical fields (the mass, a sum over ranks, differs in the last bits).
//
//   DistributedShallowWater solver(mesh, params, MPI_COMM_WORLD);
//   Simulation sim(solver, Williamson2{}.state(solver.local()));   // this rank's part
//   sim.advance_to(t);
//   SwState all = solver.gather(sim.state());                     // on rank 0
#pragma once

#include <mpi.h>

#include <memory>

#include "climate/halo.h"
#include "climate/partition.h"
#include "climate/shallow_water.h"
#include "climate/simulation.h"

namespace climate {

class DistributedShallowWater : public Distribution {
 public:
  /// Collective over `comm` (duplicated: the solver's messages never match the caller's). Rank r
  /// of comm owns Partition(mesh, size).owned(r); more ranks than elements are refused. Keeps a
  /// reference to `mesh`, which must outlive it; destroy it before MPI is finalised (it frees
  /// its communicator).
  DistributedShallowWater(const CubedSphere& mesh, ShallowWaterParams params, MPI_Comm comm);
  ~DistributedShallowWater() override;

  const ShallowWater& local() const override { return *local_; }
  const Partition& partition() const { return partition_; }
  const TraceExchange& exchange() const { return *exchange_; }
  int rank() const { return rank_; }
  int size() const { return partition_.ranks(); }

  void rhs(double t, const SwState& U, SwState& dU) const override;
  double min_over_ranks(double v) const override;
  long min_over_ranks(long v) const override;

  /// ∫ h dA over the whole sphere [m³] (collective; the ranks' sums added in rank order).
  double mass(const SwState& U) const;
  /// The whole state, in one process's layout (elements in global order), on rank `root`; an
  /// empty state on the others. Collective.
  SwState gather(const SwState& U, int root = 0) const;
  /// This rank's part of a whole state (one process's layout).
  SwState scatter_local(const SwState& whole) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  Partition partition_;
  std::unique_ptr<ShallowWater> local_;
  std::unique_ptr<TraceExchange> exchange_;  // used by the const rhs; its buffers are scratch
};

}  // namespace climate
