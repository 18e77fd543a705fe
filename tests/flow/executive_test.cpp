// The Executive under mpirun -np 2..4: every module instance sees a communicator of its own size,
// groups run in DAG order and iterations one after the other (read back from the timeline file),
// ensembles fill the free ranks, failures stop the workflow or (on_error: continue) do not, and
// channels, the tuple space and shared-library modules work inside a workflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "exadnn/dist/communicator.h"
#include "exadnn/exadnn.h"
#include "exadnn/flow/channel.h"
#include "exadnn/flow/executive.h"
#include "exadnn/flow/module.h"
#include "exadnn/flow/tuple_space.h"

namespace exadnn::flow {
namespace {

// --- modules of the tests -------------------------------------------------------------------

void noop(ModuleContext&) {}

// Checks its communicator: the size it was told, and that an allreduce over it sees exactly that.
// Instance `fail_instance` (if given) throws on every rank after one allreduce, before a second.
void check_comm(ModuleContext& ctx) {
  const int expected = ctx.arg<int>("size");
  EXADNN_CHECK(ctx.comm().size() == expected, "check_comm", ctx.describe(), ": communicator of ",
               ctx.comm().size(), " ranks, expected ", expected);
  Tensor one = from_vector<double>({1.0});
  ctx.comm().allreduce(one).wait();
  EXADNN_CHECK(one.item<double>() == expected, "check_comm", ctx.describe(), ": allreduce saw ",
               one.item<double>(), " ranks");
  if (ctx.arg<int>("fail_instance", -1) == ctx.instance())
    throw Error("check_comm", "deliberate failure of " + ctx.describe());
  Tensor two = from_vector<double>({2.0});
  ctx.comm().allreduce(two).wait();
  EXADNN_CHECK(two.item<double>() == 2.0 * expected, "check_comm", ctx.describe(),
               ": second allreduce");
}

// Throws on instance `fail_instance` (every instance when not given).
void thrower(ModuleContext& ctx) {
  if (ctx.arg<int>("fail_instance", ctx.instance()) == ctx.instance())
    throw Error("flow_test_throw", "deliberate failure of " + ctx.describe());
}

// Puts its instance number under "<key>/<instance>".
void put_instance(ModuleContext& ctx) {
  ctx.tuple_space().put(ctx.arg<std::string>("key") + "/" + std::to_string(ctx.instance()),
                        from_vector<int64_t>({ctx.instance()}));
}

// Takes `count` tuples "<key>/*" and checks their instance numbers sum to 0 + 1 + ... + count - 1.
void collect(ModuleContext& ctx) {
  const int count = ctx.arg<int>("count");
  int64_t sum = 0;
  for (int i = 0; i < count; ++i)
    sum += ctx.tuple_space().get(ctx.arg<std::string>("key") + "/*").tensor().item<int64_t>();
  EXADNN_CHECK(sum == int64_t{count} * (count - 1) / 2, "collect", "sum ", sum);
  EXADNN_CHECK(!ctx.tuple_space().try_get(ctx.arg<std::string>("key") + "/*"), "collect",
               "a tuple too many");
}

// Sends `count` tensors [i, i, i] over channel "link"; the receiver checks them.
void send_some(ModuleContext& ctx) {
  for (int i = 0; i < ctx.arg<int>("count"); ++i)
    ctx.channel("link")
        .send(full({3}, static_cast<double>(i + 100 * ctx.iteration()), DType::f64))
        .wait();
}
// Receives from every sender whose default receiver this rank is (several when the sending
// module has more ranks than the receiving one).
void recv_some(ModuleContext& ctx) {
  Channel& link = ctx.channel("link");
  EXADNN_CHECK(link.receiver_count() == ctx.comm().size(), "recv_some", "channel has ",
               link.receiver_count(), " receivers, module has ", ctx.comm().size(), " ranks");
  for (int i = 0; i < ctx.arg<int>("count"); ++i)
    for (int sender : link.default_senders()) {
      const Tensor t = link.recv(sender);
      EXADNN_CHECK(t.numel() == 3 && sum(t).item<double>() == 3.0 * (i + 100 * ctx.iteration()),
                   "recv_some", "message ", i, " from sender ", sender, " came wrong");
    }
}

EXADNN_FLOW_MODULE(flow_test_noop, noop);
EXADNN_FLOW_MODULE(flow_test_check_comm, check_comm);
EXADNN_FLOW_MODULE(flow_test_throw, thrower);
EXADNN_FLOW_MODULE(flow_test_put, put_instance);
EXADNN_FLOW_MODULE(flow_test_collect, collect);
EXADNN_FLOW_MODULE(flow_test_send, send_some);
EXADNN_FLOW_MODULE(flow_test_recv, recv_some);

// --- helpers --------------------------------------------------------------------------------

dist::Communicator& world() {
  static dist::Communicator w = dist::Communicator::world();
  return w;
}

// Runs YAML text on every rank; on rank 0 `timeline` holds the events read back from the
// timeline file the run wrote.
RunResult run_text(const std::string& yaml, std::vector<TimelineEvent>* timeline = nullptr) {
  const ControlFile cf = parse_control_file(yaml, "test", world().size());
  const std::string path = "flow_executive_test_timeline.json";
  RunResult result = run_workflow(cf, world(), {path});
  if (world().rank() == 0) {
    if (timeline) *timeline = parse_timeline_json(read_text_file(path));
    std::remove(path.c_str());
  }
  return result;
}

int count_of(const std::vector<TimelineEvent>& events, const std::string& module) {
  return static_cast<int>(std::count_if(events.begin(), events.end(),
                                        [&](const auto& e) { return e.module == module; }));
}

// --- tests ----------------------------------------------------------------------------------

TEST(Executive, EachInstanceGetsItsOwnCommunicator) {
  const int workers = world().size() - 1;
  const std::string yaml =
      "modules:\n"
      "  wide: {run: flow_test_check_comm, ranks: all, args: {size: " +
      std::to_string(workers) +
      "}}\n"
      "  pair: {run: flow_test_check_comm, ranks: " +
      std::to_string(std::min(2, workers)) +
      ", args: {size: " + std::to_string(std::min(2, workers)) +
      "}, ensemble: {instances: 3}}\n"
      "  single: {run: flow_test_check_comm, args: {size: 1}, ensemble: {instances: 5}}\n"
      "workflow:\n  groups:\n"
      "    - {name: g1, modules: [wide]}\n"
      "    - {name: g2, modules: [pair, single], after: [g1]}\n";
  std::vector<TimelineEvent> events;
  const RunResult r = run_text(yaml, &events);
  ASSERT_TRUE(r.ok);
  if (world().rank() != 0) return;
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(count_of(events, "wide"), workers);
  EXPECT_EQ(count_of(events, "pair"), 3 * std::min(2, workers));
  EXPECT_EQ(count_of(events, "single"), 5);
  EXPECT_EQ(r.tasks, 1 + 3 + 5);
  for (const auto& e : events) EXPECT_TRUE(e.rank >= 1 && e.rank <= workers) << e.rank;
}

TEST(Executive, InstancesOnTheSameRanksShareCommunicatorsSafely) {
  // Many 2-rank instances land on the same rank pairs, so they reuse communicators; one fails
  // (on_error: continue) and the next instances on its ranks get a fresh one.
  const int ranks = std::min(2, world().size() - 1);
  const std::string yaml =
      "modules:\n  many:\n    run: flow_test_check_comm\n    ranks: " + std::to_string(ranks) +
      "\n    on_error: continue\n    args: {size: " + std::to_string(ranks) +
      ", fail_instance: 3}\n    ensemble: {instances: 12}\n"
      "workflow:\n  iterations: 2\n  groups:\n    - {name: g, modules: [many]}\n";
  std::vector<TimelineEvent> events;
  const RunResult r = run_text(yaml, &events);
  EXPECT_TRUE(r.ok);
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 2u * ranks);  // instance 3 of each iteration, on each of its ranks
  EXPECT_NE(r.failures.front().find("module 'many' instance 3 iteration 0"), std::string::npos);
  EXPECT_NE(r.failures.back().find("module 'many' instance 3 iteration 1"), std::string::npos);
  EXPECT_EQ(count_of(events, "many"), 2 * 12 * ranks);
}

TEST(Executive, DagOrderAndIterationsFromTheTimeline) {
  const std::string yaml =
      "modules:\n  a: {run: flow_test_noop}\n  b: {run: flow_test_noop}\n  c: {run: "
      "flow_test_noop}\n"
      "  d: {run: flow_test_noop, ensemble: {instances: 2}}\n"
      "workflow:\n  iterations: 3\n  groups:\n"
      "    - {name: last, modules: [d], after: [left, right]}\n"  // declared first, runs last
      "    - {name: first, modules: [a]}\n"
      "    - {name: left, modules: [b], after: first}\n"
      "    - {name: right, modules: [c], after: first}\n";
  std::vector<TimelineEvent> events;
  const RunResult r = run_text(yaml, &events);
  ASSERT_TRUE(r.ok);
  if (world().rank() != 0) return;
  ASSERT_EQ(events.size(), 3u * 5u);
  for (const auto* m : {"a", "b", "c"}) EXPECT_EQ(count_of(events, m), 3) << m;
  EXPECT_EQ(count_of(events, "d"), 6);
  // Span of a module's events in one iteration: [first start, last end].
  auto span = [&](const std::string& m, int it) {
    double start = 1e300, end = -1;
    for (const auto& e : events)
      if (e.module == m && e.iteration == it) {
        start = std::min(start, e.start_us);
        end = std::max(end, e.start_us + e.duration_us);
      }
    return std::pair{start, end};
  };
  for (int it = 0; it < 3; ++it) {
    EXPECT_LE(span("a", it).second, span("b", it).first) << it;
    EXPECT_LE(span("a", it).second, span("c", it).first) << it;
    EXPECT_LE(std::max(span("b", it).second, span("c", it).second), span("d", it).first) << it;
    if (it > 0) {
      EXPECT_LE(span("d", it - 1).second, span("a", it).first) << it;
    }
  }
}

TEST(Executive, OnErrorContinueCarriesOn) {
  const std::string yaml =
      "modules:\n"
      "  flaky: {run: flow_test_throw, on_error: continue, args: {fail_instance: 1}, ensemble: "
      "{instances: 3}}\n"
      "  after_it: {run: flow_test_noop}\n"
      "workflow:\n  groups:\n    - {name: one, modules: [flaky]}\n    - {name: two, modules: "
      "[after_it], after: one}\n";
  std::vector<TimelineEvent> events;
  const RunResult r = run_text(yaml, &events);
  EXPECT_TRUE(r.ok);
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("module 'flaky' instance 1 iteration 0 failed on rank "),
            std::string::npos)
      << r.failures[0];
  EXPECT_NE(r.failures[0].find("deliberate failure"), std::string::npos) << r.failures[0];
  EXPECT_EQ(count_of(events, "after_it"), 1);
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const auto& e) { return e.failed; }), 1);
}

TEST(Executive, OnErrorStopEndsTheWorkflowOnEveryRank) {
  const std::string yaml =
      "modules:\n  bad: {run: flow_test_throw}\n  never: {run: flow_test_noop}\n"
      "workflow:\n  iterations: 4\n  groups:\n    - {name: one, modules: [bad]}\n"
      "    - {name: two, modules: [never], after: one}\n";
  std::vector<TimelineEvent> events;
  const RunResult r = run_text(yaml, &events);
  EXPECT_FALSE(r.ok);  // every rank learns it
  if (world().rank() != 0) return;
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("module 'bad' instance 0 iteration 0 failed on rank 1"),
            std::string::npos)
      << r.failures[0];
  EXPECT_EQ(count_of(events, "never"), 0);
  EXPECT_EQ(events.size(), 1u);
}

TEST(Executive, EnsembleResultsThroughTheTupleSpace) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks: scheduler, worker, tuple-space server";
  const std::string yaml =
      "modules:\n  produce: {run: flow_test_put, args: {key: r}, ensemble: {instances: 7}}\n"
      "  gather: {run: flow_test_collect, args: {key: r, count: 7}}\n"
      "workflow:\n  iterations: 2\n  groups:\n    - {name: one, modules: [produce]}\n"
      "    - {name: two, modules: [gather], after: one}\n"
      "tuple_space: {servers: 1}\n";
  const RunResult r = run_text(yaml);
  EXPECT_TRUE(r.ok);
  if (world().rank() == 0) {
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  }
}

TEST(Executive, ChannelBetweenModulesOfAGroup) {
  if (world().size() < 3) GTEST_SKIP() << "needs 3 ranks: scheduler and two workers";
  const std::string yaml =
      "modules:\n  tx: {run: flow_test_send, args: {count: 20}}\n  rx: {run: flow_test_recv, args: "
      "{count: 20}}\n"
      "workflow:\n  iterations: 2\n  groups:\n    - {name: both, modules: [tx, rx]}\n"
      "channels:\n  - {name: link, from: tx, to: rx}\n";
  const RunResult r = run_text(yaml);
  EXPECT_TRUE(r.ok);
  if (world().rank() == 0) {
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  }
}

TEST(Executive, ChannelFromTwoRanksToOne) {
  if (world().size() < 4) GTEST_SKIP() << "needs 4 ranks: scheduler and three workers";
  const std::string yaml =
      "modules:\n  tx: {run: flow_test_send, ranks: 2, args: {count: 10}}\n"
      "  rx: {run: flow_test_recv, args: {count: 10}}\n"
      "workflow:\n  groups:\n    - {name: both, modules: [rx, tx]}\n"
      "channels:\n  - {name: link, from: tx, to: rx}\n";
  const RunResult r = run_text(yaml);
  EXPECT_TRUE(r.ok);
  if (world().rank() == 0) {
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  }
}

TEST(Executive, ModuleFromASharedLibrary) {
  const int workers = world().size() - 1;
  const std::string yaml =
      std::string("modules:\n  lib:\n    run: '") + EXADNN_FLOW_TEST_LIBRARY +
      ":flow_test_library_module'\n    ranks: all\n    args: {size: " + std::to_string(workers) +
      ", greeting: hello}\n";
  const RunResult r = run_text(yaml);
  EXPECT_TRUE(r.ok);
  if (world().rank() == 0) {
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  }
}

TEST(Executive, TooFewRanksIsAnErrorOnEveryRank) {
  const std::string yaml =
      "modules:\n  big: {run: flow_test_noop, ranks: " + std::to_string(world().size()) + "}\n";
  const ControlFile cf = parse_control_file(yaml, "test");
  EXPECT_THROW(run_workflow(cf, world()), ControlFileError);
}

}  // namespace
}  // namespace exadnn::flow
