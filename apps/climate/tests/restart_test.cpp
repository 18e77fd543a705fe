// Restart files (restart.h) and Simulation::resume: a run saved, read back and resumed computes
// the same state as one that never stopped, bit for bit; a restart written with other settings,
// for another mesh, of another kind, or truncated is refused naming what is wrong.
#include "climate/restart.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "climate/williamson2.h"
#include "exadnn/core/error.h"
#include "exadnn/io/checkpoint.h"
#include "exadnn/ops/factories.h"
#include "w2_setup.h"

namespace climate {
namespace {

using testing::error_of;
using testing::W2Setup;

std::string scratch_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("climate_restart_" + std::to_string(getpid()) + "_" + name))
      .string();
}

const RestartSettings kSettings{{"case", "williamson2"}, {"ne", "2"}, {"p", "3"}};

TEST(Restart, AResumedRunMatchesAnUninterruptedOneBitForBit) {
  W2Setup s(2, 3);
  const SwState initial = s.tc.state(s.solver);
  const double half = 0.15 * kDay, end = 0.3 * kDay;  // not multiples of dt: short last steps
  Simulation straight(s.solver, initial);
  straight.advance_to(half);
  straight.advance_to(end);

  const std::string path = scratch_file("resume.ckpt");
  {
    Simulation first(s.solver, initial);
    first.advance_to(half);
    save_restart(path, first, kSettings);
  }
  Restart r = load_restart(path, kSettings, s.solver.state_size());
  EXPECT_EQ(r.time, half);
  Simulation resumed(s.solver, initial);  // a new process starts from the initial state
  resumed.resume(std::move(r.state), r.time, r.steps);
  resumed.advance_to(end);
  EXPECT_EQ(resumed.steps(), straight.steps());
  EXPECT_EQ(resumed.time(), straight.time());
  EXPECT_EQ(resumed.dt(), straight.dt());
  EXPECT_TRUE(resumed.state() == straight.state());  // every value, exactly
  std::filesystem::remove(path);
}

TEST(Restart, AnotherRunsFileIsRefusedNamingWhatDiffers) {
  W2Setup s(2, 3);
  Simulation sim(s.solver, s.tc.state(s.solver));
  sim.step();
  const std::string path = scratch_file("refuse.ckpt");
  save_restart(path, sim, kSettings);
  RestartSettings other = kSettings;
  other["ne"] = "3";
  const std::string setting = error_of([&] { load_restart(path, other, s.solver.state_size()); });
  EXPECT_NE(setting.find("it was written with ne = 2, this run has ne = 3"), std::string::npos)
      << setting;
  const std::string size = error_of([&] { load_restart(path, kSettings, 7); });
  EXPECT_NE(size.find("this mesh has 7"), std::string::npos) << size;

  const std::string foreign = scratch_file("foreign.ckpt");
  exadnn::StateDict tensors;
  tensors.insert("state", exadnn::from_vector<double>({1.0}));
  exadnn::io::save_checkpoint(foreign, tensors, {{"kind", "a model"}});
  const std::string kind = error_of([&] { load_restart(foreign, kSettings, 1); });
  EXPECT_NE(kind.find("a checkpoint of kind 'a model', not a climate_run restart"),
            std::string::npos)
      << kind;

  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const std::string truncated =
      error_of([&] { load_restart(path, kSettings, s.solver.state_size()); });
  EXPECT_NE(truncated.find(path), std::string::npos) << truncated;
  EXPECT_NE(error_of([&] { load_restart(scratch_file("missing.ckpt"), kSettings, 1); }), "");
  std::filesystem::remove(path);
  std::filesystem::remove(foreign);
}

TEST(Restart, ResumeChecksTheState) {
  W2Setup s(2, 3);
  Simulation sim(s.solver, s.tc.state(s.solver));
  EXPECT_NE(error_of([&] { sim.resume(SwState(5), 0, 0); }).find("values expected to resume"),
            std::string::npos);
  SwState bad = s.tc.state(s.solver);
  bad[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { sim.resume(bad, 100, 2); }).find("not finite"), std::string::npos);
}

}  // namespace
}  // namespace climate
