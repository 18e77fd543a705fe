// The Executive when a module's producer fails (mpirun -np 3 and 4, CTest TIMEOUT bounded: before
// the fix these runs hung): a receiver whose sender failed gets an error naming it, a tuple-space
// wait whose producers have all ended ends with one, and the workflow then stops or goes on as
// `on_error` says, with the downstream module reported as failed rather than hung.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "exadnn/dist/communicator.h"
#include "exadnn/exadnn.h"
#include "exadnn/flow/channel.h"
#include "exadnn/flow/executive.h"
#include "exadnn/flow/module.h"
#include "exadnn/flow/tuple_space.h"

namespace exadnn::flow {
namespace {

// Sends `fail_after` of its `count` tensors over channel "link" (as flow_test_send does, which
// flow_test_recv checks), then throws.
void send_then_fail(ModuleContext& ctx) {
  const int count = ctx.arg<int>("count"), fail_after = ctx.arg<int>("fail_after");
  for (int i = 0; i < count; ++i) {
    if (i == fail_after) throw Error("flow_test_send_then_fail", "deliberate failure");
    ctx.channel("link")
        .send(full({3}, static_cast<double>(i + 100 * ctx.iteration()), DType::f64))
        .wait();
  }
}

// Puts its instance under "<key>/<instance>", except instance `fail_instance`, which throws.
void put_or_fail(ModuleContext& ctx) {
  if (ctx.instance() == ctx.arg<int>("fail_instance", -1))
    throw Error("flow_test_put_or_fail", "deliberate failure of " + ctx.describe());
  ctx.tuple_space().put(ctx.arg<std::string>("key") + "/" + std::to_string(ctx.instance()),
                        from_vector<int64_t>({ctx.instance()}));
}

// Sends one tensor over channel "link" (as flow_test_send with count 1), then takes tuple `key`.
void send_then_take(ModuleContext& ctx) {
  ctx.channel("link").send(full({3}, 100.0 * ctx.iteration(), DType::f64)).wait();
  ctx.tuple_space().get(ctx.arg<std::string>("key"));
}

EXADNN_FLOW_MODULE(flow_test_send_then_fail, send_then_fail);
EXADNN_FLOW_MODULE(flow_test_send_then_take, send_then_take);
EXADNN_FLOW_MODULE(flow_test_put_or_fail, put_or_fail);

dist::Communicator& world() {
  static dist::Communicator w = dist::Communicator::world();
  return w;
}

RunResult run_text(const std::string& yaml) {
  const ControlFile cf = parse_control_file(yaml, "test", world().size());
  RunOptions options;
  options.stop_grace = std::chrono::seconds(20);  // a hang ends in an abort, never a pass
  return run_workflow(cf, world(), options);
}

// The failure of `module` in `iteration` (rank 0), or "".
std::string failure_of(const RunResult& r, const std::string& module, int iteration) {
  const std::string head =
      "module '" + module + "' instance 0 iteration " + std::to_string(iteration) + " failed";
  for (const auto& f : r.failures)
    if (f.find(head) != std::string::npos) return f;
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Simulation -> learner, the in-situ pattern: the sender throws after two messages while the
// receiver waits for five (apps/diffusion/workflows/in_situ_learning.yaml with a failing
// simulation).
std::string in_situ_yaml(const std::string& receiver_on_error) {
  return "modules:\n"
         "  tx: {run: flow_test_send_then_fail, on_error: continue, args: {count: 5, fail_after: "
         "2}}\n"
         "  rx: {run: flow_test_recv, on_error: " +
         receiver_on_error +
         ", args: {count: 5}}\n"
         "workflow:\n  iterations: 2\n  groups:\n    - {name: both, modules: [tx, rx]}\n"
         "channels:\n  - {name: link, from: tx, to: rx}\n";
}

TEST(ExecutiveFailures, ReceiverOfAFailedSenderFailsNamingIt) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks: scheduler and two workers";
  const RunResult r = run_text(in_situ_yaml("continue"));
  EXPECT_TRUE(r.ok);  // both continue: every iteration ran
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 4u) << (r.failures.empty() ? "" : r.failures.front());
  for (int it = 0; it < 2; ++it) {
    const std::string rx = failure_of(r, "rx", it);
    EXPECT_TRUE(contains(rx, "flow::Channel 'link'")) << rx;
    EXPECT_TRUE(contains(rx, "recv from sender 0 (rank 1)")) << rx;
    EXPECT_TRUE(contains(
        rx, "module 'tx' instance 0 iteration " + std::to_string(it) + " failed on rank 1"))
        << rx;
    EXPECT_TRUE(contains(rx, "deliberate failure")) << rx;
    EXPECT_FALSE(failure_of(r, "tx", it).empty());
  }
}

TEST(ExecutiveFailures, ReceiverWithOnErrorStopStopsTheWorkflow) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks: scheduler and two workers";
  const RunResult r = run_text(in_situ_yaml("stop"));
  EXPECT_FALSE(r.ok);  // every rank learns it, without waiting for the grace period
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 2u);  // iteration 0 only
  EXPECT_TRUE(contains(failure_of(r, "rx", 0), "module 'tx' instance 0 iteration 0 failed"))
      << failure_of(r, "rx", 0);
}

// The sweep pattern: an ensemble puts results, a later group collects them; one member fails.
std::string sweep_yaml(const std::string& collector_on_error, int iterations) {
  return "modules:\n"
         "  produce: {run: flow_test_put_or_fail, on_error: continue, args: {key: r, "
         "fail_instance: 2}, ensemble: {instances: 5}}\n"
         "  gather: {run: flow_test_collect, on_error: " +
         collector_on_error +
         ", args: {key: r, count: 5}}\n"
         "workflow:\n  iterations: " +
         std::to_string(iterations) +
         "\n  groups:\n    - {name: one, modules: [produce]}\n"
         "    - {name: two, modules: [gather], after: one}\n"
         "tuple_space: {servers: 1}\n";
}

TEST(ExecutiveFailures, CollectorOfAFailedProducerFailsInsteadOfWaiting) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks: scheduler, worker, tuple-space server";
  const RunResult r = run_text(sweep_yaml("stop", 1));
  EXPECT_FALSE(r.ok);
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_TRUE(contains(r.failures[0], "module 'produce' instance 2 iteration 0 failed"))
      << r.failures[0];
  const std::string gather = failure_of(r, "gather", 0);
  EXPECT_TRUE(contains(gather, "get of 'r/*'")) << gather;
  EXPECT_TRUE(contains(gather, "no producer is left")) << gather;
}

TEST(ExecutiveFailures, CollectorWithOnErrorContinueLetsTheWorkflowGoOn) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks: scheduler, worker, tuple-space server";
  const RunResult r = run_text(sweep_yaml("continue", 2));
  EXPECT_TRUE(r.ok);
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 4u);  // per iteration: the member, then the collector
  EXPECT_TRUE(contains(failure_of(r, "gather", 1), "no producer is left"))
      << failure_of(r, "gather", 1);
}

TEST(ExecutiveFailures, CollectorBesideItsProducersIsNotCutShort) {
  // The collector waits while the producers still run or are queued on the other worker: no
  // wait may end early while a producer is left.
  if (world().size() < 4) GTEST_SKIP() << "needs 4 ranks: scheduler, 2 workers, 1 server";
  const std::string yaml =
      "modules:\n"
      "  gather: {run: flow_test_collect, args: {key: q, count: 6}}\n"
      "  produce: {run: flow_test_put_or_fail, args: {key: q}, ensemble: {instances: 6}}\n"
      "workflow:\n  iterations: 3\n  groups:\n    - {name: all, modules: [gather, produce]}\n"
      "tuple_space: {servers: 1}\n";
  const RunResult r = run_text(yaml);
  EXPECT_TRUE(r.ok);
  if (world().rank() == 0) {
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  }
}

TEST(ExecutiveFailures, ReceiverThatEndsEarlyFreesItsRank) {
  // The receiver ends after one message while its sender waits for a tuple that only the next
  // task on the receiver's rank puts: ending the receiver's channel must not hold that rank.
  if (world().size() < 4) GTEST_SKIP() << "needs 4 ranks: scheduler, 2 workers, 1 server";
  const std::string yaml =
      "modules:\n"
      "  tx: {run: flow_test_send_then_take, args: {key: go/0}}\n"
      "  rx: {run: flow_test_recv, args: {count: 1}}\n"
      "  helper: {run: flow_test_put_or_fail, args: {key: go}, ensemble: {instances: 1}}\n"
      "workflow:\n  iterations: 2\n  groups:\n    - {name: all, modules: [tx, rx, helper]}\n"
      "channels:\n  - {name: link, from: tx, to: rx}\n"
      "tuple_space: {servers: 1}\n";
  const RunResult r = run_text(yaml);
  EXPECT_TRUE(r.ok);
  if (world().rank() == 0) {
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  }
}

}  // namespace
}  // namespace exadnn::flow
