// ClassMetrics: the confusion matrix and the figures derived from it.
#include "exadnn/train/class_metrics.h"

#include <algorithm>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/core/error.h"
#include "exadnn/data/data_loader.h"

namespace exadnn::train {
namespace {
constexpr const char* kWhere = "ClassMetrics";
double ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}
}  // namespace

ClassMetrics::ClassMetrics(int64_t classes, int64_t k)
    : classes_(classes), k_(std::clamp<int64_t>(k, 1, std::max<int64_t>(classes, 1))) {
  EXADNN_CHECK(classes >= 1, kWhere, classes, " classes: at least one is needed");
  confusion_.assign(static_cast<size_t>(classes * classes), 0);
}

void ClassMetrics::add(const Tensor& scores_in, const Tensor& labels_in) {
  EXADNN_CHECK(scores_in.dim() == 2 && scores_in.size(1) == classes_ && labels_in.dim() == 1 &&
                   labels_in.size(0) == scores_in.size(0),
               kWhere, "takes scores [B, ", classes_, "] and labels [B], got ", scores_in.shape(),
               " and ", labels_in.shape());
  const Tensor scores = scores_in.to(Device::cpu()).to(DType::f64).contiguous();
  const Tensor labels = labels_in.to(Device::cpu()).to(DType::i64).contiguous();
  const double* s = scores.data<double>();
  const int64_t* y = labels.data<int64_t>();
  for (int64_t i = 0; i < scores.size(0); ++i) {
    const double* row = s + i * classes_;
    const int64_t label = y[i];
    EXADNN_CHECK(label >= 0 && label < classes_, kWhere, "example ", total_, " has label ", label,
                 ", outside the ", classes_, " classes");
    const int64_t best = std::max_element(row, row + classes_) - row;  // the first largest
    const int64_t above =
        std::count_if(row, row + classes_, [&](double v) { return v > row[label]; });
    ++confusion_[static_cast<size_t>(label * classes_ + best)];
    top1_ += best == label;
    topk_ += above < k_;
    ++total_;
  }
}

int64_t ClassMetrics::support(int64_t c) const {
  int64_t n = 0;
  for (int64_t p = 0; p < classes_; ++p) n += confusion(c, p);
  return n;
}
int64_t ClassMetrics::predicted(int64_t c) const {
  int64_t n = 0;
  for (int64_t t = 0; t < classes_; ++t) n += confusion(t, c);
  return n;
}
double ClassMetrics::precision(int64_t c) const {
  return ratio(confusion(c, c), predicted(c));
}
double ClassMetrics::recall(int64_t c) const {
  return ratio(confusion(c, c), support(c));
}
double ClassMetrics::f1(int64_t c) const {
  // 2·TP / (2·TP + FP + FN), 0 when the class never occurs nor is predicted.
  return ratio(2 * confusion(c, c), support(c) + predicted(c));
}
double ClassMetrics::macro_f1() const {
  double sum = 0;
  int64_t counted = 0;
  for (int64_t c = 0; c < classes_; ++c)
    if (support(c) + predicted(c) > 0) {
      sum += f1(c);
      ++counted;
    }
  return counted > 0 ? sum / static_cast<double>(counted) : 0.0;
}
double ClassMetrics::top1() const {
  return ratio(top1_, total_);
}
double ClassMetrics::topk() const {
  return ratio(topk_, total_);
}

void ClassMetrics::name_classes(std::vector<std::string> names) {
  EXADNN_CHECK(static_cast<int64_t>(names.size()) == classes_, kWhere, names.size(),
               " class names for ", classes_, " classes");
  names_ = std::move(names);
}

std::string ClassMetrics::name(int64_t c) const {
  EXADNN_CHECK(c >= 0 && c < classes_, kWhere, "class ", c, " outside the ", classes_, " classes");
  return names_.empty() ? std::to_string(c) : names_[static_cast<size_t>(c)];
}

ClassMetrics evaluate_classes(nn::Module& model, const TrainingData& data, int64_t batch_size,
                              int64_t classes, Device device) {
  ClassMetrics metrics(classes);
  EXADNN_CHECK(data.test != nullptr, kWhere, "there is no test set to score");
  NoGradGuard no_grad;
  model.eval();
  data::DataLoader loader(
      data.test,
      data::DataLoaderOptions().batch_size(batch_size).shuffle(false).transform(data.transform));
  for (const data::Batch& batch : loader)
    metrics.add(model.forward(batch.inputs.to(device)), batch.targets);
  model.train();
  return metrics;
}

}  // namespace exadnn::train
