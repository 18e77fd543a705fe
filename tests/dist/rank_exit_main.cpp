// A job in which one rank (the last) leaves mid-run. The others must not hang.
//   exadnn_dist_rank_exit            data-parallel: the leaver finalises MPI and exits 0 after two
//                                    steps, as a rank with a wrong loop count would; the others'
//                                    next allreduce times out (EXADNN_DIST_TIMEOUT), names the
//                                    missing rank, and aborts the job.
//   exadnn_dist_rank_exit rma_kill   asynchronous RMA SGD (staleness bound 2): the leaver is killed
//                                    (SIGKILL) after two steps. mpirun notices the dead process and
//                                    ends the job with its message; were it not to, the others'
//                                    staleness wait would time out naming the dead rank.
//   exadnn_dist_rank_exit rma_hang   the same, but the leaver hangs (sleeps) instead: the others'
//                                    staleness wait times out (EXADNN_DIST_TIMEOUT), names it and
//                                    aborts the job.
//   exadnn_dist_rank_exit stop_in_allreduce
//                                    after a common barrier the leaver stops itself (SIGSTOP)
//                                    while the others run allreduce_blocking: their bounded wait
//                                    names it. (The window the blocking MPI_Allreduce hung in,
//                                    a stop inside the transfer, is tried by
//                                    scripts/sigstop_trials.sh with kill -STOP from outside.)
// The CTest entries pass when those messages appear.
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/environment.h"
#include "exadnn/dist/rma_parameter_store.h"
#include "exadnn/exadnn.h"

using namespace exadnn;

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  dist::Communicator comm = dist::Communicator::world();
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool rma = mode == "rma_kill" || mode == "rma_hang";
  manual_seed(1);
  nn::Linear model(8, 4);
  optim::SGD opt(model.parameters(), optim::SGDOptions(0.1));
  const int leaver = comm.size() - 1;
  if (mode == "stop_in_allreduce") {
    try {
      comm.barrier().wait();
      if (comm.rank() == leaver) std::raise(SIGSTOP);
      comm.allreduce_blocking(ones({16}));
    } catch (const Error& e) {
      comm.abort(e.what(), 3);
    }
    std::printf("rank %d finished the allreduce (unexpected)\n", comm.rank());
    return 1;
  }
  try {
    std::unique_ptr<dist::DataParallel> ddp;
    std::unique_ptr<dist::RmaParameterStore> store;
    if (rma)
      store =
          std::make_unique<dist::RmaParameterStore>(model, comm, dist::RmaOptions().staleness(2));
    else
      ddp = std::make_unique<dist::DataParallel>(model, comm);
    for (int step = 0; step < 10; ++step) {
      if (comm.rank() == leaver && step == 2) {
        if (mode == "rma_kill") std::raise(SIGKILL);
        if (mode == "rma_hang") std::this_thread::sleep_for(std::chrono::hours(1));
        return 0;  // leaves; Environment finalises MPI
      }
      if (store) store->read();
      opt.zero_grad();
      sum(model(ones({2, 8}))).backward();
      if (store)
        store->apply_gradients(opt.lr());
      else
        opt.step();
    }
  } catch (const Error& e) {
    comm.abort(e.what(), 3);
  }
  std::printf("rank %d finished all steps (unexpected)\n", comm.rank());
  return 1;
}
