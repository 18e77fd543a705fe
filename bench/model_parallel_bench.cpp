// Model parallelism (issue 19) against data parallelism on the same ranks: time per training step
// of one model (an MLP 1024 → 4096 → 1024, batch 64, Adam, mean squared error) under each mode,
// the time per step spent in communication, and the pipeline's measured idle fraction against the
// GPipe bubble (p − 1)/(m + p − 1) and against a replay of the same steps (dist::replay_pipeline:
// each micro-batch's measured compute, messages taking no time). A spatial-parallel CNN is timed
// against data parallelism on the same CNN, and the memory a step of each holds per rank is set
// against one process's on the whole batch. Rank 0 prints one line per mode: medians over `rounds`
// rounds of `steps` steps.
//   usage: mpirun -np P exadnn_model_parallel_bench [steps] [rounds] [rows]
//   (bench/run_model_parallel.sh); rows: samples per pipeline micro-batch (default 8: batch 64)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/environment.h"
#include "exadnn/dist/fully_sharded.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/dist/pipeline.h"
#include "exadnn/dist/pipeline_schedule.h"
#include "exadnn/dist/sharded_optimizer.h"
#include "exadnn/dist/spatial_parallel.h"
#include "exadnn/dist/tensor_parallel.h"
#include "exadnn/exadnn.h"

using namespace exadnn;
namespace {

constexpr int64_t kIn = 1024, kHidden = 4096, kBatch = 64;

std::shared_ptr<nn::Sequential> mlp() {
  manual_seed(1);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(kIn, kHidden), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(kHidden, kIn)});
}

Tensor mse(const Tensor& out, const Tensor& target) {
  const Tensor d = out - target;
  return mean(d * d);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Result {
  double step_s = 0, comm_s = 0, idle = -1;
};

// Runs `step` rounds × steps times; the medians of the rounds' per-step time and communication.
// `comm_since_start` returns the communication seconds so far (reset at each round's start).
Result measure(const dist::Communicator& comm, int steps, int rounds,
               const std::function<void()>& step, const std::function<double()>& comm_seconds,
               const std::function<double()>& idle = {}) {
  for (int i = 0; i < 3; ++i) step();  // warm-up: caches, plans
  std::vector<double> per_step, per_comm, idles;
  for (int r = 0; r < rounds; ++r) {
    comm.barrier().wait();
    dist::reset_parallel_ops_time();
    const double comm0 = comm_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    double idle_sum = 0;
    for (int s = 0; s < steps; ++s) {
      step();
      if (idle) idle_sum += idle();
    }
    per_step.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / steps);
    per_comm.push_back((comm_seconds() - comm0) / steps);
    idles.push_back(idle_sum / steps);
  }
  return {median(per_step), median(per_comm), idle ? median(idles) : -1};
}

// Bytes a training step holds beyond what was allocated before it (activations, their gradients,
// temporaries: the MemoryManager's host peak), on this rank, after the warm-up steps.
double step_peak_mib(const std::function<void()>& step) {
  MemoryManager& mm = MemoryManager::instance();
  const size_t before = mm.stats(MemoryKind::host).bytes_in_use;
  mm.reset_peak(MemoryKind::host);
  step();
  return static_cast<double>(mm.stats(MemoryKind::host).peak_bytes - before) / (1 << 20);
}

void report_memory(const dist::Communicator& comm, const char* mode, double mib, double whole) {
  if (comm.rank() == 0)
    std::printf(
        "%-22s %9.2f MiB per rank held by a step (%.2f of one process's on the whole "
        "batch)\n",
        mode, mib, mib / whole);
}

size_t host_bytes_in_use() {
  return MemoryManager::instance().stats(MemoryKind::host).bytes_in_use;
}

// What a mode keeps on this rank between steps (parameters, gradients, optimizer state, its
// communication buffers: host bytes in use beyond `before`, taken before the model was built) and
// what a step holds on top of that, rank 0's.
void report_held(const dist::Communicator& comm, const char* mode, size_t before,
                 const std::function<void()>& step) {
  const double held = static_cast<double>(host_bytes_in_use() - before) / (1 << 20);
  const double peak = step_peak_mib(step);
  if (comm.rank() == 0)
    std::printf("%-22s %9.2f MiB per rank kept between steps, %.2f MiB more during a step\n", mode,
                held, peak);
}

void report(const dist::Communicator& comm, const char* mode, const Result& r, double baseline) {
  if (comm.rank() != 0) return;
  std::printf("%-22s %9.2f ms/step  %6.2fx data parallel's  communication %7.2f ms/step (%4.1f %%)",
              mode, 1e3 * r.step_s, r.step_s / baseline, 1e3 * r.comm_s, 100 * r.comm_s / r.step_s);
  if (r.idle >= 0) std::printf("  idle %.3f", r.idle);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  dist::Environment env(&argc, &argv);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const int64_t rows = argc > 3 ? std::atoll(argv[3]) : kBatch / 8;
  set_num_threads(1);
  dist::Communicator comm = dist::Communicator::world();
  const int p = comm.size(), rank = comm.rank();
  Generator gen(5);
  const Tensor x = randn({kBatch, kIn}, TensorOptions(), &gen);
  const Tensor target = randn({kBatch, kIn}, TensorOptions(), &gen);
  const int64_t share = kBatch / p;
  const Tensor my_x = x.narrow(0, rank * share, share),
               my_target = target.narrow(0, rank * share, share);
  auto adam = [](std::vector<Tensor> params) {
    return std::make_unique<optim::Adam>(std::move(params), optim::AdamOptions().lr(1e-4));
  };
  const auto parallel_ops_seconds = [] { return dist::parallel_ops_time().seconds; };
  if (rank == 0)
    std::printf(
        "model parallelism on %d ranks, 1 thread each: MLP %lld-%lld-%lld, batch %lld, Adam; "
        "%d rounds of %d steps, medians\n",
        p, static_cast<long long>(kIn), static_cast<long long>(kHidden),
        static_cast<long long>(kIn), static_cast<long long>(kBatch), rounds, steps);

  // Data parallel: each rank 1/P of the batch, gradients averaged by the bucketed reducer.
  Result data;
  {
    const size_t before = host_bytes_in_use();
    auto model = mlp();
    dist::DataParallel ddp(*model, comm);
    auto opt = adam(model->parameters());
    const auto step = [&] {
      opt->zero_grad();
      mse((*model)(my_x), my_target).backward();
      opt->step();
    };
    data = measure(comm, steps, rounds, step, [&] { return ddp.reducer().wait_seconds(); });
    report(comm, "data parallel", data, data.step_s);
    report_held(comm, "data parallel", before, step);
  }
  // Tensor parallel: the whole batch on every rank, hidden features split.
  {
    manual_seed(1);
    dist::ParallelMLP model(kIn, kHidden, kIn, comm);
    auto opt = adam(model.parameters());
    report(comm, "tensor parallel",
           measure(
               comm, steps, rounds,
               [&] {
                 opt->zero_grad();
                 mse(model(x), target).backward();
                 opt->step();
               },
               parallel_ops_seconds),
           data.step_s);
  }
  // Sharded data parallel (ZeRO-1).
  {
    const size_t before = host_bytes_in_use();
    auto model = mlp();
    dist::ShardedOptimizer opt(model->parameters(), comm, adam);
    const auto step = [&] {
      opt.zero_grad();
      mse((*model)(my_x), my_target).backward();
      opt.step();
    };
    report(comm, "sharded data parallel",
           measure(comm, steps, rounds, step, [&] { return opt.communication_seconds(); }),
           data.step_s);
    report_held(comm, "sharded data parallel", before, step);
  }
  // Fully sharded data parallel (ZeRO-3): parameters, gradients and state 1/P per rank, each layer
  // gathered for its forward and again (recomputed) for its backward.
  {
    const size_t before = host_bytes_in_use();
    dist::FullyShardedModel model(mlp(), comm, adam);
    const auto step = [&] {
      model.zero_grad();
      mse(model(my_x), my_target).backward();
      model.step();
    };
    report(comm, "fully sharded (ZeRO-3)",
           measure(comm, steps, rounds, step, [&] { return model.communication_seconds(); }),
           data.step_s);
    report_held(comm, "fully sharded (ZeRO-3)", before, step);
  }
  // Pipeline, both schedules, 8 micro-batches of `rows` samples: `model` cut at `boundaries`
  // (empty: balanced by parameter count); prints every stage's measured idle fraction beside the
  // GPipe bubble and beside the replay of the same steps' compute with messages taking no time.
  constexpr int64_t m = 8;
  const Tensor pipe_x = randn({m * rows, kIn}, TensorOptions(), &gen),
               pipe_target = randn({m * rows, kIn}, TensorOptions(), &gen);
  const auto pipeline_case = [&](const std::shared_ptr<nn::Sequential>& model,
                                 std::vector<size_t> boundaries, const Tensor& input,
                                 const char* label, const char* remark) {
    for (auto schedule : {dist::PipelineSchedule::gpipe, dist::PipelineSchedule::one_f_one_b}) {
      dist::PipelineParallel pipe(
          *model, comm,
          dist::PipelineOptions().micro_batches(m).schedule(schedule).boundaries(boundaries));
      std::unique_ptr<optim::Optimizer> opt;
      if (!pipe.stage().parameters().empty()) opt = adam(pipe.stage().parameters());
      double waited = 0;         // the stage's time not computing: messages and the bubble
      std::vector<double> each;  // per step run: its m forward then m backward seconds
      const Result r = measure(
          comm, steps, rounds,
          [&] {
            if (opt) opt->zero_grad();
            pipe.forward_backward(input, pipe_target, mse);
            const dist::PipelineStats& st = pipe.last_stats();
            waited += st.wall_seconds - st.busy_seconds;
            each.insert(each.end(), st.forward_each.begin(), st.forward_each.end());
            each.insert(each.end(), st.backward_each.begin(), st.backward_each.end());
            if (opt) opt->step();
          },
          [&] { return waited; }, [&] { return pipe.last_stats().idle_fraction; });
      // Every stage's idle fraction and compute times, gathered to every rank (all ran the same
      // number of steps).
      const auto n = static_cast<int64_t>(each.size());
      Tensor idle = from_vector<double>({r.idle});
      Tensor idles = empty({p}, TensorOptions().dtype(DType::f64));
      comm.allgather(idles, idle).wait();
      Tensor times = empty({p * n}, TensorOptions().dtype(DType::f64));
      comm.allgather(times, from_vector<double>(each)).wait();
      const std::string name = std::string("pipeline ") + label + " " + dist::to_string(schedule) +
                               " m=8 x " + std::to_string(rows);
      report(comm, name.c_str(), r, data.step_s);
      if (rank != 0) continue;
      // Each step replayed from its stages' compute times: the idle its costs alone imply.
      const double* t = times.data<double>();
      std::vector<std::vector<double>> replayed(p);
      for (int64_t k = 0; k < n / (2 * m); ++k) {
        std::vector<std::vector<double>> f(p), b(p);
        for (int s = 0; s < p; ++s) {
          const double* step_times = t + s * n + k * 2 * m;
          f[s].assign(step_times, step_times + m);
          b[s].assign(step_times + m, step_times + 2 * m);
        }
        const dist::PipelineReplay replay = dist::replay_pipeline(schedule, f, b);
        for (int s = 0; s < p; ++s) replayed[s].push_back(replay.idle_fraction[s]);
      }
      const double bubble = (p - 1.0) / (m + p - 1.0);
      const double* measured = idles.data<double>();
      std::printf("    idle fraction per stage:");
      for (int s = 0; s < p; ++s) std::printf(" %.3f", measured[s]);
      std::printf("  (bubble (p-1)/(m+p-1) = %.3f; measured/bubble:", bubble);
      for (int s = 0; s < p; ++s) std::printf(" %.2f", measured[s] / bubble);
      std::printf("; %s)\n    replayed from each step's compute, messages free:", remark);
      for (int s = 0; s < p; ++s) std::printf(" %.3f", median(replayed[s]));
      std::printf("  (measured/replayed:");
      for (int s = 0; s < p; ++s) std::printf(" %.2f", measured[s] / median(replayed[s]));
      std::printf(")\n    median compute per micro-batch, forward / backward [ms]:");
      for (int s = 0; s < p; ++s) {
        std::vector<double> f, b;
        for (int64_t k = 0; k < n; ++k) (k % (2 * m) < m ? f : b).push_back(t[s * n + k]);
        std::printf(" stage %d %.3f / %.3f", s, 1e3 * median(f), 1e3 * median(b));
      }
      std::printf("\n");
    }
  };
  if (p <= 3) {
    // The MLP's three layers: its two Linears cost the same, but the first stage also waits on
    // every activation message and the loss sits on the last.
    pipeline_case(mlp(), {}, pipe_x, "mlp", "stage costs are unequal here");
    // Equal stages: 4 x (Linear 1024-1024, Tanh) per stage, so the formula's assumption holds.
    manual_seed(3);
    auto equal = std::make_shared<nn::Sequential>();
    std::vector<size_t> boundaries;
    for (int s = 0; s < p; ++s) {
      if (s > 0) boundaries.push_back(equal->size());
      for (int b = 0; b < 4; ++b) {
        equal->push_back(std::make_shared<nn::Linear>(kIn, kIn));
        equal->push_back(std::make_shared<nn::Tanh>());
      }
    }
    // Equal bodies; the first stage's backward still skips its input's gradient (one of its 8
    // GEMMs), which the replay accounts for and the formula does not.
    pipeline_case(equal, boundaries, pipe_x, "equal", "equal stage bodies");
  }
  // Spatial parallel vs data parallel on a CNN: [8, 3, 256, 64] images.
  {
    const Tensor images = randn({8, 3, 256, 64}, TensorOptions(), &gen);
    const Tensor labels = from_vector<int64_t>({0, 1, 2, 3, 0, 1, 2, 3});
    auto build = [&](const dist::Communicator* spatial) {
      manual_seed(2);
      auto model = std::make_shared<nn::Sequential>();
      const auto conv = [&](int64_t in, int64_t out) -> std::shared_ptr<nn::Module> {
        const auto o = nn::Conv2dOptions(in, out, 3).padding(1);
        if (spatial) return std::make_shared<dist::SpatialConv2d>(o, *spatial);
        return std::make_shared<nn::Conv2d>(o);
      };
      model->push_back(conv(3, 16));
      if (spatial)
        model->push_back(std::make_shared<dist::SpatialBatchNorm2d>(16, *spatial));
      else
        model->push_back(std::make_shared<nn::BatchNorm2d>(16));
      model->push_back(std::make_shared<nn::ReLU>());
      model->push_back(conv(16, 16));
      model->push_back(std::make_shared<nn::ReLU>());
      if (spatial)
        model->push_back(std::make_shared<dist::SpatialGlobalAvgPool>(*spatial));
      else
        model->push_back(std::make_shared<nn::AdaptiveAvgPool2d>(1));
      model->push_back(std::make_shared<nn::Flatten>());
      model->push_back(std::make_shared<nn::Linear>(16, 4));
      return model;
    };
    auto run = [&](nn::Module& model, const Tensor& in, const Tensor& y, optim::Optimizer& opt) {
      opt.zero_grad();
      nn::cross_entropy(model(in), y).backward();
      opt.step();
    };
    double whole_mib = 0;  // one process, the whole batch of whole images
    {
      auto model = build(nullptr);
      auto opt = adam(model->parameters());
      for (int i = 0; i < 3; ++i) run(*model, images, labels, *opt);
      whole_mib = step_peak_mib([&] { run(*model, images, labels, *opt); });
      report_memory(comm, "CNN one process", whole_mib, whole_mib);
    }
    Result cnn_data;
    {
      auto model = build(nullptr);
      dist::DataParallel ddp(*model, comm);
      auto opt = adam(model->parameters());
      const int64_t n = 8 / p;
      const Tensor in = images.narrow(0, rank * n, n), y = labels.narrow(0, rank * n, n);
      cnn_data = measure(
          comm, steps, rounds, [&] { run(*model, in, y, *opt); },
          [&] { return ddp.reducer().wait_seconds(); });
      report(comm, "CNN data parallel", cnn_data, cnn_data.step_s);
      report_memory(comm, "CNN data parallel", step_peak_mib([&] { run(*model, in, y, *opt); }),
                    whole_mib);
    }
    {
      auto model = build(&comm);
      auto opt = adam(model->parameters());
      const Tensor rows = dist::spatial_rows(images, comm);
      report(
          comm, "CNN spatial parallel",
          measure(
              comm, steps, rounds, [&] { run(*model, rows, labels, *opt); }, parallel_ops_seconds),
          cnn_data.step_s);
      report_memory(comm, "CNN spatial parallel",
                    step_peak_mib([&] { run(*model, rows, labels, *opt); }), whole_mib);
    }
  }
  return 0;
}
