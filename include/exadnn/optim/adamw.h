// AdamW: Adam with decoupled weight decay — the parameter shrinks by lr·weight_decay·param
// before the Adam update instead of an L2 term in the gradient (the semantics of
// torch.optim.AdamW).
#pragma once

#include <vector>

#include "exadnn/optim/adam_options.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of AdamW (weight decay 1e-2 by default); the setters are AdamFamilyOptions'.
class AdamWOptions : public AdamFamilyOptions<AdamWOptions> {
 public:
  explicit AdamWOptions(double lr = 1e-3) : AdamFamilyOptions(lr, 1e-2) {}
};

/// AdamW. State per parameter: "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with AMSGrad.
class AdamW : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  AdamW(std::vector<Tensor> params, const AdamWOptions& options = AdamWOptions());
  /// The options it was made with.
  const AdamWOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  AdamWOptions options_;
};

}  // namespace exadnn::optim
