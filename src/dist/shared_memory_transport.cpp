// The shared-memory transport: gradient buckets averaged through memory every rank maps, for
// communicators whose ranks all run on one node.
//
// Segment layout: a table of counters (per bucket and rank, one cache line each: `filled`, the
// steps whose input this rank has written; `done`, the steps whose slice it has averaged), then
// for each bucket P arrays (rank q's at index q), each 64-byte aligned. A bucket's elements are
// cut into P slices on 64-byte boundaries; slice r is rank r's.
//
// A step of bucket b on rank r:
//   1. the reducer writes r's gradients into array r; start() sets filled[r] = step.
//   2. once every `filled` has reached step (checked in start, progress and wait), r sums slice r
//      of the P arrays, divides by P, writes the average into slice r of every array, and sets
//      done[r] = step.
//   3. wait() returns once every `done` has reached step: array r holds the whole average (the
//      gradients' memory from then on).
// Each rank reads the others' inputs for its slice and pushes its slice's average to them: the
// data crosses between cores as often as in a ring allreduce, and the division costs no pass.
// (Measured on 2 ranks: pushing the average beats pulling it, and pulling whole arrays is worst.)
//
// Why nobody overwrites what another still reads: slice r of every array is read and written
// during a step only by rank r, and only after every rank has written its input. A rank rewrites
// its array for the next step only after its wait saw every slice averaged; and a slice is
// averaged for the next step only after every rank has rewritten its array, i.e. is done with
// this step's average. So from wait()'s return to its next step each rank's array is its own
// (gradients clipped or unscaled in place there touch no other rank's).
#include <atomic>
#include <chrono>
#include <thread>

#include "bucket_average.h"
#include "bucket_transport.h"
#include "comm_state.h"
#include "exadnn/ops/factories.h"
#include "mpi_check.h"
#include "shared_segment.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace exadnn::dist::detail {

namespace {

constexpr size_t kLine = 64;

size_t round_up(size_t bytes) {
  return (bytes + kLine - 1) / kLine * kLine;
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// A counter in the segment, one per cache line (so ranks polling it never share a line with
// another rank's counter).
uint64_t load(uint64_t* counter) {
  return std::atomic_ref<uint64_t>(*counter).load(std::memory_order_acquire);
}
void store(uint64_t* counter, uint64_t value) {
  std::atomic_ref<uint64_t>(*counter).store(value, std::memory_order_release);
}

class SharedMemoryTransport final : public BucketTransport {
 public:
  SharedMemoryTransport(Communicator comm, std::shared_ptr<SharedSegment> segment,
                        const std::vector<BucketShape>& shapes)
      : comm_(std::move(comm)), segment_(std::move(segment)) {
    const int ranks = comm_.size(), me = comm_.rank();
    std::byte* at = segment_->data();
    std::byte* data = at + counters_bytes(shapes.size(), ranks);
    for (size_t b = 0; b < shapes.size(); ++b) {
      Bucket& k = buckets_.emplace_back();
      k.numel = shapes[b].numel;
      k.dtype = shapes[b].dtype;
      for (int q = 0; q < ranks; ++q) {
        k.filled.push_back(reinterpret_cast<uint64_t*>(at));
        k.done.push_back(reinterpret_cast<uint64_t*>(at + kLine));
        at += kCountersPerRank * kLine;
      }
      const size_t bytes = static_cast<size_t>(k.numel) * dtype_size(k.dtype);
      for (int q = 0; q < ranks; ++q) {
        k.inputs.push_back(data);
        data += round_up(bytes);
      }
      // Slice boundaries on whole cache lines, so two ranks never write into one line.
      const int64_t per_line = static_cast<int64_t>(kLine / dtype_size(k.dtype));
      for (int r = 0; r < ranks; ++r)
        k.slice_begin.push_back(k.numel * r / ranks / per_line * per_line);
      k.slice_begin.push_back(k.numel);
      std::shared_ptr<SharedSegment> keep = segment_;  // views keep the mapping alive
      k.view = from_blob(k.inputs[static_cast<size_t>(me)], {k.numel}, k.dtype, {}, Device::cpu(),
                         [keep](void*) {});
    }
  }

  /// Bytes of the counter table for `buckets` buckets of `ranks` ranks.
  static size_t counters_bytes(size_t buckets, int ranks) {
    return buckets * static_cast<size_t>(ranks) * kCountersPerRank * kLine;
  }

  Tensor input(size_t b) override { return buckets_[b].view; }
  Tensor result(size_t b) override { return buckets_[b].view; }
  double fill_scale() const override { return 1.0; }

  void start(size_t b) override {
    Bucket& k = buckets_[b];
    ++k.step;
    k.collective = ++comm_.state()->collectives_started;  // numbered like any collective
    store(k.filled[static_cast<size_t>(comm_.rank())], k.step);
    try_average(k);
  }

  void progress() override {
    for (Bucket& k : buckets_)
      if (k.averaged < k.step) try_average(k);
  }

  void wait(size_t b) override {
    Bucket& k = buckets_[b];
    const auto begin = std::chrono::steady_clock::now();
    spin_until(k, b, k.done, begin);
  }

  const char* name() const override { return "shared memory"; }

 private:
  struct Bucket {
    int64_t numel = 0;
    DType dtype = DType::f32;
    std::vector<uint64_t*> filled, done;  // per rank, in the segment
    std::vector<void*> inputs;            // per rank, in the segment
    std::vector<int64_t> slice_begin;     // slice r: [slice_begin[r], slice_begin[r+1])
    Tensor view;                          // this rank's input, [numel]
    uint64_t step = 0;                    // steps started on this rank
    uint64_t averaged = 0;                // steps whose slice this rank has averaged
    uint64_t collective = 0;              // the communicator's number for this step's reduction
  };
  // Busy polls before a waiting rank starts yielding its core (about 20-50 microseconds).
  static constexpr uint64_t kSpinRounds = 2000;
  static constexpr size_t kCountersPerRank = 2;  // filled, done

  // Returns once every rank's `counters` has reached this step, moving other buckets on
  // meanwhile; past the communicator's timeout, a TimeoutError naming the ranks that never came.
  void spin_until(const Bucket& k, size_t b, const std::vector<uint64_t*>& counters,
                  std::chrono::steady_clock::time_point begin) {
    CommState& state = *comm_.state();
    state.waiting_on = k.collective;
    for (uint64_t round = 0; !all_reached(counters, k.step); ++round) {
      progress();
      if (round < kSpinRounds) {
        cpu_relax();
        continue;
      }
      // Waiting long: let other processes on this core run, answer peers' liveness queries.
      state.serve_queries();
      const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - begin);
      if (waited > state.timeout) timed_out(k, b, waited);
      if (waited < std::chrono::milliseconds(100))
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    state.waiting_on = 0;
  }

  bool all_reached(const std::vector<uint64_t*>& counters, uint64_t step) const {
    for (uint64_t* c : counters)
      if (load(c) < step) return false;
    return true;
  }

  // Averages this rank's slice once every rank has written its input for the step.
  void try_average(Bucket& k) {
    if (k.averaged == k.step || !all_reached(k.filled, k.step)) return;
    const size_t me = static_cast<size_t>(comm_.rank());
    average_into_all(k.dtype, k.inputs.data(), comm_.size(), k.slice_begin[me],
                     k.slice_begin[me + 1], 1.0 / comm_.size());
    k.averaged = k.step;
    store(k.done[static_cast<size_t>(comm_.rank())], k.step);
  }

  [[noreturn]] void timed_out(const Bucket& k, size_t b, std::chrono::milliseconds waited) {
    comm_.state()->waiting_on = 0;
    WorkState work;
    work.comm = comm_.state();
    work.collective = k.collective;
    work.what = exadnn::detail::cat("gradient allreduce #", k.collective, " (bucket ", b, ", ",
                                    k.numel, " ", dtype_name(k.dtype), ", shared memory)");
    throw TimeoutError("dist::GradientReducer", diagnose_timeout(work, waited));
  }

  Communicator comm_;
  std::shared_ptr<SharedSegment> segment_;
  std::vector<Bucket> buckets_;
};

}  // namespace

std::unique_ptr<BucketTransport> make_shared_memory_transport(
    const Communicator& comm, const std::vector<BucketShape>& buckets, std::string* why) {
  // Every rank must reach the same verdict (the segment's creation is collective).
  CommState& state = *comm.state();
  std::string mine;
  for (const BucketShape& b : buckets)
    if (!b.device.is_cpu())
      mine = exadnn::detail::cat("the gradients are on ", b.device.str(), ", not in host memory");
  if (!single_node(state)) mine = "the ranks are not all on one node";
  if (buckets.empty()) mine = "there are no gradients";
  int usable = mine.empty() ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, state.data), "MPI_Allreduce");
  if (!usable) {
    *why = mine.empty() ? "another rank's gradients are not in host memory" : mine;
    return nullptr;
  }
  size_t bytes = SharedMemoryTransport::counters_bytes(buckets.size(), comm.size());
  for (const BucketShape& b : buckets)
    bytes += static_cast<size_t>(comm.size()) *
             round_up(static_cast<size_t>(b.numel) * dtype_size(b.dtype));
  std::optional<SharedSegment> segment = SharedSegment::create(state, bytes, why);
  if (!segment) return nullptr;
  return std::make_unique<SharedMemoryTransport>(
      comm, std::make_shared<SharedSegment>(std::move(*segment)), buckets);
}

}  // namespace exadnn::dist::detail
