// COMMLIB channel bandwidth against raw MPI_Send/MPI_Recv (issue 7), under `mpirun -np 2`:
// rank 0 streams a batch of messages of each size to rank 1, which acknowledges the last one;
// the same bytes go three ways, interleaved batch by batch so all three see the same machine
// state (small batches of ~32 MiB, many repetitions: robust on a shared, loaded machine):
//   raw      MPI_Send / MPI_Recv of the bytes (the speed limit)
//   into     Channel::send(t).wait() / Channel::recv_into(buffer)  (receiver reuses its buffer)
//   recv     Channel::send(t).wait() / Channel::recv()             (a new tensor per message)
// Prints the median bandwidth of `reps` repetitions, the channel/raw ratios of the medians, and
// the ratio of the best repetitions (the uncontended speed). Goal: >= 0.9 for >= 1 MiB.
// With one rank it prints instead the software cost per message (see self_overhead).
//   usage: mpirun -np 2 exadnn_flow_channel_bench [reps]
//          mpirun -np 1 exadnn_flow_channel_bench
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "exadnn/dist/environment.h"
#include "exadnn/dist/mpi_interop.h"
#include "exadnn/exadnn.h"
#include "exadnn/flow/channel.h"

using namespace exadnn;

namespace {

constexpr int kRawTag = 999;
constexpr int kAckTag = 998;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds for one streamed batch: `body` moves the messages, then rank 1 acknowledges.
double timed(MPI_Comm mpi, int rank, const std::function<void()>& body) {
  MPI_Barrier(mpi);
  const auto start = std::chrono::steady_clock::now();
  body();
  char ack = 0;
  if (rank == 1) MPI_Send(&ack, 1, MPI_CHAR, 0, kAckTag, mpi);
  if (rank == 0) MPI_Recv(&ack, 1, MPI_CHAR, 1, kAckTag, mpi, MPI_STATUS_IGNORE);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// With one rank: the software cost per message, the rank sending to itself 100 000 times
// (send, recv_into, wait) against MPI_Isend/MPI_Recv/MPI_Wait, median of 5 rounds, 1 and 16 KiB.
int self_overhead(const dist::Communicator& comm) {
  const MPI_Comm mpi = dist::native_handle(comm);
  flow::Channel ch(comm, {"self", 1, {0}, {0}});
  constexpr int kMessages = 100'000;
  std::printf("%10s %12s %12s %12s\n", "bytes", "raw us/msg", "into us/msg", "recv us/msg");
  for (int64_t bytes : {int64_t{1024}, int64_t{16384}}) {
    Tensor t = ones({bytes / 8}, DType::f64), u = ones({bytes / 8}, DType::f64);
    std::vector<double> raw, into, fresh;
    auto per_message = [](const std::function<void()>& body) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < kMessages; ++i) body();
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                 .count() /
             kMessages;
    };
    for (int round = 0; round < 5; ++round) {
      raw.push_back(per_message([&] {
        MPI_Request r;
        MPI_Isend(t.data_ptr(), static_cast<int>(bytes), MPI_BYTE, 0, kRawTag, mpi, &r);
        MPI_Recv(u.data_ptr(), static_cast<int>(bytes), MPI_BYTE, 0, kRawTag, mpi,
                 MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }));
      into.push_back(per_message([&] {
        dist::Work w = ch.send(t);
        ch.recv_into(u);
        w.wait();
      }));
      fresh.push_back(per_message([&] {
        dist::Work w = ch.send(t);
        ch.recv();
        w.wait();
      }));
    }
    std::printf("%10lld %12.2f %12.2f %12.2f\n", static_cast<long long>(bytes), median(raw),
                median(into), median(fresh));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 21;
  dist::Communicator comm = dist::from_mpi(MPI_COMM_WORLD);
  const int rank = comm.rank();
  if (comm.size() == 1) return self_overhead(comm);
  if (comm.size() != 2) {
    if (rank == 0) std::fprintf(stderr, "run with mpirun -np 2 (or -np 1 for the overhead)\n");
    return 1;
  }
  const MPI_Comm mpi = dist::native_handle(comm);
  flow::Channel ch(comm, {"bench", 1, {0}, {1}});
  if (rank == 0)
    std::printf("%10s %6s %10s %10s %10s %9s %9s %9s %9s\n", "bytes", "iters", "raw MB/s",
                "into MB/s", "recv MB/s", "into/raw", "recv/raw", "best i/r", "best r/r");
  for (int64_t bytes = 1024; bytes <= (int64_t{64} << 20); bytes *= 4) {
    const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{32} << 20) / bytes, 2, 1000));
    Tensor t = ones({bytes / 8}, DType::f64);
    std::vector<double> raw_bw, into_bw, recv_bw;
    auto bw = [&](double s) { return double(bytes) * iters / s / 1e6; };
    auto raw = [&] {
      for (int i = 0; i < iters; ++i) {
        if (rank == 0)
          MPI_Send(t.data_ptr(), static_cast<int>(bytes), MPI_BYTE, 1, kRawTag, mpi);
        else
          MPI_Recv(t.data_ptr(), static_cast<int>(bytes), MPI_BYTE, 0, kRawTag, mpi,
                   MPI_STATUS_IGNORE);
      }
    };
    auto into = [&] {
      for (int i = 0; i < iters; ++i) {
        if (rank == 0)
          ch.send(t).wait();
        else
          ch.recv_into(t);
      }
    };
    auto fresh = [&] {
      for (int i = 0; i < iters; ++i) {
        if (rank == 0)
          ch.send(t).wait();
        else
          ch.recv();
      }
    };
    timed(mpi, rank, raw);  // warm-up of every path
    timed(mpi, rank, into);
    timed(mpi, rank, fresh);
    for (int r = 0; r < reps; ++r) {
      raw_bw.push_back(bw(timed(mpi, rank, raw)));
      into_bw.push_back(bw(timed(mpi, rank, into)));
      recv_bw.push_back(bw(timed(mpi, rank, fresh)));
    }
    if (rank == 0) {
      const double r = median(raw_bw), a = median(into_bw), b = median(recv_bw);
      const double best_r = *std::max_element(raw_bw.begin(), raw_bw.end());
      const double best_a = *std::max_element(into_bw.begin(), into_bw.end());
      const double best_b = *std::max_element(recv_bw.begin(), recv_bw.end());
      std::printf("%10lld %6d %10.0f %10.0f %10.0f %9.3f %9.3f %9.3f %9.3f\n",
                  static_cast<long long>(bytes), iters, r, a, b, a / r, b / r, best_a / best_r,
                  best_b / best_r);
    }
  }
  return 0;
}
