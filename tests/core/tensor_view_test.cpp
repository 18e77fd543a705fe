// Tests Tensor views (reshape, view, permute, narrow, select, slice, squeeze, expand, ...),
// strides, contiguity, contiguous() and clone().
#include <cstdlib>
#include <vector>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::values;

namespace {
using V = std::vector<double>;
// 0, 1, ..., n-1 (f32) in `shape`.
Tensor iota(const Shape& shape) {
  return arange(shape.numel()).reshape(shape);
}
}  // namespace

TEST(TensorViews, StridesAndContiguity) {
  const Tensor t = zeros({2, 3, 4});
  EXPECT_EQ(t.strides(), (Strides{12, 4, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.offset(), 0);
  EXPECT_EQ(t.element_size(), 4u);
  const Tensor tr = t.transpose(0, 2);
  EXPECT_EQ(tr.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(tr.strides(), (Strides{1, 4, 12}));
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_TRUE(t.narrow(0, 1, 1).is_contiguous());
  EXPECT_FALSE(t.narrow(2, 0, 2).is_contiguous());
  EXPECT_TRUE(t.unsqueeze(1).is_contiguous());
  EXPECT_TRUE(zeros({3, 1}).t().is_contiguous());  // size-1 axes do not matter
  EXPECT_FALSE(zeros({3, 1}).expand({3, 4}).is_contiguous());
  EXPECT_TRUE(zeros({}).is_contiguous());
}

TEST(TensorViews, ReshapeAndView) {
  const Tensor t = iota({2, 3, 4});
  const Tensor r = t.reshape({-1, 4});
  EXPECT_EQ(r.shape(), (Shape{6, 4}));
  EXPECT_EQ(t.reshape({4, -1}).shape(), (Shape{4, 6}));
  EXPECT_EQ(t.reshape({2, -1, 2}).shape(), (Shape{2, 6, 2}));
  EXPECT_EQ(t.reshape({24}).strides(), (Strides{1}));
  EXPECT_EQ(values(r), values(t));
  EXPECT_TRUE(r.shares_storage_with(t));
  EXPECT_EQ(t.view({3, 8}).shape(), (Shape{3, 8}));
  EXPECT_EQ(scalar_tensor(2.0).reshape({1, 1}).shape(), (Shape{1, 1}));
  EXPECT_EQ(zeros({0, 4}).reshape({-1, 2}).shape(), (Shape{0, 2}));
  EXPECT_EXADNN_ERROR(t.reshape({-1, -1}), "reshape", "only one dimension can be -1");
  EXPECT_EXADNN_ERROR(t.reshape({5, 5}), "reshape", "cannot reshape", "[2, 3, 4]", "[5, 5]");
  EXPECT_EXADNN_ERROR(t.reshape({-1, 5}), "reshape", "cannot reshape");
  EXPECT_EXADNN_ERROR(t.view({7, -1}), "view", "cannot reshape");
}

TEST(TensorViews, ViewOfNonViewableLayoutFails) {
  const Tensor t = iota({2, 3}).t();  // [[0, 3], [1, 4], [2, 5]]
  EXPECT_EXADNN_ERROR(t.view({6}), "view", "without a copy", "use reshape");
  EXPECT_EXADNN_ERROR(t.view({-1}), "use reshape");
  const Tensor flat = t.reshape({6});  // reshape copies instead
  EXPECT_EQ(values(flat), (V{0, 3, 1, 4, 2, 5}));
  EXPECT_FALSE(flat.shares_storage_with(t));
  // Splitting or merging axes that stay dense is still a view.
  const Tensor split = t.view({3, 2, 1});
  EXPECT_TRUE(split.shares_storage_with(t));
  EXPECT_EQ(values(split), (V{0, 3, 1, 4, 2, 5}));
  const Tensor cols = iota({4, 6}).narrow(1, 0, 4);  // rows are dense, not the whole block
  EXPECT_EQ(cols.view({4, 2, 2}).strides(), (Strides{6, 2, 1}));
  EXPECT_EXADNN_ERROR(cols.view({16}), "use reshape");
}

TEST(TensorViews, PermuteTransposeT) {
  const Tensor t = iota({2, 3, 4});
  const Tensor p = t.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Strides{1, 12, 4}));
  // p[k][i][j] == t[i][j][k]
  EXPECT_EQ(p.select(0, 3).select(0, 1).select(0, 2).item<double>(), 1 * 12 + 2 * 4 + 3);
  EXPECT_EQ(t.permute({-1, 0, 1}).shape(), p.shape());
  EXPECT_EQ(values(t.transpose(1, 2).contiguous().transpose(1, 2)), values(t));
  EXPECT_EQ(values(iota({2, 3}).t()), (V{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(iota({5}).t().shape(), (Shape{5}));
  EXPECT_EQ(values(t.transpose(-1, 0)), values(t.permute({2, 1, 0})));
  EXPECT_EXADNN_ERROR(t.permute({0, 1}), "permute", "order has 2 axes");
  EXPECT_EXADNN_ERROR(t.permute({0, 0, 1}), "permute", "appears twice");
  EXPECT_EXADNN_ERROR(t.permute({0, 1, 3}), "permute", "out of range");
  EXPECT_EXADNN_ERROR(t.t(), "t", "at most 2 dimensions");
  EXPECT_EXADNN_ERROR(t.transpose(0, 3), "transpose", "out of range");
}

TEST(TensorViews, NarrowSelectSlice) {
  const Tensor t = iota({3, 4});
  const Tensor n = t.narrow(1, 1, 2);
  EXPECT_EQ(n.shape(), (Shape{3, 2}));
  EXPECT_EQ(n.offset(), 1);
  EXPECT_EQ(values(n), (V{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(values(t.narrow(0, 2, 1)), (V{8, 9, 10, 11}));
  EXPECT_EQ(t.narrow(0, 3, 0).numel(), 0);
  EXPECT_EXADNN_ERROR(t.narrow(1, 3, 2), "narrow", "out of bounds");
  EXPECT_EXADNN_ERROR(t.narrow(0, -1, 1), "narrow", "out of bounds");
  EXPECT_EQ(values(t.select(0, 1)), (V{4, 5, 6, 7}));
  EXPECT_EQ(values(t.select(1, -1)), (V{3, 7, 11}));
  EXPECT_EQ(values(t[-1]), (V{8, 9, 10, 11}));
  EXPECT_EQ(t.select(1, 0).shape(), (Shape{3}));
  EXPECT_EXADNN_ERROR(t.select(0, 3), "select", "index 3 is out of range");
  EXPECT_EXADNN_ERROR(t.select(0, -4), "select", "out of range");
  const Tensor r = iota({10});
  EXPECT_EQ(values(r.slice(0, 1, 8, 3)), (V{1, 4, 7}));
  EXPECT_EQ(r.slice(0, 1, 8, 3).strides(), (Strides{3}));
  EXPECT_EQ(values(r.slice(0, 0, 10, 4)), (V{0, 4, 8}));
  EXPECT_EQ(values(r.slice(0, -3, 10)), (V{7, 8, 9}));
  EXPECT_EQ(values(r.slice(0, 2, -5)), (V{2, 3, 4}));
  EXPECT_EQ(values(r.slice(0, 8, 100)), (V{8, 9}));  // clamped like Python
  EXPECT_EQ(r.slice(0, 6, 3).numel(), 0);
  EXPECT_EQ(values(t.slice(1, 0, 4, 2)), (V{0, 2, 4, 6, 8, 10}));
  EXPECT_EXADNN_ERROR(r.slice(0, 0, 5, 0), "slice", "step must be positive");
  EXPECT_EXADNN_ERROR(r.slice(0, 0, 5, -1), "slice", "step must be positive");
}

TEST(TensorViews, SqueezeUnsqueeze) {
  const Tensor t = zeros({1, 3, 1, 2});
  EXPECT_EQ(t.squeeze().shape(), (Shape{3, 2}));
  EXPECT_EQ(t.squeeze(0).shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(t.squeeze(-2).shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(t.squeeze(1).shape(), t.shape());  // not size 1: unchanged
  EXPECT_EQ(zeros({1, 1}).squeeze().shape(), Shape{});
  EXPECT_EXADNN_ERROR(t.squeeze(4), "squeeze", "out of range");
  const Tensor v = iota({2, 3});
  EXPECT_EQ(v.unsqueeze(0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(v.unsqueeze(1).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(v.unsqueeze(2).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(v.unsqueeze(-1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(v.unsqueeze(-3).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(values(v.unsqueeze(1)), values(v));
  EXPECT_EQ(scalar_tensor(1.0).unsqueeze(0).shape(), (Shape{1}));
  EXPECT_EXADNN_ERROR(v.unsqueeze(3), "unsqueeze", "out of range");
  EXPECT_EXADNN_ERROR(v.unsqueeze(-4), "unsqueeze", "out of range");
}

TEST(TensorViews, ExpandBroadcasts) {
  const Tensor c = iota({3, 1});
  const Tensor e = c.expand({2, 3, 4});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(e.strides()[0], 0);
  EXPECT_EQ(e.strides()[2], 0);
  EXPECT_TRUE(e.shares_storage_with(c));
  V expected;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 4; ++k) expected.push_back(i);
  EXPECT_EQ(values(e), expected);
  EXPECT_EQ(c.expand({-1, 5}).shape(), (Shape{3, 5}));
  EXPECT_EQ(c.expand({3, 1}).shape(), c.shape());
  EXPECT_EQ(scalar_tensor(7.0).expand({2, 2}).shape(), (Shape{2, 2}));
  EXPECT_EQ(values(scalar_tensor(7.0).expand({2, 2})), (V{7, 7, 7, 7}));
  EXPECT_EXADNN_ERROR(c.expand({4, 4}), "expand", "cannot expand shape [3, 1] to [4, 4]");
  EXPECT_EXADNN_ERROR(c.expand({3}), "expand", "fewer dimensions");
  EXPECT_EXADNN_ERROR(c.expand({-1, 3, 1}), "expand", "-1");
  // Materialising an expanded view gives a dense copy.
  const Tensor dense = e.contiguous();
  EXPECT_TRUE(dense.is_contiguous());
  EXPECT_FALSE(dense.shares_storage_with(c));
  EXPECT_EQ(values(dense), expected);
}

TEST(TensorViews, Flatten) {
  const Tensor t = iota({2, 3, 4});
  EXPECT_EQ(t.flatten().shape(), (Shape{24}));
  EXPECT_EQ(t.flatten(1).shape(), (Shape{2, 12}));
  EXPECT_EQ(t.flatten(0, 1).shape(), (Shape{6, 4}));
  EXPECT_EQ(t.flatten(-2, -1).shape(), (Shape{2, 12}));
  EXPECT_EQ(t.flatten(1, 1).shape(), t.shape());
  EXPECT_EQ(scalar_tensor(3.0).flatten().shape(), (Shape{1}));
  EXPECT_EQ(values(t.transpose(0, 2).flatten()), values(t.transpose(0, 2).contiguous()));
  EXPECT_EXADNN_ERROR(t.flatten(2, 1), "flatten", "start_dim");
}

TEST(TensorViews, ContiguousAndClone) {
  const Tensor t = iota({2, 3});
  EXPECT_TRUE(t.contiguous().shares_storage_with(t));  // already packed: no copy
  const Tensor tr = t.t();
  const Tensor packed = tr.contiguous();
  EXPECT_TRUE(packed.is_contiguous());
  EXPECT_FALSE(packed.shares_storage_with(tr));
  EXPECT_EQ(packed.strides(), (Strides{2, 1}));
  EXPECT_EQ(values(packed), values(tr));
  const Tensor c = tr.clone();
  EXPECT_FALSE(c.shares_storage_with(t));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(values(c), (V{0, 3, 1, 4, 2, 5}));
  c.data<float>()[0] = 100.0f;  // the clone is independent of the original
  EXPECT_EQ(values(t)[0], 0.0);
  for (DType d : {DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::u8}) {
    const Tensor x = t.to(d).t();
    EXPECT_EQ(values(x.clone()), (V{0, 3, 1, 4, 2, 5})) << dtype_name(d);
    EXPECT_EQ(x.contiguous().dtype(), d);
  }
  // Writes through a strided view land in the right place of the base.
  const Tensor base = zeros({3, 4});
  base.narrow(1, 1, 2).select(0, 1).data<float>()[0] = 9.0f;  // element [1][1] of the base
  EXPECT_EQ(values(base), (V{0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0}));
}

TEST(TensorViews, AxisZeroOfAZeroDimTensor) {
  const Tensor s = scalar_tensor(5.0);
  EXPECT_EQ(s.squeeze(0).dim(), 0);
  EXPECT_EQ(s.squeeze(-1).dim(), 0);
  EXPECT_EQ(s.unsqueeze(0).shape(), (Shape{1}));
  EXPECT_EXADNN_ERROR(s.select(0, 0), "select", "out of range");
  EXPECT_EXADNN_ERROR(s.narrow(0, 0, 1), "narrow", "out of range");
  // Regression: axis 0 of a 0-d tensor used to pass normalize_axis, and these then read the
  // empty shape (size(0) returned garbage, transpose(0, 0) crashed).
  EXPECT_EXADNN_ERROR(s.size(0), "size", "out of range");
  EXPECT_EXADNN_ERROR(s.slice(0, 1, 2), "slice", "out of range");
  const Tensor t = s.transpose(0, 0);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.item<double>(), 5.0);
}
