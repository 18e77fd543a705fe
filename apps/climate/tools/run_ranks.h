// The processes of one climate_run: a single process, or the ranks of an MPI job
// (`mpirun -np N climate_run ...`), each rank stepping its part of the elements (distributed.h).
// What the driver needs of them: this process's solver and time loop, the whole state on rank 0
// for the output, and this rank's part of a whole state (a restart file's). make_run_ranks comes
// from run_ranks_mpi.cpp where exadnn's MPI layer is built, from run_ranks_single.cpp where not.
#pragma once

#include <memory>
#include <string>

#include "climate/shallow_water.h"
#include "climate/simulation.h"

namespace climate {

class RunRanks {
 public:
  virtual ~RunRanks() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }

  /// This process's solver: the whole mesh on one process, its own elements on a rank.
  virtual const ShallowWater& local() const = 0;
  /// The time loop of this process's part, from `initial` (local()'s layout). On several ranks
  /// every step is collective.
  virtual std::unique_ptr<Simulation> simulation(SwState initial, double cfl) const = 0;
  /// The whole state (one process's layout) on rank 0 from every rank's part; an empty state on
  /// the other ranks. Collective.
  virtual SwState gather(const SwState& part) const = 0;
  /// This process's part of a whole state.
  virtual SwState part_of(const SwState& whole) const = 0;
};

/// One process holding every element (run_ranks.cpp).
std::unique_ptr<RunRanks> single_process(const CubedSphere& mesh, const ShallowWaterParams& params);

/// The processes of this run: one ShallowWater of `mesh` on a single process; under mpirun
/// with N > 1 ranks, the elements spread over MPI_COMM_WORLD (MPI started here if nobody has).
/// Keeps a reference to `mesh`.
std::unique_ptr<RunRanks> make_run_ranks(const CubedSphere& mesh, const ShallowWaterParams& params);

/// For an error that may have stopped one rank only (a file rank 0 cannot write, while the
/// others wait for it): on N > 1 ranks prints `message` naming the rank and ends the whole job
/// with exit code 1; on one process returns, leaving the message to the caller.
void end_job_on_error(const std::string& message);

}  // namespace climate
