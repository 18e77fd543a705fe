// Liveness queries: a rank whose wait timed out asks every peer how far it got, so the error can
// name the ranks that never arrived instead of the job hanging. Peers answer from inside their own
// waits and tests (serve_queries), on the communicator's control duplicate.
#include <algorithm>
#include <array>
#include <optional>
#include <thread>

#include "comm_state.h"
#include "exadnn/core/error.h"
#include "mpi_check.h"

namespace exadnn::dist::detail {

namespace {
constexpr int kQueryTag = 1;
constexpr int kReplyTag = 2;
// An answer: {collectives started, collective being waited on (0 = none)}.
using Answer = std::array<uint64_t, 2>;

std::string seconds(std::chrono::milliseconds ms) {
  return exadnn::detail::cat(static_cast<double>(ms.count()) / 1000.0, " s");
}
}  // namespace

void CommState::serve_queries() {
  // Runs inside every test() and wait(): a failed call here is that operation's error.
  int flag = 1;
  while (true) {
    MPI_Status status;
    mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, kQueryTag, control, &flag, &status),
              "MPI_Iprobe for liveness queries");
    if (!flag) break;
    Answer query{};
    mpi_check(MPI_Recv(query.data(), 2, MPI_UINT64_T, status.MPI_SOURCE, kQueryTag, control,
                       MPI_STATUS_IGNORE),
              "MPI_Recv of a liveness query");
    PendingReply& reply = pending_replies.emplace_back();
    reply.answer = {collectives_started, waiting_on};
    const int rc = MPI_Isend(reply.answer.data(), 2, MPI_UINT64_T, status.MPI_SOURCE, kReplyTag,
                             control, &reply.request);
    if (rc != MPI_SUCCESS) {
      pending_replies.pop_back();
      throw_mpi_error(rc, "MPI_Isend of a liveness answer");
    }
  }
  // Forget messages that have gone out.
  std::erase_if(pending_replies, [](PendingReply& p) {
    int done = 0;
    mpi_check(MPI_Test(&p.request, &done, MPI_STATUS_IGNORE), "MPI_Test of a liveness answer");
    return done != 0;
  });
}

std::string diagnose_timeout(const WorkState& work, std::chrono::milliseconds waited) {
  CommState& comm = *work.comm;
  const int size = comm.size;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == comm.rank) continue;
    CommState::PendingReply& query = comm.pending_replies.emplace_back();
    query.answer = {work.collective, 0};
    // Best effort, like the whole diagnosis: a peer that cannot be asked is one that does not
    // answer, and is named as such.
    if (MPI_Isend(query.answer.data(), 2, MPI_UINT64_T, peer, kQueryTag, comm.control,
                  &query.request) != MPI_SUCCESS)
      comm.pending_replies.pop_back();
  }
  // Collect answers for a grace period, answering peers that are diagnosing too.
  std::vector<std::optional<Answer>> answers(static_cast<size_t>(size));
  const auto grace = std::min<std::chrono::milliseconds>(comm.timeout, std::chrono::seconds(3));
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int missing = size - 1;
  while (missing > 0 && std::chrono::steady_clock::now() < deadline) {
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kReplyTag, comm.control, &flag, &status) != MPI_SUCCESS)
      flag = 0;  // (best effort: no answer)
    if (flag) {
      Answer a{};
      if (MPI_Recv(a.data(), 2, MPI_UINT64_T, status.MPI_SOURCE, kReplyTag, comm.control,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS)
        continue;  // (best effort: this peer counts as not answering)
      if (!answers[static_cast<size_t>(status.MPI_SOURCE)]) --missing;
      answers[static_cast<size_t>(status.MPI_SOURCE)] = a;
      continue;
    }
    try {
      comm.serve_queries();
    } catch (const Error&) {  // (best effort: the diagnosis goes on without answering peers)
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }

  std::string absent, present;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == comm.rank) continue;
    const auto& a = answers[static_cast<size_t>(peer)];
    const bool arrived = a && work.collective != 0 && (*a)[0] >= work.collective;
    std::string& list = arrived ? present : absent;
    list += list.empty() ? "" : ", ";
    list += std::to_string(peer);
    if (!a)
      list += exadnn::detail::cat(" (no answer within ", seconds(grace),
                                  ": exited, hung, or busy outside exadnn)");
    else if (!arrived && (*a)[1] != 0)
      list += exadnn::detail::cat(" (waiting in collective #", (*a)[1], ")");
    else if (!arrived)
      list += exadnn::detail::cat(" (alive, ", (*a)[0], " collectives started, not waiting)");
  }
  std::string message = exadnn::detail::cat(
      work.what, " on rank ", comm.rank, " of ", size, " did not complete within the timeout of ",
      seconds(comm.timeout), " (waited ", seconds(waited), ")");
  if (work.collective == 0) return message + "; peers: " + (absent.empty() ? present : absent);
  if (absent.empty()) absent = "none (every rank arrived; the network or MPI is stuck)";
  message += "; ranks that have not arrived: " + absent;
  if (!present.empty()) message += "; arrived: " + present;
  return message;
}

}  // namespace exadnn::dist::detail
