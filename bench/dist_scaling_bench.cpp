// Data-parallel scaling on the Fashion-MNIST MLP (issue 4): each rank trains with 1 thread on
// its shard (batch 128 per rank, SGD momentum 0.9) for `steps` steps through dist::DataParallel,
// and rank 0 prints the job's samples/s and the time per step spent waiting for the gradient
// allreduce. Run it with -np 1 and -np 2 (bench/run_dist.sh does) and compare. Two baselines
// split what synchronous data parallelism costs on the machine:
//   unsynced  each rank trains alone (no DataParallel): P ranks with no communication at all;
//   lockstep  the same plus one barrier per step: no data moves, but every step waits for the
//             slowest rank (what any synchronous scheme pays for the ranks' jitter).
//   usage: mpirun -np P exadnn_dist_scaling_bench [steps] [data dir] [unsynced|lockstep]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "exadnn/data/data_loader.h"
#include "exadnn/data/idx.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/environment.h"
#include "exadnn/exadnn.h"

using namespace exadnn;

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 300;
  const std::string dir = argc > 2 ? argv[2] : "/usr/share/datasets/fashion-mnist";
  set_num_threads(1);
  dist::Communicator comm = dist::Communicator::world();
  manual_seed(0);
  nn::Sequential model({std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 512),
                        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(512, 256),
                        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
  const std::string baseline = argc > 3 ? argv[3] : "";
  if (!baseline.empty() && baseline != "unsynced" && baseline != "lockstep") {
    std::fprintf(stderr, "unknown baseline '%s' (unsynced or lockstep)\n", baseline.c_str());
    return 2;
  }
  std::unique_ptr<dist::DataParallel> ddp;
  if (baseline.empty()) ddp = std::make_unique<dist::DataParallel>(model, comm);
  auto waited_s = [&] { return ddp ? ddp->reducer().wait_seconds() : 0.0; };
  optim::SGD opt(model.parameters(), optim::SGDOptions(0.05).momentum(0.9));
  data::DataLoader loader(
      data::load_mnist(dir, data::Split::train),
      data::DataLoaderOptions().batch_size(128).shuffle(true).drop_last(true).distributed(
          comm.rank(), comm.size()));
  auto run = [&](int n) {
    int done = 0;
    while (done < n) {
      for (const data::Batch& b : loader) {
        opt.zero_grad();
        nn::cross_entropy(model(b.inputs), b.targets).backward();
        opt.step();
        if (baseline == "lockstep") comm.barrier().wait();
        if (++done == n) break;
      }
    }
  };
  run(20);  // warm-up
  const double wait_before = waited_s();
  const auto start = std::chrono::steady_clock::now();
  run(steps);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double waited = waited_s() - wait_before;
  if (comm.rank() == 0)
    std::printf(
        "ranks %d (%s): %.0f samples/s (%d steps of 128 per rank in %.2f s); waiting on the "
        "allreduce %.3f ms per step (%.1f%% of the step)\n",
        comm.size(), ddp ? ddp->reducer().transport_name() : baseline.c_str(),
        steps * 128.0 * comm.size() / seconds, steps, seconds, waited / steps * 1e3,
        100.0 * waited / seconds);
  return 0;
}
