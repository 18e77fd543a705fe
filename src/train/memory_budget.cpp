#include "exadnn/train/memory_budget.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "exadnn/core/error.h"
#include "exadnn/train/optimizers.h"

namespace exadnn::train {

namespace {
constexpr double kValueBytes = 4.0;  // f32 parameters, gradients, buffers and activations

std::string gigabytes(double bytes) {
  std::ostringstream os;
  os.precision(bytes >= 1e9 ? 3 : 2);
  if (bytes >= 1e9)
    os << bytes / 1e9 << " GB";
  else
    os << bytes / 1e6 << " MB";
  return os.str();
}

// The first number after `key` in a /proc-style file (0 if absent).
double read_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(key.size()));
  return 0;
}
}  // namespace

double available_memory_bytes() {
  const double meminfo = read_field("/proc/meminfo", "MemAvailable:") * 1024.0;  // kB
  double limit = 0;
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string text;
  if (cgroup >> text && text != "max") {
    const double max = std::stod(text);
    const double current = read_field("/sys/fs/cgroup/memory.current", "");
    limit = std::max(0.0, max - current);
  }
  if (meminfo <= 0) return limit;
  return limit > 0 ? std::min(meminfo, limit) : meminfo;
}

MemoryBudget::MemoryBudget(int64_t batch_size, int optimizer_buffers, double available, int sharing)
    : batch_size_(batch_size),
      optimizer_buffers_(optimizer_buffers),
      available_(available),
      sharing_(std::max(1, sharing)) {}

void MemoryBudget::split_images(int parts) {
  EXADNN_CHECK(parts >= 1, "model", "images split into ", parts, " parts");
  image_parts_ = parts;
}

int MemoryBudget::optimizer_buffers(const OptimizerSpec& o) {
  return train::optimizers().at(o.name).state_buffers(o);
}

void MemoryBudget::add_layer(const LayerSpec& spec, int64_t parameters, int64_t output_numel) {
  if (spec.kind == "flatten" || spec.kind == "global_avgpool") banded_ = false;
  parameters_ += static_cast<double>(parameters);
  activations_per_example_ +=
      static_cast<double>(output_numel) / static_cast<double>(banded_ ? image_parts_ : 1);
  if (available_ <= 0 || total_bytes() <= share()) return;
  throw Error(
      "model",
      detail::cat("the model does not fit in memory: up to layer ", spec.kind, " (line ", spec.line,
                  ") a training step needs about ", gigabytes(total_bytes()), " (", describe(),
                  ") but ", describe_share(), "; make the layers narrower or the batch smaller"));
}

std::string MemoryBudget::describe_share() const {
  if (sharing_ == 1) return gigabytes(available_) + " are available";
  return detail::cat(gigabytes(share()), " are available (this process's share: 1/", sharing_,
                     " of the ", gigabytes(available_), " available to the ", sharing_,
                     " processes on this node)");
}

double MemoryBudget::total_bytes() const {
  const double per_parameter = 2.0 + optimizer_buffers_;  // value, gradient, buffers
  // Activations are kept for backward and get a gradient of the same size.
  return kValueBytes * (parameters_ * per_parameter +
                        2.0 * activations_per_example_ * static_cast<double>(batch_size_));
}

std::string MemoryBudget::describe() const {
  return detail::cat(
      static_cast<int64_t>(parameters_), " parameters: ", gigabytes(kValueBytes * parameters_),
      " each for the values and the gradients",
      optimizer_buffers_ > 0
          ? detail::cat(", ", gigabytes(kValueBytes * parameters_ * optimizer_buffers_),
                        " for the optimizer's state")
          : std::string(),
      "; activations of a batch of ", batch_size_, " and their gradients: ",
      gigabytes(2.0 * kValueBytes * activations_per_example_ * static_cast<double>(batch_size_)),
      image_parts_ > 1 ? detail::cat(" (1/", image_parts_,
                                     " of the feature maps before the flatten: a band of each)")
                       : std::string());
}

}  // namespace exadnn::train
