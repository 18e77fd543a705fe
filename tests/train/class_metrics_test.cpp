// train::ClassMetrics against a hand-made prediction set (confusion matrix, precision, recall,
// F1, macro-F1, top-1 and top-k worked out by hand), and the confusion matrix's PNG.
#include "exadnn/train/class_metrics.h"

#include "exadnn/exadnn.h"
#include "png_pixels.h"
#include "scratch_dir.h"
#include "testing.h"

using namespace exadnn;

namespace {
// 6 examples of classes 0..2 (a 4th class never occurs nor is predicted), k = 2:
//   label 0 [.7 .2 .1] -> 0          label 1 [.6 .3 .1] -> 0 (label 2nd: top-2)
//   label 0 [.2 .5 .3] -> 1 (3rd)    label 2 [.1 .3 .6] -> 2
//   label 1 [.1 .8 .1] -> 1          label 2 [.3 .4 .3] -> 1 (tied 2nd: top-2)
train::ClassMetrics hand_set() {
  train::ClassMetrics m(4, 2);
  m.add(from_vector<double>({.7, .2, .1, -1, .2, .5, .3, -1, .1, .8, .1, -1}, {3, 4}),
        from_vector<int64_t>({0, 0, 1}, {3}));
  m.add(from_vector<float>({.6f, .3f, .1f, -1, .1f, .3f, .6f, -1, .3f, .4f, .3f, -1}, {3, 4}),
        from_vector<int64_t>({1, 2, 2}, {3}));
  return m;
}
}  // namespace

TEST(ClassMetrics, HandMadePredictions) {
  const train::ClassMetrics m = hand_set();
  EXPECT_EQ(m.total(), 6);
  const int64_t confusion[4][4] = {{1, 1, 0, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 0, 0}};
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t p = 0; p < 4; ++p) EXPECT_EQ(m.confusion(t, p), confusion[t][p]) << t << p;
  EXPECT_DOUBLE_EQ(m.top1(), 3.0 / 6);
  EXPECT_EQ(m.k(), 2);
  EXPECT_DOUBLE_EQ(m.topk(), 5.0 / 6);
  // class 0: TP 1, 2 labelled, 2 predicted; class 1: 2 labelled, 3 predicted; class 2: 1.
  EXPECT_DOUBLE_EQ(m.precision(0), 0.5);
  EXPECT_DOUBLE_EQ(m.recall(0), 0.5);
  EXPECT_DOUBLE_EQ(m.f1(0), 0.5);
  EXPECT_DOUBLE_EQ(m.precision(1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(m.recall(1), 0.5);
  EXPECT_DOUBLE_EQ(m.f1(1), 0.4);
  EXPECT_DOUBLE_EQ(m.precision(2), 1.0);
  EXPECT_DOUBLE_EQ(m.f1(2), 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.f1(3), 0.0);
  EXPECT_DOUBLE_EQ(m.macro_f1(), (0.5 + 0.4 + 2.0 / 3) / 3);  // class 3 left out
}

TEST(ClassMetrics, KIsClampedAndPerfectPredictionsScoreOne) {
  train::ClassMetrics m(3);  // k = 5 clamped to 3
  EXPECT_EQ(m.k(), 3);
  m.add(from_vector<float>({3, 1, 0, 0, 2, 1, 0, 0, 9}, {3, 3}),
        from_vector<int64_t>({0, 1, 2}, {3}));
  EXPECT_DOUBLE_EQ(m.top1(), 1.0);
  EXPECT_DOUBLE_EQ(m.topk(), 1.0);
  EXPECT_DOUBLE_EQ(m.macro_f1(), 1.0);
}

TEST(ClassMetrics, BadInputIsAnErrorNamingIt) {
  train::ClassMetrics m(3);
  EXPECT_EXADNN_ERROR(m.add(zeros({2, 3}), from_vector<int64_t>({0, 3}, {2})), "example 1",
                      "label 3");
  EXPECT_EXADNN_ERROR(m.add(zeros({2, 4}), from_vector<int64_t>({0, 1}, {2})), "[B, 3]");
  EXPECT_EXADNN_ERROR(train::ClassMetrics(0), "0 classes");
}

// The PNG: the page's documented size, and the cells' colours. Rows 0, 1 and 2 each put half
// their examples in two columns (6 cells at 0.5); row 3 has no example (white); no cell is 1.
TEST(ClassMetrics, ConfusionPng) {
  const exadnn::testing::ScratchDir dir("exadnn_cm_");
  train::write_confusion_png(dir.file("c.png"), hand_set());
  const exadnn::testing::RgbImage png = exadnn::testing::read_png_rgb(dir.file("c.png"));
  const int side = train::confusion_png_side(4);
  EXPECT_EQ(side, 360);
  EXPECT_EQ(png.width, side + 250);
  EXPECT_EQ(png.height, side + 150);
  // White (0) to dark blue (1), linear: 0.5 is (131.5, 151.5, 181); pixels within 1.5 of a colour.
  const int cell = side / 4, half = png.count_near(131.5, 151.5, 181, 1.5);
  EXPECT_GT(half, 4 * cell * cell);  // most of 6 cells (their numbers take a little)
  EXPECT_LT(half, 7 * cell * cell);
  // Dark blue (1) only in the colour bar: less than a cell's worth.
  EXPECT_LT(png.count_near(8, 48, 107, 1.5), cell * cell / 4);
  EXPECT_EXADNN_ERROR(train::write_confusion_png(dir.file("no/such/dir/c.png"), hand_set()),
                      "no/such/dir/c.png");
}

TEST(ClassMetrics, NamedClassesLabelTheConfusionPng) {
  train::ClassMetrics m = hand_set();
  EXPECT_FALSE(m.named());
  EXPECT_EQ(m.name(2), "2");
  EXPECT_EXADNN_ERROR(m.name_classes({"a", "b"}), "2 class names for 4 classes");
  EXPECT_EXADNN_ERROR(m.name(4), "class 4 outside the 4 classes");
  const train::ConfusionMargins numbers = train::confusion_png_margins(m);
  EXPECT_EQ(numbers.width(), 250);
  EXPECT_EQ(numbers.height(), 150);
  m.name_classes({"T-shirt/top", "Trouser", "a much longer class name", "#4"});
  EXPECT_TRUE(m.named());
  EXPECT_EQ(m.name(0), "T-shirt/top");
  // Room for the longest name (24 characters) left of the rows and below the columns.
  const train::ConfusionMargins names = train::confusion_png_margins(m);
  EXPECT_GT(names.left, numbers.left + 40);
  EXPECT_GT(names.bottom, numbers.bottom + 40);
  EXPECT_EQ(names.right, numbers.right);
  EXPECT_EQ(names.top, numbers.top);

  const exadnn::testing::ScratchDir dir("exadnn_cm_named_");
  train::write_confusion_png(dir.file("named.png"), m);
  const exadnn::testing::RgbImage png = exadnn::testing::read_png_rgb(dir.file("named.png"));
  const int side = train::confusion_png_side(4);
  EXPECT_EQ(png.width, side + names.width());
  EXPECT_EQ(png.height, side + names.height());
  // The same cells as without names: most of 6 cells at 0.5.
  const int cell = side / 4, half = png.count_near(131.5, 151.5, 181, 1.5);
  EXPECT_GT(half, 4 * cell * cell);
  EXPECT_LT(half, 7 * cell * cell);
  // The names are drawn: dark text pixels in the left margin beside the rows, and below the
  // matrix under the columns (the page's text colour is (40, 40, 40)).
  int left_text = 0, bottom_text = 0;
  for (int y = names.top; y < names.top + side; ++y)
    for (int x = 0; x < names.left - 30; ++x) left_text += png.at(x, y)[0] < 120;
  for (int y = names.top + side + 8; y < png.height - 30; ++y)
    for (int x = names.left; x < names.left + side; ++x) bottom_text += png.at(x, y)[0] < 120;
  EXPECT_GT(left_text, 200);
  EXPECT_GT(bottom_text, 200);
}

// Names fit beside cells of 16 pixels or more: 39 classes (23-pixel cells) are named, 60
// (15-pixel cells) are not, and their page has the margins of numbered classes.
TEST(ClassMetrics, ConfusionPngNamesClassesWhileTheirCellsHoldALineOfText) {
  for (const int64_t classes : {39, 60}) {
    train::ClassMetrics m(classes);
    std::vector<std::string> names;
    for (int64_t c = 0; c < classes; ++c) names.push_back("group " + std::to_string(c + 100));
    m.name_classes(names);
    const train::ConfusionMargins margins = train::confusion_png_margins(m);
    if (classes == 39)
      EXPECT_GT(margins.left, 100) << "room for the names";
    else
      EXPECT_EQ(margins.width(), 250) << "no names beside 15-pixel cells";
  }
}
