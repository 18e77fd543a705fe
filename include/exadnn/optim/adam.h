// Adam: adaptive moment estimation with optional L2 weight decay and the AMSGrad variant
// (the semantics of torch.optim.Adam).
#pragma once

#include <vector>

#include "exadnn/optim/adam_options.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of Adam (no weight decay by default); the setters are AdamFamilyOptions'.
class AdamOptions : public AdamFamilyOptions<AdamOptions> {
 public:
  explicit AdamOptions(double lr = 1e-3) : AdamFamilyOptions(lr, 0.0) {}
};

/// Adam. State per parameter: "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with AMSGrad; the
/// bias corrections use the parameter's own step count.
class Adam : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  Adam(std::vector<Tensor> params, const AdamOptions& options = AdamOptions());
  /// The options it was made with.
  const AdamOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  AdamOptions options_;
};

}  // namespace exadnn::optim
