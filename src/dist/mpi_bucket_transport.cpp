// The MPI transport: each bucket is one tensor reduced in place by the communicator's allreduce
// (gradients enter it pre-divided by the number of ranks, so the sum is the average). Buckets
// before the last start MPI_Iallreduce as soon as they are full; the last one, with nothing left
// to overlap with, starts when wait() asks for it. Every wait is bounded by the communicator's
// timeout: a rank that stops is named, never waited for forever.
#include "bucket_transport.h"
#include "exadnn/ops/factories.h"

namespace exadnn::dist::detail {

namespace {

class MpiBucketTransport final : public BucketTransport {
 public:
  MpiBucketTransport(Communicator comm, const std::vector<BucketShape>& buckets)
      : comm_(std::move(comm)) {
    for (const BucketShape& b : buckets)
      flat_.push_back(empty({b.numel}, TensorOptions().dtype(b.dtype).device(b.device)));
    work_.resize(buckets.size());
  }

  Tensor input(size_t b) override { return flat_[b]; }
  Tensor result(size_t b) override { return flat_[b]; }
  double fill_scale() const override { return 1.0 / comm_.size(); }

  void start(size_t b) override {
    if (b + 1 < flat_.size()) work_[b] = comm_.allreduce(flat_[b]);
  }
  void progress() override {
    for (Work& w : work_) w.test();  // MPI moves a non-blocking collective on only inside calls
  }
  void wait(size_t b) override {
    if (b + 1 == flat_.size())
      comm_.allreduce_blocking(flat_[b]);
    else
      work_[b].wait();
    work_[b] = Work();
  }
  const char* name() const override { return "mpi"; }

 private:
  Communicator comm_;
  std::vector<Tensor> flat_;  // bucket b: [numel], reduced in place
  std::vector<Work> work_;    // the started allreduce of each bucket (none for the last)
};

}  // namespace

std::unique_ptr<BucketTransport> make_mpi_transport(const Communicator& comm,
                                                    const std::vector<BucketShape>& buckets) {
  return std::make_unique<MpiBucketTransport>(comm, buckets);
}

}  // namespace exadnn::dist::detail
