// The config's `class_balance:` section (exadnn/train/class_balance.h). Internal to the train
// library (config.cpp calls it).
#pragma once

#include "config_values.h"
#include "exadnn/train/class_balance.h"

namespace exadnn::train::internal {

/// Reads {loss_weights: none | inverse_frequency | [w0, w1, ...], sampling: shuffle | balanced}
/// into `spec`; problems go to `report`. `loss` is the config's loss: weights need cross_entropy.
void parse_class_balance(const YAML::Node& node, const std::string& loss, ClassBalanceSpec& spec,
                         const ReportProblem& report);

}  // namespace exadnn::train::internal
