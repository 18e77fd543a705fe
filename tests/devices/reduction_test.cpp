// Reductions on every device: sum/mean/max/min over chosen axes (strided inputs included),
// argmax/argmin with ties and NaN, and their gradients.
#include <cmath>
#include <limits>

#include "device_test_util.h"

namespace exadnn {
namespace {

using devtest::DeviceTest;
using devtest::matches_f64_reference;
using Inputs = std::vector<Tensor>;

class DeviceReduction : public DeviceTest {};

TEST_P(DeviceReduction, SumMeanMaxMinOverAxes) {
  const Tensor x = devtest::uniform({4, 5, 6}, 1);
  for (const Axes& axes : {Axes{}, Axes{2}, Axes{0}, Axes{1, 2}, Axes{0, 2}}) {
    EXPECT_TRUE(
        matches_f64_reference(device(), {x}, [&](const Inputs& v) { return sum(v[0], axes); }));
    EXPECT_TRUE(matches_f64_reference(device(), {x},
                                      [&](const Inputs& v) { return mean(v[0], axes, true); }));
    EXPECT_TRUE(
        matches_f64_reference(device(), {x}, [&](const Inputs& v) { return max(v[0], axes); }));
    EXPECT_TRUE(
        matches_f64_reference(device(), {x}, [&](const Inputs& v) { return min(v[0], axes); }));
    // A permuted (strided) input.
    EXPECT_TRUE(matches_f64_reference(device(), {x}, [&](const Inputs& v) {
      return sum(v[0].permute({2, 0, 1}), axes);
    }));
  }
}

TEST_P(DeviceReduction, LongRowsAndManyRows) {
  const Tensor wide = devtest::uniform({3, 100000}, 2);
  const Tensor tall = devtest::uniform({70000, 3}, 3);
  EXPECT_TRUE(
      matches_f64_reference(device(), {wide}, [](const Inputs& v) { return sum(v[0], {1}); }));
  EXPECT_TRUE(
      matches_f64_reference(device(), {tall}, [](const Inputs& v) { return sum(v[0], {0}); }));
  EXPECT_TRUE(
      matches_f64_reference(device(), {tall}, [](const Inputs& v) { return max(v[0], {1}); }));
}

TEST_P(DeviceReduction, IntegerSumsAreExact) {
  const Tensor x = from_vector<int32_t>({1, -2, 3, 2000000000, 2000000000, 5}, {2, 3});
  EXPECT_EQ(testing::values(sum(x.to(device()), {1})), (std::vector<double>{2, 4000000005.0}));
}

TEST_P(DeviceReduction, ArgmaxArgminTakeTheFirstTieAndNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = from_vector<double>({1, 3, 3, 0, 0, nan, 2, nan, -1, -1, 5, -1}, {3, 4},
                                       TensorOptions(DType::f32));
  const Tensor d = x.to(device());
  EXPECT_EQ(testing::values(argmax(d, 1)), (std::vector<double>{1, 1, 2}));
  EXPECT_EQ(testing::values(argmin(d, 1)), (std::vector<double>{3, 1, 0}));
  EXPECT_EQ(testing::values(argmax(d.t(), 1)), testing::values(argmax(x.t(), 1)));
}

TEST_P(DeviceReduction, GradientsMatchFiniteDifferences) {
  const Tensor x = testing::strided_leaf({3, 4, 2}, 4);
  EXPECT_TRUE(devtest::gradcheck_on(device(), {x}, [](const Inputs& v) { return sum(v[0], {1}); }));
  EXPECT_TRUE(devtest::gradcheck_on(device(), {x}, [](const Inputs& v) {
    return mean(v[0], {0, 2});
  }));
  EXPECT_TRUE(devtest::gradcheck_on(device(), {x}, [](const Inputs& v) { return max(v[0], {2}); }));
  EXPECT_TRUE(
      devtest::gradcheck_on(device(), {x}, [](const Inputs& v) { return logsumexp(v[0], {1}); }));
}

EXADNN_INSTANTIATE_DEVICE_TEST(DeviceReduction);

}  // namespace
}  // namespace exadnn
