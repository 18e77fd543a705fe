#include "metrics_file.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exadnn/backend/runtime.h"
#include "exadnn/core/error.h"

namespace exadnn::train::internal {
namespace {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The per-class figures: top-1, top-k, macro-F1, each class's support, precision, recall and
// F1 (and its name when the classes are named), and the confusion matrix (rows: labels, columns:
// predictions).
nlohmann::json class_metrics_json(const ClassMetrics& m, const std::string& png) {
  nlohmann::json j;
  j["classes"] = m.classes();
  j["examples"] = m.total();
  j["top1_accuracy"] = m.top1();
  j["top_k"] = m.k();
  j["top_k_accuracy"] = m.topk();
  j["macro_f1"] = m.macro_f1();
  j["per_class"] = nlohmann::json::array();
  nlohmann::json matrix = nlohmann::json::array();
  for (int64_t c = 0; c < m.classes(); ++c) {
    nlohmann::json entry = {{"class", c},
                            {"support", m.support(c)},
                            {"precision", m.precision(c)},
                            {"recall", m.recall(c)},
                            {"f1", m.f1(c)}};
    if (m.named()) entry["name"] = m.name(c);
    j["per_class"].push_back(std::move(entry));
    nlohmann::json row = nlohmann::json::array();
    for (int64_t p = 0; p < m.classes(); ++p) row.push_back(m.confusion(c, p));
    matrix.push_back(row);
  }
  j["confusion_matrix"] = matrix;
  if (!png.empty()) j["confusion_png"] = png;
  return j;
}

}  // namespace

void write_metrics(const std::string& path, const std::vector<EpochRecord>& epochs,
                   double final_accuracy, int ranks, int64_t batch_size,
                   const ClassMetrics* classes, const std::string& confusion_png) {
  nlohmann::json j;
  j["test_accuracy"] = final_accuracy;
  std::vector<double> rates;
  for (const auto& e : epochs) rates.push_back(e.samples_per_second);
  std::sort(rates.begin(), rates.end());
  const size_t n = rates.size();
  j["samples_per_second"] =
      n == 0 ? 0.0 : (n % 2 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]));
  j["epochs"] = nlohmann::json::array();
  for (const auto& e : epochs)
    j["epochs"].push_back({{"epoch", e.epoch},
                           {"train_loss", e.train_loss},
                           {"test_accuracy", e.test_accuracy},
                           {"samples_per_second", e.samples_per_second},
                           {"seconds", e.seconds}});
  j["threads"] = get_num_threads();
  j["ranks"] = ranks;
  j["peak_rss_mb"] = peak_rss_mb();
  j["batch_size"] = batch_size;
  if (classes) j["classes"] = class_metrics_json(*classes, confusion_png);
  std::ofstream out(path);
  EXADNN_CHECK(out.good(), "train", "cannot write metrics to ", path);
  out << j.dump(2) << '\n';
}

}  // namespace exadnn::train::internal
