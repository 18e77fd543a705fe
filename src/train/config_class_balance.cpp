#include "config_class_balance.h"

#include <cmath>

#include "exadnn/core/error.h"

namespace exadnn::train::internal {

void parse_class_balance(const YAML::Node& node, const std::string& loss, ClassBalanceSpec& spec,
                         const ReportProblem& report) {
  if (!node.IsMap()) {
    report(node, "'class_balance' must be a mapping ({loss_weights: ..., sampling: ...})");
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (key != "loss_weights" && key != "sampling")
      report(it->first, "unknown key '" + key +
                            "' in class_balance (allowed: loss_weights, "
                            "sampling)");
  }
  if (const YAML::Node w = node["loss_weights"]) {
    if (w.IsSequence()) {
      spec.loss_weights = "given";
      spec.weights.clear();
      double total = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        double value = 0;
        if (read_real(w[i], detail::cat("class_balance.loss_weights[", i, "]"), 0, HUGE_VAL, value,
                      report))
          spec.weights.push_back(value);
        total += value;
      }
      if (w.size() == 0 || total <= 0)
        report(w, "'class_balance.loss_weights' needs at least one weight above 0");
    } else if (w.IsScalar() && (w.Scalar() == "none" || w.Scalar() == "inverse_frequency")) {
      spec.loss_weights = w.Scalar();
    } else {
      report(w, "'class_balance.loss_weights' is " + describe_value(w) +
                    " (allowed: none, inverse_frequency, or a list of one weight per class)");
    }
    if (spec.weighted() && loss != "cross_entropy")
      report(w,
             "'class_balance.loss_weights' weighs the cross_entropy loss; the config's loss is "
             "'" +
                 loss + "'");
  }
  if (const YAML::Node s = node["sampling"]) {
    if (s.IsScalar() && (s.Scalar() == "shuffle" || s.Scalar() == "balanced"))
      spec.sampling = s.Scalar();
    else
      report(s,
             "'class_balance.sampling' is " + describe_value(s) + " (allowed: shuffle, balanced)");
  }
}

}  // namespace exadnn::train::internal
