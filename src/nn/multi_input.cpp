// nn::MultiInputModule: the count check behind a call with one tensor.
#include "exadnn/nn/module.h"

#include <utility>

namespace exadnn::nn {

MultiInputModule::MultiInputModule(std::vector<std::string> input_names)
    : input_names_(std::move(input_names)) {
  EXADNN_CHECK(input_names_.size() >= 2, "MultiInputModule", "needs at least two input names, got ",
               input_names_.size(), "; a module of one input derives from Module");
}

Tensor MultiInputModule::forward(const Tensor& x) {
  // One tensor is the wrong count: forward(inputs) throws the error every module words alike
  // ("SkipBlock: takes 2 inputs (x, skip), got 1").
  return forward(std::vector<Tensor>{x});
}

}  // namespace exadnn::nn
