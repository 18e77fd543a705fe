// The layers a training config's model list names ("- linear: {out: 10}"), as a registry users
// extend: each kind declares the settings it takes (with their bounds) and builds the module for
// the example shape it receives.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "exadnn/core/dims.h"
#include "exadnn/nn/module.h"
#include "exadnn/train/registry.h"

namespace exadnn::train {

/// One setting a layer kind accepts: a whole number or a finite real, within [lo, hi].
struct LayerSetting {
  enum class Type { count, real } type = Type::count;
  double lo = 0, hi = 0;
  static LayerSetting count(int64_t lo, int64_t hi) {
    return {Type::count, static_cast<double>(lo), static_cast<double>(hi)};
  }
  static LayerSetting real(double lo, double hi) { return {Type::real, lo, hi}; }
};

/// The settings of one layer in a config, already checked against its kind's declarations.
class LayerSettings {
 public:
  void set(const std::string& name, double value) { values_[name] = value; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  /// The value given for `name`, else `fallback`.
  double real(const std::string& name, double fallback = 0) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  int64_t count(const std::string& name, int64_t fallback = 0) const {
    return static_cast<int64_t>(real(name, static_cast<double>(fallback)));
  }

 private:
  std::map<std::string, double> values_;
};

/// A kind of layer. `make` receives the checked settings and one example's shape (no batch
/// axis), and throws an Error when the shape does not suit it (say what to add before it).
struct LayerKind {
  std::map<std::string, LayerSetting> settings;  ///< accepted settings
  std::set<std::string> required;                ///< of those, the ones a config must give
  std::function<std::shared_ptr<nn::Module>(const LayerSettings&, const Shape& in)> make;
  /// Parameters the layer will have for inputs of shape `in`, computed without building it (for
  /// the memory estimate before a large layer is allocated); none: 0.
  std::function<int64_t(const LayerSettings&, const Shape& in)> parameters;
};

/// One layer of a model list: its kind (a name in layers()) and its checked settings.
struct LayerSpec {
  std::string kind;
  int line = 0;  ///< line in the config file, for messages (0: none)
  LayerSettings settings;
};

/// linear, conv2d, maxpool2d, avgpool2d, global_avgpool, batchnorm, dropout, relu, leaky_relu,
/// gelu, sigmoid, tanh, flatten, resnet, basic_block, bottleneck (resnet.h), and every kind added
/// with layers().add(name, kind).
Registry<LayerKind>& layers();

}  // namespace exadnn::train
