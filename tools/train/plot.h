// A PNG chart of a training run: train loss and test accuracy per epoch, side by side.
#pragma once

#include <string>
#include <vector>

namespace exadnn::cli {

/// Writes `path` (PNG, 900x360): left panel loss per epoch, right panel accuracy (%) per epoch,
/// with axes, tick values and titles. Throws exadnn::Error naming the file on failure.
void write_training_plot(const std::string& path, const std::vector<double>& loss,
                         const std::vector<double>& accuracy);

}  // namespace exadnn::cli
