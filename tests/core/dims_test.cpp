// Tests Dims/Shape: construction, editing, numel, str, contiguous_strides, normalize_axis, rank
// limit.
#include <sstream>
#include <vector>

#include "testing.h"

using namespace exadnn;

TEST(Dims, ConstructionAndAccess) {
  const Shape s{2, 3, 4};
  EXPECT_EQ(s.size(), 3);
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s[0], 2);
  EXPECT_EQ(s[2], 4);
  EXPECT_EQ(s.back(), 4);
  EXPECT_EQ(s.vec(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Shape(std::vector<int64_t>{2, 3, 4}), s);
  EXPECT_TRUE(Shape().empty());
  EXPECT_EQ(Shape().size(), 0);
  EXPECT_EQ(Dims::filled(3, 7), (Dims{7, 7, 7}));
  std::vector<int64_t> seen(s.begin(), s.end());
  EXPECT_EQ(seen, s.vec());
}

TEST(Dims, Editing) {
  Shape s{2, 3};
  s.push_back(5);
  EXPECT_EQ(s, (Shape{2, 3, 5}));
  s.insert(0, 9);
  EXPECT_EQ(s, (Shape{9, 2, 3, 5}));
  s.insert(2, 8);
  EXPECT_EQ(s, (Shape{9, 2, 8, 3, 5}));
  s.insert(s.size(), 1);
  EXPECT_EQ(s, (Shape{9, 2, 8, 3, 5, 1}));
  s.erase(0);
  EXPECT_EQ(s, (Shape{2, 8, 3, 5, 1}));
  s.erase(4);
  EXPECT_EQ(s, (Shape{2, 8, 3, 5}));
  s.resize(2);
  EXPECT_EQ(s, (Shape{2, 8}));
  s.resize(4, 6);
  EXPECT_EQ(s, (Shape{2, 8, 6, 6}));
  s[1] = 4;
  EXPECT_EQ(s[1], 4);
}

TEST(Dims, Equality) {
  EXPECT_EQ((Shape{1, 2}), (Shape{1, 2}));
  EXPECT_NE((Shape{1, 2}), (Shape{2, 1}));
  EXPECT_NE((Shape{1, 2}), (Shape{1, 2, 1}));
  EXPECT_NE(Shape{}, (Shape{1}));
  Shape a{1, 2, 3};
  a.resize(2);
  EXPECT_EQ(a, (Shape{1, 2}));  // stale values past size() do not matter
}

TEST(Dims, Numel) {
  EXPECT_EQ(Shape{}.numel(), 1);
  EXPECT_EQ((Shape{5}).numel(), 5);
  EXPECT_EQ((Shape{2, 3, 4}).numel(), 24);
  EXPECT_EQ((Shape{2, 0, 4}).numel(), 0);
  EXPECT_EQ((Shape{1LL << 20, 1LL << 20}).numel(), 1LL << 40);
}

TEST(Dims, Str) {
  EXPECT_EQ((Shape{2, 3, 4}).str(), "[2, 3, 4]");
  EXPECT_EQ(Shape{}.str(), "[]");
  EXPECT_EQ((Shape{7}).str(), "[7]");
  EXPECT_EQ((Shape{-1, 0}).str(), "[-1, 0]");
  std::ostringstream os;
  os << Shape{1, 2};
  EXPECT_EQ(os.str(), "[1, 2]");
}

TEST(Dims, ContiguousStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({5}), (Strides{1}));
  EXPECT_EQ(contiguous_strides({}), Strides{});
  EXPECT_EQ(contiguous_strides({3, 1, 2}), (Strides{2, 2, 1}));
  EXPECT_EQ(contiguous_strides({2, 0, 3}), (Strides{3, 3, 1}));  // zero extents act as 1
  // Generic rule: stride[i] = product of the later extents.
  const Shape s{2, 3, 4, 5, 6};
  const Strides st = contiguous_strides(s);
  int64_t expected = 1;
  for (int64_t i = s.size() - 1; i >= 0; --i) {
    EXPECT_EQ(st[i], expected);
    expected *= s[i];
  }
}

TEST(Dims, NormalizeAxis) {
  EXPECT_EQ(normalize_axis(0, 3, "op"), 0);
  EXPECT_EQ(normalize_axis(2, 3, "op"), 2);
  EXPECT_EQ(normalize_axis(-1, 3, "op"), 2);
  EXPECT_EQ(normalize_axis(-3, 3, "op"), 0);
  EXPECT_EXADNN_ERROR(normalize_axis(0, 0, "op"), "op",
                      "out of range");  // a 0-d tensor has no axes
  check_scalar_axis(0, "sum");          // ... but scalar-friendly ops accept 0 and -1
  check_scalar_axis(-1, "sum");
  EXPECT_EXADNN_ERROR(check_scalar_axis(1, "sum"), "sum", "out of range");
  EXPECT_EXADNN_ERROR(normalize_axis(3, 3, "myop"), "myop", "out of range", "3");
  EXPECT_EXADNN_ERROR(normalize_axis(-4, 3, "myop"), "myop", "out of range", "-4");
  EXPECT_EXADNN_ERROR(normalize_axis(1, 0, "sum"), "sum", "out of range");
  EXPECT_EXADNN_ERROR(normalize_axis(-2, 0, "sum"), "out of range");
}

TEST(Dims, MoreThanTwelveDimsFails) {
  EXPECT_EQ(kMaxDims, 12);
  const std::vector<int64_t> twelve(12, 1), thirteen(13, 1);
  EXPECT_EQ(Dims(twelve).size(), 12);
  EXPECT_EXADNN_ERROR(Dims{thirteen}, "at most 12 dimensions", "13");
  EXPECT_EXADNN_ERROR((Dims{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), "at most 12");
  EXPECT_EXADNN_ERROR(Dims::filled(13, 1), "at most 12");
  Dims d(twelve);
  EXPECT_EXADNN_ERROR(d.push_back(1), "at most 12");
  EXPECT_EXADNN_ERROR(d.insert(0, 1), "at most 12");
  EXPECT_EXADNN_ERROR(d.resize(13), "at most 12");
  EXPECT_EQ(d.size(), 12);  // unchanged by the failed edits
  // Tensors are bounded too.
  EXPECT_EXADNN_ERROR(zeros(Shape(twelve)).unsqueeze(0), "at most 12");
}
