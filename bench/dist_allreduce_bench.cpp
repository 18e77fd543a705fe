// Gradient synchronisation for the Fashion-MNIST MLP and CNN gradients (issue 4), under
// `mpirun -np P`: exadnn's fused GradientReducer (default buckets) against one raw MPI_Allreduce
// of the same total bytes (the speed limit) and against one allreduce per tensor (no fusion).
// Prints the median of `reps` timed repetitions of each, after a warm-up.
//   usage: mpirun -np 2 exadnn_dist_allreduce_bench [reps]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "exadnn/dist/environment.h"
#include "exadnn/dist/mpi_interop.h"
#include "exadnn/dist/reducer.h"
#include "exadnn/exadnn.h"

using namespace exadnn;

namespace {

double median_seconds(int reps, const dist::Communicator& comm, const std::function<void()>& run) {
  run();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(dist::native_handle(comm));
    const auto start = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void bench_model(const char* name, const std::vector<Shape>& shapes, const dist::Communicator& comm,
                 int reps) {
  std::vector<Tensor> params, grads;
  int64_t total = 0;
  for (const Shape& s : shapes) {
    params.push_back(zeros(s, TensorOptions().requires_grad()));
    grads.push_back(ones(s));
    total += s.numel();
  }
  dist::GradientReducer fused(params, comm);
  dist::GradientReducer unfused(params, comm, dist::ReducerOptions().bucket_bytes(0));
  // As in training: each step's gradients are fresh tensors of backward's (not the bucket views
  // the last finish() left), so the reducer pays for bringing them into its buckets.
  auto reduce_all = [&](dist::GradientReducer& reducer) {
    for (size_t k = params.size(); k-- > 0;) {
      params[k].set_grad(grads[k]);
      reducer.mark_ready(k);
    }
    reducer.finish();
  };
  std::vector<float> raw(static_cast<size_t>(total), 1.0f);
  const double t_raw = median_seconds(reps, comm, [&] {
    MPI_Allreduce(MPI_IN_PLACE, raw.data(), static_cast<int>(total), MPI_FLOAT, MPI_SUM,
                  dist::native_handle(comm));
  });
  const double t_iraw = median_seconds(reps, comm, [&] {
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, raw.data(), static_cast<int>(total), MPI_FLOAT, MPI_SUM,
                   dist::native_handle(comm), &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  });
  const double t_fused = median_seconds(reps, comm, [&] { reduce_all(fused); });
  const double t_unfused = median_seconds(reps, comm, [&] { reduce_all(unfused); });
  if (comm.rank() == 0)
    std::printf(
        "%-4s %9lld floats (%6.2f MiB) %2zu tensors | raw MPI_Allreduce %7.3f ms, "
        "MPI_Iallreduce+Wait "
        "%7.3f ms | fused (%zu buckets, %s) %7.3f ms = %.2f of raw speed | per tensor %7.3f ms "
        "(fusion gains %.2fx)\n",
        name, static_cast<long long>(total), total * 4.0 / (1 << 20), params.size(), t_raw * 1e3,
        t_iraw * 1e3, fused.num_buckets(), fused.transport_name(), t_fused * 1e3, t_raw / t_fused,
        t_unfused * 1e3, t_unfused / t_fused);
}

}  // namespace

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 21;
  dist::Communicator comm = dist::Communicator::world();
  set_num_threads(1);
  if (comm.rank() == 0) std::printf("%d ranks, median of %d repetitions\n", comm.size(), reps);
  // configs/fashion_mnist_mlp.yaml: 784-512-256-10.
  bench_model("MLP", {{512, 784}, {512}, {256, 512}, {256}, {10, 256}, {10}}, comm, reps);
  // configs/fashion_mnist_cnn.yaml: conv 5x5 32, conv 5x5 64, linear 1024-256, linear 256-10.
  bench_model("CNN",
              {{32, 1, 5, 5}, {32}, {64, 32, 5, 5}, {64}, {256, 1024}, {256}, {10, 256}, {10}},
              comm, reps);
  return 0;
}
