// Tests Device: parsing ("cpu", "cuda", "cuda:N" and malformed names), str() and equality.
#include "testing.h"

using namespace exadnn;

TEST(Device, ParseValid) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_EQ(Device::parse("cuda"), Device::cuda(0));
  EXPECT_EQ(Device::parse("cuda:0"), Device::cuda(0));
  const Device d = Device::parse("cuda:3");
  EXPECT_EQ(d.kind, DeviceKind::cuda);
  EXPECT_EQ(d.index, 3);
  EXPECT_EQ(Device::parse("cuda:12").index, 12);
}

TEST(Device, ParseInvalid) {
  EXPECT_EXADNN_ERROR(Device::parse("gpu"), "Device::parse", "unknown device 'gpu'");
  EXPECT_EXADNN_ERROR(Device::parse("cuda:x"), "unknown device 'cuda:x'");
  EXPECT_EXADNN_ERROR(Device::parse("cuda:-1"), "unknown device 'cuda:-1'");
  EXPECT_EXADNN_ERROR(Device::parse("cuda:"), "unknown device");
  EXPECT_EXADNN_ERROR(Device::parse("cuda:1x"), "unknown device");
  EXPECT_EXADNN_ERROR(Device::parse("cuda:1:2"), "unknown device");
  EXPECT_EXADNN_ERROR(Device::parse("CPU"), "unknown device");
  EXPECT_EXADNN_ERROR(Device::parse(""), "unknown device");
  EXPECT_EXADNN_ERROR(Device::parse("cpu:0x"), "unknown device");
  EXPECT_EXADNN_ERROR(Device::parse("cuda:99999999999999"), "unknown device");
}

TEST(Device, StrRoundTrips) {
  EXPECT_EQ(Device::cpu().str(), "cpu");
  EXPECT_EQ(Device::cuda(2).str(), "cuda:2");
  EXPECT_EQ(Device::parse(Device::cuda(5).str()), Device::cuda(5));
  EXPECT_EQ(Device::parse(Device::cpu().str()), Device::cpu());
  EXPECT_STREQ(device_kind_name(DeviceKind::cpu), "cpu");
  EXPECT_STREQ(device_kind_name(DeviceKind::cuda), "cuda");
}

TEST(Device, EqualityAndDefaults) {
  EXPECT_EQ(Device(), Device::cpu());
  EXPECT_TRUE(Device().is_cpu());
  EXPECT_FALSE(Device::cuda().is_cpu());
  EXPECT_FALSE(Device::cuda(0) == Device::cuda(1));
  EXPECT_FALSE(Device::cuda(0) == Device::cpu());
  EXPECT_TRUE(Device(DeviceKind::cuda, 1) == Device::cuda(1));
  EXPECT_EQ(zeros({2}).device(), Device::cpu());
}
