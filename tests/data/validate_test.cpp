// Load-time data checks: empty datasets, non-finite values and class labels out of range, each
// an Error naming the source and the position.
#include <cmath>
#include <memory>

#include "exadnn/data/subset.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/data/validate.h"
#include "testing.h"

namespace exadnn::data {
namespace {

TensorDataset with_labels(const std::vector<int64_t>& labels) {
  const auto n = static_cast<int64_t>(labels.size());
  return TensorDataset(zeros({n, 2}), from_vector<int64_t>(labels));
}

TEST(CheckClassLabels, AcceptsLabelsInRange) {
  check_class_labels(with_labels({0, 9, 3}), 10, "train.csv");
  check_class_labels(TensorDataset(zeros({2, 1}), from_vector<double>({1, 0}).to(DType::u8)), 2,
                     "y.idx");
}

TEST(CheckClassLabels, NamesTheSourceExampleAndLabel) {
  EXPECT_EXADNN_ERROR(check_class_labels(with_labels({0, 9, 10, 3}), 10, "train.csv"),
                      "train.csv: example 2 has label 10, outside the 10 classes [0, 9]");
  EXPECT_EXADNN_ERROR(check_class_labels(with_labels({0, -1}), 10, "test.csv"),
                      "test.csv: example 1 has label -1");
  // Past the first chunk of examples read at a time.
  std::vector<int64_t> many(20000, 1);
  many[19999] = 5;
  EXPECT_EXADNN_ERROR(check_class_labels(with_labels(many), 5, "big"),
                      "big: example 19999 has label 5");
  // Through a Subset: the subset's own numbering.
  const auto base = std::make_shared<TensorDataset>(with_labels({0, 7, 1}));
  EXPECT_EXADNN_ERROR(check_class_labels(Subset(base, {2, 1}), 3, "split"),
                      "split: example 1 has label 7");
}

TEST(CheckClassLabels, TargetsMustBeIntegerScalars) {
  EXPECT_EXADNN_ERROR(
      check_class_labels(TensorDataset(zeros({2, 1}), zeros({2})), 10, "regression.h5"),
      "regression.h5: the targets are f32 [] per example, not class indices");
  EXPECT_EXADNN_ERROR(
      check_class_labels(TensorDataset(zeros({2, 1}), zeros({2, 3}, DType::i64)), 10, "onehot.h5"),
      "the targets are i64 [3] per example");
  EXPECT_EXADNN_ERROR(check_class_labels(with_labels({0}), 0, "x"), "x: 0 classes");
}

TEST(CheckNotEmpty, NamesTheSource) {
  check_not_empty(with_labels({1}), "train.csv");
  EXPECT_EXADNN_ERROR(check_not_empty(with_labels({}), "train.csv"), "train.csv: no examples");
}

TEST(CheckFinite, NamesTheSourceAndIndex) {
  check_finite(from_vector<double>({1, 2}), "f", "x");
  check_finite(from_vector<int64_t>({1, 2}), "f", "x");
  Tensor t = zeros({2, 3});
  t.data<float>()[4] = NAN;
  EXPECT_EXADNN_ERROR(check_finite(t, "data.h5", "dataset 'x'"),
                      "data.h5: dataset 'x' holds nan at index [1, 1]");
  EXPECT_EXADNN_ERROR(check_finite(t.to(DType::bf16), "f", "x"), "holds nan at index [1, 1]");
  Tensor d = zeros({3}, DType::f64);
  d.data<double>()[2] = -INFINITY;
  EXPECT_EXADNN_ERROR(check_finite(d, "f", "x"), "holds -inf at index [2]");
}

}  // namespace
}  // namespace exadnn::data
