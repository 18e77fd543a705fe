// Memory formats (core/memory_format.h): which strides are channels-last, which are dense.
#include "testing.h"

using namespace exadnn;

namespace {
// A channels-last [n, c, h, w] tensor: packed NHWC viewed as NCHW.
Tensor channels_last(int64_t n, int64_t c, int64_t h, int64_t w) {
  return zeros({n, h, w, c}).permute({0, 3, 1, 2});
}
}  // namespace

TEST(MemoryFormat, ChannelsLastIsPackedNhwc) {
  const Tensor cl = channels_last(2, 3, 4, 5);
  EXPECT_EQ(cl.shape(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(cl.strides(), (Strides{60, 1, 15, 3}));
  EXPECT_TRUE(is_channels_last(cl));
  EXPECT_FALSE(cl.is_contiguous());
  EXPECT_FALSE(is_channels_last(zeros({2, 3, 4, 5})));
  EXPECT_FALSE(is_channels_last(zeros({3, 4, 5})));  // not 4-D
  // One channel, or 1x1 maps: the two formats are the same memory, and both checks say so.
  EXPECT_TRUE(is_channels_last(zeros({2, 1, 4, 5})));
  EXPECT_TRUE(is_channels_last(zeros({2, 3, 1, 1})));
  EXPECT_TRUE(channels_last(2, 1, 4, 5).is_contiguous());
  // A channel slice of a channels-last tensor skips memory: neither format.
  const Tensor part = cl.narrow(1, 0, 2);
  EXPECT_FALSE(is_channels_last(part));
  EXPECT_FALSE(is_dense(part));
  // Transposed H and W: dense, but not channels-last.
  EXPECT_FALSE(is_channels_last(cl.transpose(2, 3)));
  EXPECT_TRUE(is_dense(cl.transpose(2, 3)));
}

TEST(MemoryFormat, DenseMeansEveryElementOnceWithoutGaps) {
  EXPECT_TRUE(is_dense(zeros({4, 6})));
  EXPECT_TRUE(is_dense(zeros({4, 6}).t()));
  EXPECT_TRUE(is_dense(zeros({2, 3, 4}).permute({2, 0, 1})));
  EXPECT_TRUE(is_dense(zeros({4, 6}).narrow(0, 1, 2)));   // whole rows: packed, offset
  EXPECT_FALSE(is_dense(zeros({4, 6}).narrow(1, 1, 2)));  // part of each row
  EXPECT_FALSE(is_dense(zeros({4, 6}).slice(0, 0, 4, 2)));
  EXPECT_FALSE(is_dense(zeros({1, 6}).expand({4, 6})));  // stride 0: elements repeat
  EXPECT_TRUE(is_dense(zeros({1})));
}
