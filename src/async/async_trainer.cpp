// Worker loops of AsyncTrainer. Hogwild/locked: snapshot the shared slab (relaxed atomic loads),
// take k optimizer steps on the replica, publish the change (relaxed atomic stores). Synchronous:
// gradients of one round meet behind a barrier, each worker averages and steps its slice of the
// shared slab, a second barrier, every replica copies the new weights.
#include "exadnn/async/async_trainer.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "exadnn/async/atomic_ops.h"
#include "exadnn/core/error.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::async {

namespace {
using Clock = std::chrono::steady_clock;
constexpr int64_t kSliceAlign = 16;  // floats: slices of the shared slab start on cache lines
}  // namespace

const char* async_mode_name(AsyncMode mode) noexcept {
  switch (mode) {
    case AsyncMode::hogwild:
      return "hogwild";
    case AsyncMode::locked:
      return "locked";
    case AsyncMode::synchronous:
      return "synchronous";
  }
  return "?";
}

AsyncMode parse_async_mode(const std::string& name) {
  for (AsyncMode m : {AsyncMode::hogwild, AsyncMode::locked, AsyncMode::synchronous})
    if (name == async_mode_name(m)) return m;
  throw Error("AsyncTrainer", "unknown mode '" + name + "' (hogwild, locked, synchronous)");
}

struct AsyncTrainer::Worker {
  int index = 0;
  std::shared_ptr<nn::Module> replica;
  std::unique_ptr<ParameterSlab> slab;          // the replica's parameters
  std::unique_ptr<optim::Optimizer> optimizer;  // hogwild/locked: steps the replica
  std::vector<float> snapshot;                  // hogwild/locked: shared values last read
  std::vector<float> grads;                     // synchronous: this round's gradient
  Tensor slice;                                 // synchronous: its part of the shared slab
  std::unique_ptr<optim::Optimizer> slice_optimizer;
  // One epoch's results.
  double loss_sum = 0.0;
  int64_t samples = 0, batches = 0, updates = 0;
  std::vector<TracePoint> trace;
  std::exception_ptr error;
};

struct AsyncTrainer::Shared {
  std::mutex publish_mutex;  // locked mode
  Tensor grad;               // synchronous: the averaged gradient [slab size]
  // One epoch's state.
  std::atomic<int64_t> next_batch{0};
  std::atomic<int64_t> samples_done{0};
  std::atomic<bool> stop{false};
  int64_t batches = 0;
  Clock::time_point start;
  // Synchronous: `stop` as it was when the last worker reached the barrier, the same for every
  // worker of that phase (a worker that fails in the next phase cannot change it early).
  std::atomic<bool> halt{false};
  struct LatchStop {
    Shared* s;
    void operator()() noexcept { s->halt = s->stop.load(); }
  };
  std::unique_ptr<std::barrier<LatchStop>> barrier;
};

AsyncTrainer::AsyncTrainer(std::shared_ptr<nn::Module> model, ModelFactory make_replica,
                           OptimizerFactory make_optimizer, LossFunction loss, AsyncOptions options)
    : model_(std::move(model)),
      loss_(std::move(loss)),
      options_(options),
      shared_(std::make_unique<Shared>()) {
  EXADNN_CHECK(model_ && make_replica && make_optimizer && loss_, "AsyncTrainer",
               "model, replica factory, optimizer factory and loss are all required");
  EXADNN_CHECK(options_.threads() >= 1, "AsyncTrainer", "threads must be >= 1, got ",
               options_.threads());
  EXADNN_CHECK(options_.accumulate() >= 1, "AsyncTrainer", "accumulate must be >= 1, got ",
               options_.accumulate());
  EXADNN_CHECK(options_.accumulate() == 1 || options_.mode() != AsyncMode::synchronous,
               "AsyncTrainer", "accumulate (", options_.accumulate(),
               ") applies to the hogwild and locked modes, not synchronous");
  EXADNN_CHECK(options_.intra_op_threads() >= 0, "AsyncTrainer",
               "intra_op_threads must be >= 0, got ", options_.intra_op_threads());
  slab_ = std::make_unique<ParameterSlab>(*model_);
  const int64_t n = slab_->size();
  const int threads = options_.threads();
  const bool sync = options_.mode() == AsyncMode::synchronous;
  if (sync) shared_->grad = slab_->flat().detach().clone();
  const int64_t chunk = ((n + threads - 1) / threads + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  const StateDict state = model_->state_dict();
  for (int t = 0; t < threads; ++t) {
    auto w = std::make_unique<Worker>();
    w->index = t;
    w->replica = make_replica();
    EXADNN_CHECK(w->replica != nullptr, "AsyncTrainer", "the replica factory returned null");
    try {
      w->replica->load_state_dict(state);
    } catch (const Error& e) {
      throw Error("AsyncTrainer", "replica " + std::to_string(t) +
                                      " does not match the shared model (the factory must build "
                                      "the same architecture): " +
                                      e.what());
    }
    w->replica->train(model_->is_training());
    w->slab = std::make_unique<ParameterSlab>(*w->replica);
    EXADNN_CHECK(w->slab->size() == n, "AsyncTrainer", "replica ", t, " has a slab of ",
                 w->slab->size(), " elements, the shared model ", n,
                 " (the factory must build the same architecture)");
    if (sync) {
      w->grads.assign(static_cast<size_t>(n), 0.0f);
      const int64_t begin = std::min<int64_t>(n, t * chunk);
      const int64_t len = std::min<int64_t>(n, begin + chunk) - begin;
      if (len > 0) {
        w->slice = slab_->flat().narrow(0, begin, len).detach();
        w->slice.requires_grad_(true);
        w->slice.set_grad(shared_->grad.narrow(0, begin, len));
        w->slice_optimizer = make_optimizer({w->slice});
      }
    } else {
      w->snapshot.assign(static_cast<size_t>(n), 0.0f);
      w->optimizer = make_optimizer(w->slab->params());
    }
    workers_.push_back(std::move(w));
  }
}

AsyncTrainer::~AsyncTrainer() = default;

double AsyncTrainer::train_batch(Worker& w, const data::DataLoader& loader, int64_t epoch,
                                 const std::vector<int64_t>& order, int64_t batch) {
  const data::Batch b = loader.build(batch, epoch, order);
  w.replica->zero_grad();
  const Tensor loss = loss_(*w.replica, b);
  loss.backward();
  const double value = loss.item<double>();
  w.loss_sum += value * static_cast<double>(b.size());
  w.samples += b.size();
  ++w.batches;
  const int64_t done = shared_->samples_done.fetch_add(b.size()) + b.size();
  if (options_.record_trace()) {
    const double s = std::chrono::duration<double>(Clock::now() - shared_->start).count();
    w.trace.push_back({s, value, done, w.index});
  }
  return value;
}

void AsyncTrainer::run_hogwild(Worker& w, const data::DataLoader& loader, int64_t epoch,
                               const std::vector<int64_t>& order) {
  float* shared = slab_->data();
  float* local = w.slab->data();
  const int64_t n = slab_->size();
  const bool locked = options_.mode() == AsyncMode::locked;
  auto publish = [&] {
    std::unique_lock<std::mutex> lock(shared_->publish_mutex, std::defer_lock);
    if (locked) lock.lock();
    atomic_publish(shared, local, w.snapshot.data(), n);
    ++w.updates;
  };
  int local_steps = 0;
  while (!shared_->stop.load(std::memory_order_relaxed)) {
    const int64_t batch = shared_->next_batch.fetch_add(1);
    if (batch >= shared_->batches) break;
    if (local_steps == 0) atomic_snapshot(shared, local, w.snapshot.data(), n);
    train_batch(w, loader, epoch, order, batch);
    w.optimizer->step();
    if (++local_steps == options_.accumulate()) {
      publish();
      local_steps = 0;
    }
  }
  if (local_steps > 0) publish();
}

void AsyncTrainer::run_synchronous(Worker& w, const data::DataLoader& loader, int64_t epoch,
                                   const std::vector<int64_t>& order) {
  const int threads = options_.threads();
  const int64_t n = slab_->size();
  Shared& s = *shared_;
  auto guarded = [&](auto&& f) {
    try {
      f();
    } catch (...) {
      if (!w.error) w.error = std::current_exception();
      s.stop = true;
    }
  };
  std::memcpy(w.slab->data(), slab_->data(), static_cast<size_t>(n) * sizeof(float));
  const int64_t rounds = (s.batches + threads - 1) / threads;
  for (int64_t r = 0; r < rounds; ++r) {
    const int64_t batch = r * threads + w.index;
    guarded([&] {
      if (batch >= s.batches) return;
      train_batch(w, loader, epoch, order, batch);
      w.slab->gather_grads(w.grads.data());
    });
    s.barrier->arrive_and_wait();
    if (s.halt) break;
    guarded([&] {
      if (!w.slice.defined()) return;
      // Average the gradients of the workers that had a batch, in worker order.
      const int contributors =
          static_cast<int>(std::min<int64_t>(threads, s.batches - r * threads));
      const int64_t begin = w.slice.offset(), end = begin + w.slice.numel();
      float* out = s.grad.data<float>();
      for (int64_t i = begin; i < end; ++i) {
        float sum = workers_[0]->grads[i];
        for (int t = 1; t < contributors; ++t) sum += workers_[t]->grads[i];
        out[i] = contributors > 1 ? sum / static_cast<float>(contributors) : sum;
      }
      w.slice_optimizer->step();
    });
    s.barrier->arrive_and_wait();
    if (s.halt) break;
    std::memcpy(w.slab->data(), slab_->data(), static_cast<size_t>(n) * sizeof(float));
    if (w.index == 0) ++w.updates;
  }
}

EpochStats AsyncTrainer::train_epoch(const data::DataLoader& loader, int64_t epoch) {
  const std::vector<int64_t> order = loader.epoch_order(epoch);
  const int threads = options_.threads();
  const int intra = options_.intra_op_threads() > 0 ? options_.intra_op_threads()
                                                    : std::max(1, omp_get_max_threads() / threads);
  Shared& s = *shared_;
  s.next_batch = 0;
  s.samples_done = 0;
  s.stop = false;
  s.batches = loader.batches_per_epoch();
  s.halt = false;
  s.barrier = std::make_unique<std::barrier<Shared::LatchStop>>(threads, Shared::LatchStop{&s});
  for (auto& w : workers_) {
    w->loss_sum = 0.0;
    w->samples = w->batches = w->updates = 0;
    w->trace.clear();
    w->error = nullptr;
  }
  s.start = Clock::now();
  auto body = [&](Worker& w) {
    omp_set_num_threads(intra);  // this thread's OpenMP setting only
    if (options_.mode() == AsyncMode::synchronous) {
      run_synchronous(w, loader, epoch, order);
      return;
    }
    try {
      run_hogwild(w, loader, epoch, order);
    } catch (...) {
      w.error = std::current_exception();
      s.stop = true;
    }
  };
  if (threads == 1) {
    const int caller = omp_get_max_threads();
    body(*workers_[0]);  // on the caller's thread, whose OpenMP setting is restored
    omp_set_num_threads(caller);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(threads));
    for (auto& w : workers_) pool.emplace_back(body, std::ref(*w));
    for (auto& t : pool) t.join();
  }
  EpochStats stats;
  stats.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();
  double loss_sum = 0.0;
  for (auto& w : workers_) {
    if (w->error) std::rethrow_exception(w->error);
    loss_sum += w->loss_sum;
    stats.samples += w->samples;
    stats.batches += w->batches;
    stats.updates += w->updates;
    stats.trace.insert(stats.trace.end(), w->trace.begin(), w->trace.end());
  }
  stats.loss = stats.samples > 0 ? loss_sum / static_cast<double>(stats.samples) : 0.0;
  std::sort(stats.trace.begin(), stats.trace.end(),
            [](const TracePoint& a, const TracePoint& b) { return a.seconds < b.seconds; });
  // Buffers (batch-norm statistics) are per replica; worker 0's become the shared model's.
  const auto dst = model_->named_buffers();
  const auto src = workers_[0]->replica->named_buffers();
  for (size_t i = 0; i < dst.size() && i < src.size(); ++i) copy_(dst[i].second, src[i].second);
  return stats;
}

}  // namespace exadnn::async
