// PNG charts: a training run (train loss and test accuracy per epoch, side by side), and named
// x-y series on one chart (e.g. loss against seconds for several training modes).
#pragma once

#include <string>
#include <vector>

namespace exadnn::cli {

/// Writes `path` (PNG, 900x360): left panel loss per epoch, right panel accuracy (%) per epoch,
/// with axes, tick values and titles. Throws exadnn::Error naming the file on failure.
void write_training_plot(const std::string& path, const std::vector<double>& loss,
                         const std::vector<double>& accuracy);

/// One named curve of an x-y chart.
struct Series {
  std::string name;
  std::vector<double> x, y;
};

/// Writes `path` (PNG, 900x480): each series as a line over shared numeric axes, with a legend
/// at the top right. Throws exadnn::Error naming the file on failure.
void write_series_plot(const std::string& path, const std::string& title,
                       const std::string& x_label, const std::vector<Series>& series);

}  // namespace exadnn::cli
