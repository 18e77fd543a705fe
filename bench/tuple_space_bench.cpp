// COMMLIB tuple-space throughput and latency (issue 7), under `mpirun -np P`: the last `servers`
// ranks serve, every other rank is a client that runs, one phase after the other (all clients
// at once, a barrier between phases):
//   put        `ops` puts of distinct keys "c<rank>/<i>"
//   read       `ops` reads of those keys (exact key: one shard)
//   get        `ops` gets of those keys (exact key: one shard; removes)
//   try_miss   `ops` try_gets of those keys, now gone (a miss)
//   put+get*   `ops` puts then `ops` gets by the pattern "p<rank>/*" (one server: server-side
//              waiting; several: the shards are polled)
// Values are `bytes`-byte tensors (u8). Prints per phase the latency of single operations over
// all clients (median, p99, in µs) and the aggregate rate (operations of all clients / slowest
// client's time).
//   usage: mpirun -np P exadnn_tuple_space_bench [servers] [ops] [bytes]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "exadnn/dist/environment.h"
#include "exadnn/dist/mpi_interop.h"
#include "exadnn/exadnn.h"
#include "exadnn/flow/tuple_space.h"

using namespace exadnn;

namespace {

using Clock = std::chrono::steady_clock;

// Runs `op(i)` for i in [0, ops) on every client, timing each; rank 0 of `clients` prints the
// pooled latency percentiles and the aggregate rate.
void phase(const char* name, const dist::Communicator& clients, int ops,
           const std::function<void(int)>& op) {
  const MPI_Comm mpi = dist::native_handle(clients);
  MPI_Barrier(mpi);
  std::vector<double> us(static_cast<size_t>(ops));
  const auto start = Clock::now();
  for (int i = 0; i < ops; ++i) {
    const auto t0 = Clock::now();
    op(i);
    us[static_cast<size_t>(i)] =
        std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, mpi);
  std::vector<double> all(us.size() * static_cast<size_t>(clients.size()));
  MPI_Gather(us.data(), ops, MPI_DOUBLE, all.data(), ops, MPI_DOUBLE, 0, mpi);
  if (clients.rank() != 0) return;
  std::sort(all.begin(), all.end());
  const double median = all[all.size() / 2];
  const double p99 = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  std::printf("%-10s %10.1f %10.1f %12.0f\n", name, median, p99, double(all.size()) / elapsed);
}

}  // namespace

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  dist::Communicator comm = dist::from_mpi(MPI_COMM_WORLD);
  const int servers = argc > 1 ? std::atoi(argv[1]) : 1;
  const int ops = argc > 2 ? std::atoi(argv[2]) : 20000;
  const int64_t bytes = argc > 3 ? std::atoll(argv[3]) : 64;
  if (servers < 1 || servers >= comm.size()) {
    if (comm.rank() == 0) std::fprintf(stderr, "need 1 <= servers < ranks\n");
    return 1;
  }
  flow::TupleSpaceLayout layout;
  for (int r = comm.size() - servers; r < comm.size(); ++r) layout.server_ranks.push_back(r);
  const bool is_server = comm.rank() >= comm.size() - servers;
  dist::Communicator clients = comm.split(is_server ? 1 : 0, comm.rank());
  if (is_server) {
    flow::serve_tuple_space(comm, layout);
  } else {
    flow::TupleSpace ts(comm, layout);
    const Tensor value = zeros({bytes}, DType::u8);
    const std::string me = std::to_string(comm.rank());
    if (clients.rank() == 0)
      std::printf(
          "tuple space: %d client(s), %d server(s), %lld-byte tensors, %d ops/client\n"
          "%-10s %10s %10s %12s\n",
          clients.size(), servers, static_cast<long long>(bytes), ops, "phase", "median us",
          "p99 us", "ops/s");
    // Warm-up: a few round trips to every shard.
    for (int i = 0; i < 200; ++i) ts.put("warm/" + me + "/" + std::to_string(i), value);
    for (int i = 0; i < 200; ++i) ts.get("warm/" + me + "/" + std::to_string(i));
    phase("put", clients, ops, [&](int i) { ts.put("c" + me + "/" + std::to_string(i), value); });
    phase("read", clients, ops, [&](int i) { ts.read("c" + me + "/" + std::to_string(i)); });
    phase("get", clients, ops, [&](int i) { ts.get("c" + me + "/" + std::to_string(i)); });
    phase("try_miss", clients, ops, [&](int i) { ts.try_get("c" + me + "/" + std::to_string(i)); });
    phase("put", clients, ops, [&](int i) { ts.put("p" + me + "/" + std::to_string(i), value); });
    phase("get*", clients, ops, [&](int) { ts.get("p" + me + "/*"); });
    MPI_Barrier(dist::native_handle(clients));
    if (clients.rank() == 0) ts.shutdown_servers();
  }
  return 0;
}
