// The config's MPI modes: `distributed: {mode: allreduce | param_server | async_rma, ...}`.
#include "exadnn/train/config.h"
#include "testing.h"

namespace exadnn::train {
namespace {

TrainConfig parse_with(const std::string& distributed) {
  return parse_config(default_config_yaml() + "distributed: " + distributed + "\n", "test.yaml");
}

TEST(MpiConfig, AllreduceAndParameterServerSettings) {
  const TrainConfig a = parse_with(
      "{mode: allreduce, bucket_mb: 4, first_bucket_mb: 0.5, transport: mpi, timeout_s: 20}");
  EXPECT_TRUE(a.mpi.enabled);
  EXPECT_FALSE(a.hogwild.enabled);
  EXPECT_EQ(a.mpi.mode, "allreduce");
  EXPECT_EQ(a.mpi.bucket_mb, 4);
  EXPECT_EQ(a.mpi.first_bucket_mb, 0.5);
  EXPECT_EQ(a.mpi.timeout_s, 20);
  EXPECT_EQ(a.mpi.transport, "mpi");
  EXPECT_EQ(parse_with("{mode: allreduce}").mpi.transport, "auto");
  const TrainConfig p = parse_with(
      "{mode: param_server, servers: 2, asynchronous: true, push_every: 3, pull_every: 4}");
  EXPECT_EQ(p.mpi.mode, "param_server");
  EXPECT_EQ(p.mpi.servers, 2);
  EXPECT_TRUE(p.mpi.asynchronous);
  EXPECT_EQ(p.mpi.push_every, 3);
  EXPECT_EQ(p.mpi.pull_every, 4);
  EXPECT_FALSE(parse_config(default_config_yaml(), "test.yaml").mpi.enabled);
}

TEST(MpiConfig, AsyncRmaSettings) {
  const TrainConfig r =
      parse_with("{mode: async_rma, staleness: 3, atomic_reads: true, timeout_s: 9}");
  EXPECT_TRUE(r.mpi.enabled);
  EXPECT_EQ(r.mpi.mode, "async_rma");
  EXPECT_EQ(r.mpi.staleness, 3);
  EXPECT_TRUE(r.mpi.atomic_reads);
  EXPECT_EQ(r.mpi.timeout_s, 9);
  EXPECT_EQ(parse_with("{mode: async_rma}").mpi.staleness, -1);  // no bound
  EXPECT_EXADNN_ERROR(parse_with("{mode: async_rma, staleness: -2}"),
                      "'distributed.staleness' must be -1 (no bound) or an integer >= 0");
  EXPECT_EXADNN_ERROR(parse_with("{mode: async_rma, servers: 1}"),
                      "unknown key 'servers' in distributed (mode async_rma allows:");
}

TEST(MpiConfig, ProblemsNameTheKeyAndLine) {
  EXPECT_EXADNN_ERROR(parse_with("{mode: allreduce, servers: 2}"), "test.yaml:15",
                      "unknown key 'servers' in distributed (mode allreduce allows:");
  EXPECT_EXADNN_ERROR(parse_with("{mode: param_server, servers: 0}"),
                      "'distributed.servers' must be a positive integer, got '0'");
  EXPECT_EXADNN_ERROR(parse_with("{mode: param_server, push_every: 2}"),
                      "need 'asynchronous: true'");
  EXPECT_EXADNN_ERROR(parse_with("{mode: ring}"), "test.yaml:", "'distributed.mode' is 'ring'",
                      "(known: allreduce, async_rma, hogwild, param_server, threads_locked, "
                      "threads_sync;");
  EXPECT_EXADNN_ERROR(parse_with("{mode: allreduce, timeout_s: -1}"), "positive number of seconds");
  EXPECT_EXADNN_ERROR(parse_with("{mode: allreduce, transport: nccl}"),
                      "'distributed.transport' must be auto, mpi or shared_memory, got 'nccl'");
}

}  // namespace
}  // namespace exadnn::train
