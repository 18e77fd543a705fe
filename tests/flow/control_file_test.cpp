// The control file: a valid file read back field by field, and invalid files (tests/flow/
// control_files/invalid_*.yaml) each reporting every one of its problems with its line.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>
#include <utility>
#include <vector>

#include "exadnn/flow/control_file.h"
#include "exadnn/flow/module.h"

namespace exadnn::flow {
namespace {

std::string path_of(const std::string& name) {
  return std::string(EXADNN_FLOW_CONTROL_FILES) + "/" + name;
}

// The problems `load_control_file` reports for `name` (fails the test if it reports none).
std::vector<std::string> problems_of(const std::string& name,
                                     std::optional<int> job_ranks = std::nullopt) {
  try {
    load_control_file(path_of(name), job_ranks);
  } catch (const ControlFileError& e) {
    return e.problems();
  }
  ADD_FAILURE() << name << " was accepted";
  return {};
}

// Expects a problem at `line` of `name` whose text contains `text`.
void expect_problem(const std::vector<std::string>& problems, const std::string& name, int line,
                    const std::string& text) {
  const std::string where = path_of(name) + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
  for (const auto& p : problems)
    if (p.rfind(where, 0) == 0 && p.find(text) != std::string::npos) return;
  std::string all;
  for (const auto& p : problems) all += "\n  " + p;
  ADD_FAILURE() << "no problem '" << text << "' at line " << line << " of " << name
                << "; got:" << all;
}

TEST(ControlFile, ValidFileReadsBack) {
  const ControlFile cf = load_control_file(path_of("valid_pipeline.yaml"), 8);
  ASSERT_EQ(cf.modules.size(), 4u);
  const ModuleSpec* sim = cf.find_module("simulate");
  ASSERT_NE(sim, nullptr);
  EXPECT_EQ(sim->run, "flow_test_noop");
  EXPECT_EQ(sim->args.at("dt").text, "0.5");
  EXPECT_EQ(sim->args.at("dt").where.line, 6);
  EXPECT_FALSE(sim->is_ensemble);
  const ModuleSpec* train = cf.find_module("train");
  EXPECT_EQ(train->on_error, OnError::cont);
  ASSERT_EQ(train->instances(), 2);
  EXPECT_EQ(train->ensemble[1].at("batch").text, "128");
  EXPECT_EQ(cf.find_module("sample")->instances(), 3);
  EXPECT_EQ(cf.iterations, 5);
  ASSERT_EQ(cf.groups.size(), 3u);
  EXPECT_EQ(cf.groups[2].after, std::vector<std::string>{"learning"});
  EXPECT_EQ(cf.group_order(), (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(cf.channels.size(), 1u);
  EXPECT_EQ(cf.channels[0].from, "simulate");
  EXPECT_EQ(cf.tuple_space_servers, 2);
  EXPECT_EQ(cf.timeline, "pipeline_timeline.json");
  EXPECT_EQ(cf.min_ranks(), 1 + 2 + 2);
  // 4 ranks leave one worker: the simulation group's two modules cannot run together.
  const auto p = problems_of("valid_pipeline.yaml", 4);
  expect_problem(p, "valid_pipeline.yaml", 25,
                 "group 'simulation' runs modules of 2 ranks together");
}

TEST(ControlFile, NoWorkflowMeansOneGroup) {
  const ControlFile cf = parse_control_file(
      "modules:\n  a: {run: flow_test_noop}\n  b: {run: flow_test_noop}\n", "inline");
  ASSERT_EQ(cf.groups.size(), 1u);
  EXPECT_EQ(cf.groups[0].modules, (std::vector<std::string>{"a", "b"}));
}

TEST(ControlFile, UnknownNames) {
  const std::string f = "invalid_names.yaml";
  const auto p = problems_of(f);
  EXPECT_EQ(p.size(), 4u);
  expect_problem(p, f, 5, "no module function called 'no_such_function' is registered");
  expect_problem(p, f, 7, "module 'orphan' is in no group");
  expect_problem(p, f, 11, "group 'first': unknown module 'trian'");
  expect_problem(p, f, 12, "'after' names unknown group 'frist'");
}

TEST(ControlFile, DependencyCycle) {
  const auto p = problems_of("invalid_cycle.yaml");
  ASSERT_EQ(p.size(), 1u);
  expect_problem(p, "invalid_cycle.yaml", 9, "dependency cycle among groups: ga -> gc -> gb -> ga");
}

TEST(ControlFile, WrongTypesUnknownKeysMissingFields) {
  const std::string f = "invalid_types.yaml";
  const auto p = problems_of(f);
  expect_problem(p, f, 5,
                 "module 'simulate' 'ranks' (or 'all') must be an integer >= 1, got 'two'");
  expect_problem(p, f, 6, "unknown key 'rnaks' in module 'simulate'");
  expect_problem(p, f, 7, "module 'train': 'run' is missing");
  expect_problem(p, f, 9, "'on_error' must be stop or continue, got 'maybe'");
  expect_problem(p, f, 10, "'layers' must be a scalar");
  expect_problem(p, f, 13, "give 'parameters' or 'instances', not both");
  expect_problem(p, f, 15, "'workflow.iterations' must be an integer >= 1, got '-1'");
  expect_problem(p, f, 17, "group 1: 'name' is missing");
  expect_problem(p, f, 18, "'tuple_space.servers' must be an integer >= 1, got '0'");
}

TEST(ControlFile, CountsAboveTheLimitsAreRefusedBeforeAnythingIsAllocated) {
  const std::string f = "invalid_counts.yaml";
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto p = problems_of(f);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  // Peak memory (kB) grew by less than 100 MB: 100 million instances were never laid out.
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 100 * 1024);
  EXPECT_EQ(p.size(), 6u);
  expect_problem(
      p, f, 4, "ensemble of module 'huge' 'instances' is 100000000, above the maximum of 1000000");
  expect_problem(p, f, 5,
                 "module 'wide' 'ranks' (or 'all') is 2000000, above the maximum of 1048576");
  expect_problem(p, f, 7,
                 "ensemble of module 'more' 'instances' brings the file's instances to 1200000, "
                 "above the maximum of 1000000 per iteration");
  expect_problem(p, f, 11, "'workflow.iterations' is 5000000, above the maximum of 1000000");
  expect_problem(
      p, f, 13,
      "group 'both' runs modules of 2000000 ranks together, above the maximum of 1048576");
  expect_problem(p, f, 15, "'tuple_space.servers' is 99999999999, above the maximum of 1048576");
  EXPECT_EQ(ControlFileLimits::instances, 1'000'000);  // the documented values
  EXPECT_EQ(ControlFileLimits::ranks, 1 << 20);
  EXPECT_EQ(ControlFileLimits::iterations, 1'000'000);
}

TEST(ControlFile, ManyChannelsAreRefused) {
  std::string yaml =
      "modules:\n  a: {run: flow_test_noop}\n  b: {run: flow_test_noop}\nchannels:\n";
  for (int c = 0; c <= ControlFileLimits::channels; ++c)
    yaml += "  - {name: c" + std::to_string(c) + ", from: a, to: b}\n";
  try {
    parse_control_file(yaml, "many");
    ADD_FAILURE() << "accepted " << ControlFileLimits::channels + 1 << " channels";
  } catch (const ControlFileError& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0], "many:5: 'channels' has 16384 entries, above the maximum of 16383");
  }
}

TEST(ControlFile, MoreRanksThanTheJobHas) {
  const std::string f = "invalid_ranks.yaml";
  EXPECT_NO_THROW(load_control_file(path_of(f), 5));
  const auto p = problems_of(f, 4);
  ASSERT_EQ(p.size(), 2u);
  expect_problem(p, f, 3, "module 'big' asks for 3 ranks; the job has 2 worker ranks");
  expect_problem(p, f, 11, "group 'together' runs modules of 3 ranks together");
  expect_problem(problems_of(f, 2), f, 0, "the Executive needs 3 at least");
}

TEST(ControlFile, ChannelsThatCannotWork) {
  const std::string f = "invalid_channels.yaml";
  const auto p = problems_of(f);
  EXPECT_EQ(p.size(), 4u);
  expect_problem(
      p, f, 11,
      "channel 'across': modules 'producer' (group 'one') and 'consumer' (group 'two') do not");
  expect_problem(p, f, 12, "channel 'fanout': module 'members' is an ensemble");
  expect_problem(p, f, 13, "channel 'lost': unknown module 'nobody'");
  expect_problem(p, f, 14, "channel 4: 'to' is missing");
}

TEST(ControlFile, InvalidYaml) {
  const auto p = problems_of("invalid_yaml.yaml");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("invalid YAML"), std::string::npos) << p[0];
}

TEST(ControlFile, SharedLibraryModules) {
  EXPECT_NO_THROW(parse_control_file(std::string("modules:\n  lib: {run: '") +
                                         EXADNN_FLOW_TEST_LIBRARY + ":flow_test_library_module'}\n",
                                     "inline"));
  try {
    parse_control_file(std::string("modules:\n  lib: {run: '") + EXADNN_FLOW_TEST_LIBRARY +
                           ":no_such_symbol'}\n"
                           "  gone: {run: '/nonexistent/libgone.so:f'}\n",
                       "inline");
    ADD_FAILURE() << "accepted";
  } catch (const ControlFileError& e) {
    ASSERT_EQ(e.problems().size(), 2u);
    EXPECT_NE(e.problems()[0].find("inline:2: module 'lib'"), std::string::npos) << e.problems()[0];
    EXPECT_NE(e.problems()[0].find("has no symbol 'no_such_symbol'"), std::string::npos)
        << e.problems()[0];
    EXPECT_NE(e.problems()[1].find("cannot load module library '/nonexistent/libgone.so'"),
              std::string::npos)
        << e.problems()[1];
  }
}

TEST(ControlFile, GraphListsGroupsInOrder) {
  const ControlFile cf = load_control_file(path_of("valid_pipeline.yaml"));
  const std::string text = describe_graph(cf);
  EXPECT_NE(text.find("group learning  (after simulation)"), std::string::npos) << text;
  EXPECT_NE(text.find("train: flow_test_noop, ensemble of 2 x 1 rank, on_error: continue"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("channel fields: simulate -> select"), std::string::npos) << text;
  const std::string dot = graph_dot(cf);
  EXPECT_NE(dot.find("\"simulate\" -> \"select\" [style=dashed, label=\"fields\"]"),
            std::string::npos)
      << dot;
}

}  // namespace
}  // namespace exadnn::flow
