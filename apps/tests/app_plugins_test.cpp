// The applications are plugins (include/exadnn/core/plugin.h): a program that enabled them loads
// an application's library when a module or dataset kind it defines is looked up, that
// application's only when the name says which (its prefix), every one when it does not. Each test
// runs in its own process (gtest_discover_tests), so one's loading does not leak into another.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "exadnn/core/plugin.h"
#include "exadnn/flow/module.h"
#include "exadnn/train/datasets.h"

namespace exadnn {
namespace {

// Whether a file whose path contains `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

bool found(const std::string& app) {
  const std::vector<std::string> apps = app_plugins();
  return std::find(apps.begin(), apps.end(), app) != apps.end();
}

TEST(AppPlugins, AreFoundBesideLibexadnn) {
  for (const char* app : {"climate", "diffusion"}) EXPECT_TRUE(found(app)) << app;
  EXPECT_FALSE(mapped("libexadnn_app_"));  // finding them loads nothing
}

TEST(AppPlugins, StayUnloadedUnlessTheProgramEnablesThem) {
  EXPECT_FALSE(app_plugins_enabled());
  EXPECT_FALSE(flow::is_module_registered("diffusion_sim"));
  EXPECT_FALSE(mapped("libexadnn_app_"));
}

TEST(AppPlugins, AModuleNameLoadsItsApplicationOnly) {
  set_app_plugins_enabled(true);
  EXPECT_TRUE(flow::is_module_registered("diffusion_sim"));
  EXPECT_TRUE(mapped("libexadnn_app_diffusion.so"));
  for (const char* other : {"libexadnn_app_alloy", "libexadnn_app_climate", "libexadnn_app_cbed",
                            "liblammps", "libpython", "libzfp", "libsymspg"})
    EXPECT_FALSE(mapped(other)) << other;
  EXPECT_NO_THROW(flow::resolve_module("diffusion_sim"));
}

TEST(AppPlugins, ADatasetKindLoadsItsApplication) {
  if (!found("cbed")) GTEST_SKIP() << "the cbed application was built without its shard loader";
  set_app_plugins_enabled(true);
  EXPECT_TRUE(train::datasets().contains("cbed-space-group"));
  EXPECT_TRUE(mapped("libexadnn_app_cbed.so"));
  EXPECT_FALSE(mapped("libexadnn_app_alloy"));
  EXPECT_FALSE(mapped("libexadnn_app_cbed_generate"));  // "cbed-" names only the loader's plugin
}

TEST(AppPlugins, AnUnknownNameLoadsEveryApplicationAndStaysUnknown) {
  set_app_plugins_enabled(true);
  EXPECT_FALSE(flow::is_module_registered("no_such_module"));
  for (const std::string& app : app_plugins())
    EXPECT_TRUE(mapped("libexadnn_app_" + app + ".so"))
        << app << ": " << plugin_error("app_" + app);
  const std::vector<std::string> modules = flow::registered_modules();
  for (const char* module : {"climate_simulate", "diffusion_sim", "surrogate_train"})
    EXPECT_NE(std::find(modules.begin(), modules.end(), module), modules.end()) << module;
  try {
    flow::resolve_module("no_such_module");
    ADD_FAILURE() << "an unknown module resolved";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no module function called 'no_such_module'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace exadnn
