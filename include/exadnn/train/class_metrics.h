// Per-class figures of a classifier on a labelled set: the confusion matrix, precision, recall
// and F1 of each class, macro-F1, top-1 and top-k accuracy; and the confusion matrix as a PNG.
// The Trainer writes them into --metrics-out (TrainOptions::metrics_out) for classification runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/core/device.h"
#include "exadnn/core/tensor.h"
#include "exadnn/nn/module.h"
#include "exadnn/train/datasets.h"

namespace exadnn::train {

/// Accumulates predictions batch by batch.
///
/// Conventions: the prediction is the first largest score; a label counts as within the top k
/// when fewer than k scores are strictly larger than its own; precision of a class never
/// predicted and recall of a class with no example are 0; macro-F1 is the mean F1 over the
/// classes that occur as a label or as a prediction (scikit-learn's `average="macro"`).
class ClassMetrics {
 public:
  /// `classes` >= 1; k is clamped to [1, classes].
  explicit ClassMetrics(int64_t classes, int64_t k = 5);
  /// Adds scores [B, classes] (logits or probabilities) against labels [B] (integer, each in
  /// [0, classes); an Error names a label outside or a shape that does not match).
  void add(const Tensor& scores, const Tensor& labels);

  int64_t classes() const { return classes_; }
  int64_t k() const { return k_; }
  int64_t total() const { return total_; }
  /// Examples of class `truth` predicted as `predicted`.
  int64_t confusion(int64_t truth, int64_t predicted) const {
    return confusion_[static_cast<size_t>(truth * classes_ + predicted)];
  }
  int64_t support(int64_t c) const;    ///< examples labelled c
  int64_t predicted(int64_t c) const;  ///< examples predicted as c
  double precision(int64_t c) const;
  double recall(int64_t c) const;
  double f1(int64_t c) const;
  double macro_f1() const;
  double top1() const;
  double topk() const;  ///< top-k accuracy, k = k()

  /// Names the classes in label order (one per class, else an Error naming both counts); the
  /// JSON metrics and the confusion matrix then show them.
  void name_classes(std::vector<std::string> names);
  bool named() const { return !names_.empty(); }
  /// Class c's name, or its number when the classes are not named.
  std::string name(int64_t c) const;

 private:
  int64_t classes_, k_;
  std::vector<std::string> names_;
  int64_t total_ = 0, top1_ = 0, topk_ = 0;
  std::vector<int64_t> confusion_;  // [classes, classes], row = label, column = prediction
};

/// The metrics of `model` on data.test (evaluation mode, no gradients, batches of batch_size).
ClassMetrics evaluate_classes(nn::Module& model, const TrainingData& data, int64_t batch_size,
                              int64_t classes, Device device = Device::cpu());

/// Writes the confusion matrix as a PNG heat map drawn with PLplot (io/plot_page.h): row = label
/// (class 0 at the top), column = prediction (class 0 at the left), the colour of each cell the
/// fraction of its row (white 0, dark blue 1; a class without examples is white), with a grey grid
/// between cells of 6 pixels or more, each cell's fraction written in it when cells are 36 pixels
/// or more, every class numbered up to 20 classes, a colour bar, and the test set's size and top-1
/// accuracy in the title. Named classes (ClassMetrics::name_classes) are labelled with their
/// names instead, the columns' written upwards, while a cell is 16 pixels or more (up to 56
/// classes). The matrix is confusion_png_side(classes) pixels square,
/// the page confusion_png_margins(metrics) wider and taller. An Error names the file when it
/// cannot be written.
void write_confusion_png(const std::string& path, const ClassMetrics& metrics);

/// The side of write_confusion_png's matrix in pixels: 48 per class, within 360 .. 900.
int confusion_png_side(int64_t classes);

/// The pixels write_confusion_png's page adds to the matrix's side: 250 in width and 150 in
/// height for classes labelled by number; more, by the longest label, for named classes.
struct ConfusionMargins {
  int left, right, bottom, top;
  int width() const { return left + right; }
  int height() const { return bottom + top; }
};
ConfusionMargins confusion_png_margins(const ClassMetrics& metrics);

}  // namespace exadnn::train
