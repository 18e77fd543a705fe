// Batch transforms: normalise values, crop and flip correctness on tiny images, reproducibility.
#include <set>

#include "exadnn/data/transforms.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::values;

// x[n, c, i, j] = 1 + 100 n + 10 i + j + 1000 c  (no zeros, so padding is recognisable).
Tensor tiny_images(int64_t n, int64_t c, int64_t h, int64_t w, DType dtype = DType::f32) {
  std::vector<double> v;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) v.push_back(1 + 100 * a + 10 * i + j + 1000 * ch);
  return from_vector(v, {n, c, h, w}, dtype);
}

TEST(Normalize, PerChannelValues) {
  const Tensor x = from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});  // [B, C, 2]
  Generator gen;
  const Tensor y = Normalize({1.0, 2.0}, {2.0, 4.0})(x, gen);
  EXPECT_EQ(y.dtype(), DType::f32);
  EXPECT_EQ(values(y), (std::vector<double>{0, 0.5, 0.25, 0.5, 2, 2.5, 1.25, 1.5}));
  EXPECT_EQ(values(x)[0], 1.0);  // input untouched
  // One value for every channel; f64 stays f64.
  const Tensor y64 = Normalize({1.0}, {2.0}).apply(x.to(DType::f64), gen);
  EXPECT_EQ(y64.dtype(), DType::f64);
  EXPECT_EQ(values(y64), (std::vector<double>{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5}));
}

TEST(Normalize, U8PixelsWithScale) {
  std::vector<uint8_t> px(256);
  for (int i = 0; i < 256; ++i) px[i] = static_cast<uint8_t>(i);
  const Tensor x = from_vector(px, {1, 1, 16, 16});
  Generator gen;
  const Tensor y = Normalize({0.5}, {0.25}, 1.0 / 255.0).apply(x, gen);
  const auto v = values(y);
  ASSERT_EQ(v.size(), 256u);
  for (int i = 0; i < 256; ++i) EXPECT_NEAR(v[i], (i / 255.0 - 0.5) / 0.25, 1e-6) << i;
  // ToFloat: exactly the f32 division pixel / 255 that image pipelines use.
  const auto f = values(ToFloat().apply(x, gen));
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(static_cast<float>(f[i]), static_cast<float>(i) / 255.0f) << i;
}

// u8 pixels to f32 (the vectorised path) give the f64 path's values rounded once to f32, for
// odd sizes (the vector loop's remainders) and per-channel means and deviations.
TEST(Normalize, U8ToF32IsTheF64ValueRoundedOnce) {
  std::vector<uint8_t> px(3 * 2 * 7 * 5);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  const Tensor x = from_vector(px, {3, 2, 7, 5});
  Generator gen;
  const Normalize norm({0.3, 0.6}, {0.2, 0.45}, 1.0 / 255.0);
  const auto y32 = values(norm.apply(x, gen));
  const auto y64 = values(norm.apply(x.to(DType::f64), gen));
  ASSERT_EQ(y32.size(), y64.size());
  for (size_t i = 0; i < y32.size(); ++i)
    EXPECT_EQ(y32[i], static_cast<double>(static_cast<float>(y64[i]))) << i;
}

TEST(Normalize, Errors) {
  EXPECT_EXADNN_ERROR(Normalize({0.0, 1.0}, {1.0}), "Normalize", "as many std");
  EXPECT_EXADNN_ERROR(Normalize({0.0}, {0.0}), "std values must be > 0");
  Generator gen;
  EXPECT_EXADNN_ERROR(Normalize({0, 0, 0}, {1, 1, 1}).apply(zeros({2, 2, 4, 4}), gen),
                      "3 channel values", "2 channels");
  EXPECT_EXADNN_ERROR(Normalize({0}, {1}).apply(zeros({4}), gen), "[B, C, ...]");
}

TEST(RandomCrop, WithoutPaddingSameSizeIsIdentity) {
  const Tensor x = tiny_images(3, 2, 4, 5);
  Generator gen(9);
  EXPECT_EQ(values(RandomCrop(4, 5, 0).apply(x, gen)), values(x));
}

TEST(RandomCrop, EveryWindowIsAShiftedCopyWithZeroPadding) {
  // Padding 2 around 3x3 images, 3x3 windows: 25 possible offsets per example.
  const int64_t n = 64, h = 3, w = 3, p = 2;
  const Tensor x = tiny_images(n, 2, h, w, DType::i32);
  Generator gen(5);
  const Tensor y = RandomCrop(3, 3, p).apply(x, gen);
  ASSERT_EQ(y.shape(), (Shape{n, 2, 3, 3}));
  EXPECT_EQ(y.dtype(), DType::i32);
  const auto v = values(y);
  std::set<std::pair<int64_t, int64_t>> offsets;
  for (int64_t a = 0; a < n; ++a) {
    // Find the offset (dy, dx) in [-p, p] that explains this example; both channels agree.
    int matches = 0;
    for (int64_t dy = -p; dy <= p; ++dy)
      for (int64_t dx = -p; dx <= p; ++dx) {
        bool ok = true;
        for (int64_t c = 0; c < 2 && ok; ++c)
          for (int64_t i = 0; i < 3 && ok; ++i)
            for (int64_t j = 0; j < 3 && ok; ++j) {
              const int64_t si = i + dy, sj = j + dx;
              const double want = (si < 0 || si >= h || sj < 0 || sj >= w)
                                      ? 0.0
                                      : 1 + 100 * a + 10 * si + sj + 1000 * c;
              ok = v[((a * 2 + c) * 3 + i) * 3 + j] == want;
            }
        if (ok) {
          ++matches;
          offsets.insert({dy, dx});
        }
      }
    EXPECT_EQ(matches, 1) << "example " << a;
  }
  EXPECT_GT(offsets.size(), 10u);  // the offsets are spread out, not one fixed shift
}

TEST(RandomCrop, ReproducibleFromTheGeneratorState) {
  const Tensor x = tiny_images(8, 1, 6, 6);
  Generator g1(11), g2(11), g3(12);
  const RandomCrop crop(4, 4, 1);
  const auto a = values(crop.apply(x, g1));
  EXPECT_EQ(a, values(crop.apply(x, g2)));
  EXPECT_NE(a, values(crop.apply(x, g3)));
  EXPECT_NE(a, values(crop.apply(x, g1)));  // the generator advanced
}

TEST(RandomCrop, Errors) {
  Generator gen;
  EXPECT_EXADNN_ERROR(RandomCrop(0, 2), "RandomCrop", "positive window");
  EXPECT_EXADNN_ERROR(RandomCrop(8, 8, 1).apply(zeros({1, 1, 5, 5}), gen), "8x8 window",
                      "5x5 images padded by 1");
  EXPECT_EXADNN_ERROR(RandomCrop(2).apply(zeros({1, 5, 5}), gen), "[B, C, H, W]");
}

TEST(RandomHorizontalFlip, MirrorsChosenExamples) {
  const Tensor x = tiny_images(40, 2, 2, 3, DType::u8);  // wraps, but rows stay distinct
  const Tensor xf = tiny_images(40, 2, 2, 3, DType::f64);
  Generator g1(3), g2(3);
  const auto flipped = values(RandomHorizontalFlip(0.5).apply(xf, g1));
  const auto orig = values(xf);
  int count = 0;
  for (int64_t a = 0; a < 40; ++a) {
    const size_t base = static_cast<size_t>(a) * 12;
    const bool same =
        std::equal(orig.begin() + base, orig.begin() + base + 12, flipped.begin() + base);
    bool mirrored = true;
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < 3; ++j)
        mirrored &= flipped[base + r * 3 + j] == orig[base + r * 3 + (2 - j)];
    EXPECT_TRUE(same != mirrored) << "example " << a;
    count += mirrored;
  }
  EXPECT_GT(count, 5);
  EXPECT_LT(count, 35);
  // Same generator state, same choices, whatever the dtype.
  const auto flipped_u8 = values(RandomHorizontalFlip(0.5).apply(x, g2));
  const auto orig_u8 = values(x);
  for (size_t i = 0; i < orig.size(); ++i) {
    const size_t a = i / 12, r = (i % 12) / 3, j = i % 3;
    const bool was_flipped =
        flipped[i] != orig[i] || flipped[a * 12 + r * 3] != orig[a * 12 + r * 3];
    const size_t src = was_flipped ? a * 12 + r * 3 + (2 - j) : i;
    EXPECT_EQ(flipped_u8[i], orig_u8[src]);
  }
}

TEST(RandomHorizontalFlip, ProbabilityZeroAndOne) {
  const Tensor x = tiny_images(4, 1, 2, 3);
  Generator gen;
  EXPECT_EQ(values(RandomHorizontalFlip(0.0).apply(x, gen)), values(x));
  EXPECT_EQ(values(RandomHorizontalFlip(1.0).apply(x, gen)),
            (std::vector<double>{3,   2,   1,   13,  12,  11,  103, 102, 101, 113, 112, 111,
                                 203, 202, 201, 213, 212, 211, 303, 302, 301, 313, 312, 311}));
  EXPECT_EXADNN_ERROR(RandomHorizontalFlip(1.5), "p must be in [0, 1]");
}

TEST(Compose, AppliesInOrder) {
  const Tensor x = tiny_images(2, 1, 2, 2);
  Generator gen;
  const Compose pipeline(
      {std::make_shared<RandomHorizontalFlip>(1.0),
       std::make_shared<Normalize>(std::vector<double>{1.0}, std::vector<double>{2.0})});
  EXPECT_EQ(values(pipeline(x, gen)), (std::vector<double>{0.5, 0, 5.5, 5, 50.5, 50, 55.5, 55}));
}

}  // namespace
}  // namespace exadnn::data
