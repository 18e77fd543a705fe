// dist's public entry points for code that starts its own MPI requests (dist/mpi_interop.h) or
// ends a job on an error (dist/environment.h): what the workflow engine and the command line
// use instead of dist's internals. Suite "Communicator": run on 1 to 4 ranks.
#include <mpi.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/dist/environment.h"
#include "exadnn/dist/mpi_interop.h"
#include "testing.h"

namespace exadnn::dist {
namespace {

constexpr int kTag = 77;

// A ring: each rank sends its rank (and a second word) to the next and receives the previous's.
TEST(Communicator, WorkFromRequestsCompletesThemAndThenReleasesTheBuffers) {
  const Communicator comm = Communicator::world();
  const MPI_Comm mpi = native_handle(comm);
  const int next = (comm.rank() + 1) % comm.size();
  const int prev = (comm.rank() + comm.size() - 1) % comm.size();
  std::array<int, 2> received{-1, -1};
  auto sent = std::make_shared<std::array<int, 2>>(std::array<int, 2>{comm.rank(), 42});
  std::vector<MPI_Request> requests(2, MPI_REQUEST_NULL);
  ASSERT_EQ(MPI_Irecv(received.data(), 2, MPI_INT, prev, kTag, mpi, &requests[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Isend(sent->data(), 2, MPI_INT, next, kTag, mpi, &requests[1]), MPI_SUCCESS);
  const std::weak_ptr<std::array<int, 2>> watch = sent;
  Work work = work_from_requests(comm, std::move(requests), "ring exchange", std::move(sent));
  EXPECT_EQ(work.description(), "ring exchange");
  EXPECT_FALSE(watch.expired());  // the Work keeps the send buffer while the send may read it
  work.wait();
  EXPECT_TRUE(work.completed());
  EXPECT_TRUE(watch.expired());  // and lets it go once the requests completed
  EXPECT_EQ(received, (std::array<int, 2>{prev, 42}));
}

// A request that fails (a message longer than its receive buffer) is an Error naming the Work
// and MPI's message, not a silent success.
TEST(Communicator, WorkFromRequestsReportsAFailedRequest) {
  const Communicator comm = Communicator::world();
  const MPI_Comm mpi = native_handle(comm);
  auto buffers = std::make_shared<std::array<int, 3>>(std::array<int, 3>{1, 2, 0});
  // (The send first: Open MPI 4.1 drops the truncation of a self-message into a posted receive.)
  std::vector<MPI_Request> requests(2, MPI_REQUEST_NULL);
  ASSERT_EQ(MPI_Isend(buffers->data(), 2, MPI_INT, comm.rank(), kTag + 1, mpi, &requests[0]),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Irecv(buffers->data() + 2, 1, MPI_INT, comm.rank(), kTag + 1, mpi, &requests[1]),
            MPI_SUCCESS);
  Work work = work_from_requests(comm, std::move(requests), "two ints into one", buffers);
  try {
    work.wait();
    ADD_FAILURE() << "a truncated receive completed without an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_Testall of two ints into one failed: "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("MPI_ERR_TRUNCATE"), std::string::npos) << e.what();
  }
}

// One process is no job to end: the caller reports the error itself.
TEST(Communicator, AbortJobLeavesAOneProcessRunToItsCaller) {
  if (Communicator::world().size() > 1) GTEST_SKIP() << "it would end this job (see flow tests)";
  EXPECT_FALSE(abort_job("not ended", 1));
}

// Under mpirun (how this suite runs) the launcher's variables are set; without any of them the
// process counts as started by hand. The variables are restored afterwards.
TEST(Communicator, StartedByMpiLauncherReadsTheLaunchersVariables) {
  EXPECT_TRUE(started_by_mpi_launcher());
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (const char* v = std::getenv(name)) {
      saved.emplace_back(name, v);
      unsetenv(name);
    }
  EXPECT_FALSE(started_by_mpi_launcher());
  setenv("PMI_SIZE", "2", 1);
  EXPECT_TRUE(started_by_mpi_launcher());
  unsetenv("PMI_SIZE");
  for (const auto& [name, value] : saved) setenv(name.c_str(), value.c_str(), 1);
  EXPECT_TRUE(started_by_mpi_launcher());
}

}  // namespace
}  // namespace exadnn::dist
