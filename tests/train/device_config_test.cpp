// The `device` key of `exadnn train` configs: cpu, cuda, cuda:N; anything else, or a GPU device
// with 'distributed', is a config problem with its line.
#include "exadnn/train/config.h"
#include "testing.h"

using namespace exadnn;
using exadnn::train::parse_config;

TEST(ConfigDevice, DefaultsToCpuAndAcceptsCudaDevices) {
  EXPECT_EQ(parse_config(train::default_config_yaml(), "default").device, "cpu");
  for (const char* name : {"cpu", "cuda", "cuda:1"}) {
    const auto c =
        parse_config(train::default_config_yaml(), "default", {std::string("device=") + name});
    EXPECT_EQ(c.device, name);
    EXPECT_EQ(Device::parse(c.device).str(), Device::parse(name).str());
  }
}

TEST(ConfigDevice, UnknownDevicesAndGpuDistributedAreProblems) {
  EXPECT_EXADNN_ERROR(parse_config(train::default_config_yaml(), "default", {"device=gpu"}),
                      "'device' is 'gpu' (allowed: cpu, cuda, cuda:N)");
  EXPECT_EXADNN_ERROR(
      parse_config(train::default_config_yaml() + "distributed: {mode: hogwild, threads: 2}\n",
                   "hog.yaml", {"device=cuda"}),
      "'device: cuda' trains in one process");
}
