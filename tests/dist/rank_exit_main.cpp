// A data-parallel job in which one rank leaves early (it finalises MPI and exits 0 after two
// steps, as a rank with a wrong loop count would). The others must not hang: their next
// allreduce times out (EXADNN_DIST_TIMEOUT), names the missing rank, and aborts the job.
// The CTest entry passes when that message appears.
#include <cstdio>

#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/environment.h"
#include "exadnn/exadnn.h"

using namespace exadnn;

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  dist::Communicator comm = dist::Communicator::world();
  manual_seed(1);
  nn::Linear model(8, 4);
  dist::DataParallel ddp(model, comm);
  optim::SGD opt(model.parameters(), optim::SGDOptions(0.1));
  const int leaver = comm.size() - 1;
  try {
    for (int step = 0; step < 10; ++step) {
      if (comm.rank() == leaver && step == 2) return 0;  // leaves; Environment finalises MPI
      opt.zero_grad();
      sum(model(ones({2, 8}))).backward();
      opt.step();
    }
  } catch (const Error& e) {
    comm.abort(e.what(), 3);
  }
  std::printf("rank %d finished all steps (unexpected)\n", comm.rank());
  return 1;
}
