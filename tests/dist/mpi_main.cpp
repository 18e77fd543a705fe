// The dist tests run under `mpirun -np N` (N = 1..4): MPI is started here, every rank runs every
// test, and only rank 0 prints the progress lines (a failure on any rank is still printed there
// by the failing rank, and makes mpirun exit non-zero).
#include <gtest/gtest.h>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/environment.h"

namespace {
// Keeps the per-test chatter of ranks other than 0 quiet, but not their failures.
class FailuresOnly : public ::testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  exadnn::dist::Environment env(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = exadnn::dist::Communicator::world().rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(rank));
  }
  return RUN_ALL_TESTS();
}
