// Tensor-parallel layers and the class-parallel loss (dist/tensor_parallel.h).
#include "exadnn/dist/tensor_parallel.h"

#include <vector>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/nn/activation.h"
#include "exadnn/nn/linear.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/linalg.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"

namespace exadnn::dist {
namespace {

// Features per rank; a split that does not divide is an Error before anything is allocated.
int64_t per_rank(int64_t features, const Communicator& comm, const char* layer, const char* what) {
  EXADNN_CHECK(features > 0, layer, what, " must be positive, got ", features);
  EXADNN_CHECK(features % comm.size() == 0, layer, what, " = ", features, " does not divide over ",
               comm.size(), " ranks");
  return features / comm.size();
}

// Block `index` of `length` along `dim` of `full`, as a new leaf tensor.
Tensor block_of(const Tensor& full, int64_t dim, int64_t index, int64_t length) {
  NoGradGuard no_grad;
  return full.detach().narrow(dim, index * length, length).contiguous().clone();
}

// The full weight drawn exactly as nn::Linear draws it on one process.
nn::Linear one_process_twin(int64_t in, int64_t out, bool bias) {
  return nn::Linear(nn::LinearOptions(in, out).bias(bias));
}

std::shared_ptr<nn::Module> make_activation(const std::string& name) {
  if (name == "relu") return std::make_shared<nn::ReLU>();
  if (name == "tanh") return std::make_shared<nn::Tanh>();
  if (name == "gelu") return std::make_shared<nn::GELU>();
  throw Error("ParallelMLP",
              exadnn::detail::cat("unknown activation '", name, "' (known: gelu, relu, tanh)"));
}

}  // namespace

// --- ColumnParallelLinear ----------------------------------------------------------------------

ColumnParallelLinear::ColumnParallelLinear(int64_t in_features, int64_t out_features,
                                           Communicator comm, bool gather_output, bool bias_on)
    : in_(in_features), out_(out_features), comm_(std::move(comm)), gather_output_(gather_output) {
  const int64_t m = per_rank(out_features, comm_, "ColumnParallelLinear", "out_features");
  const nn::Linear full = one_process_twin(in_features, out_features, bias_on);
  weight = block_of(full.weight, 0, comm_.rank(), m);
  register_parameter("weight", &weight);
  if (bias_on) {
    bias = block_of(full.bias, 0, comm_.rank(), m);
    register_parameter("bias", &bias);
  }
}

Tensor ColumnParallelLinear::forward(const Tensor& x) {
  EXADNN_CHECK(x.dim() >= 1 && x.size(-1) == in_, name(), "input of shape ", x.shape(),
               " does not end in in_features=", in_);
  const Tensor y = linear(copy_to_group(x, comm_), weight, bias);  // [..., out/P]
  return gather_output_ ? gather_from_group(y, comm_, -1) : y;
}

Tensor ColumnParallelLinear::full_weight() const {
  return gather_from_group(weight.detach(), comm_, 0);
}
Tensor ColumnParallelLinear::full_bias() const {
  return bias.defined() ? gather_from_group(bias.detach(), comm_, 0) : Tensor();
}

std::string ColumnParallelLinear::extra_repr() const {
  return exadnn::detail::cat("in=", in_, ", out=", out_, " (", out_ / comm_.size(), " on each of ",
                             comm_.size(), " ranks)", gather_output_ ? ", gathered" : "");
}

// --- RowParallelLinear -------------------------------------------------------------------------

RowParallelLinear::RowParallelLinear(int64_t in_features, int64_t out_features, Communicator comm,
                                     bool input_is_split, bool bias_on)
    : in_(in_features),
      out_(out_features),
      comm_(std::move(comm)),
      input_is_split_(input_is_split) {
  const int64_t k = per_rank(in_features, comm_, "RowParallelLinear", "in_features");
  const nn::Linear full = one_process_twin(in_features, out_features, bias_on);
  weight = block_of(full.weight, 1, comm_.rank(), k);
  register_parameter("weight", &weight);
  if (bias_on) {
    bias = block_of(full.bias, 0, 0, out_features);
    register_parameter("bias", &bias);
  }
}

Tensor RowParallelLinear::forward(const Tensor& x) {
  const int64_t k = in_ / comm_.size();
  const int64_t expected = input_is_split_ ? k : in_;
  EXADNN_CHECK(x.dim() >= 1 && x.size(-1) == expected, name(), "input of shape ", x.shape(),
               " does not end in ", expected, input_is_split_ ? " (this rank's block of " : " (",
               "in_features=", in_, ")");
  const Tensor mine = input_is_split_ ? x : scatter_to_group(x, comm_, -1);  // [..., in/P]
  const Tensor y = reduce_from_group(linear(mine, weight), comm_);           // [..., out]
  return bias.defined() ? y + bias : y;
}

Tensor RowParallelLinear::full_weight() const {
  return gather_from_group(weight.detach(), comm_, 1);
}

std::string RowParallelLinear::extra_repr() const {
  return exadnn::detail::cat("in=", in_, " (", in_ / comm_.size(), " on each of ", comm_.size(),
                             " ranks), out=", out_, input_is_split_ ? ", split input" : "");
}

// --- ParallelMLP -------------------------------------------------------------------------------

ParallelMLP::ParallelMLP(int64_t in_features, int64_t hidden_features, int64_t out_features,
                         Communicator comm, const std::string& activation_name) {
  activation = make_activation(activation_name);
  up = register_module(
      "up", std::make_shared<ColumnParallelLinear>(in_features, hidden_features, comm, false));
  register_module("activation", activation);
  down = register_module("down", std::make_shared<RowParallelLinear>(hidden_features, out_features,
                                                                     std::move(comm), true));
}

Tensor ParallelMLP::forward(const Tensor& x) {
  return (*down)((*activation)((*up)(x)));
}

// --- class_parallel_cross_entropy --------------------------------------------------------------

Tensor class_parallel_cross_entropy(const Tensor& logits, const Tensor& target,
                                    const Communicator& comm) {
  const char* op = "class_parallel_cross_entropy";
  EXADNN_CHECK(logits.dim() == 2, op, "logits must be [N, C/P], got ", logits.shape());
  EXADNN_CHECK(
      target.dim() == 1 && target.size(0) == logits.size(0) && target.dtype() == DType::i64, op,
      "target must be i64 [", logits.size(0), "], got ", dtype_name(target.dtype()), " ",
      target.shape());
  const int64_t n = logits.size(0), block = logits.size(1);
  const int64_t classes = block * comm.size(), first = comm.rank() * block;

  // The row maxima over every rank's classes shift the exponentials (a constant: no gradient).
  Tensor row_max = max(logits.detach(), {1}, true).contiguous().clone();  // [N, 1]
  comm.allreduce_blocking(row_max, ReduceOp::max);
  const Tensor shifted = logits - row_max;  // [N, C/P]

  // The target's logit lives on one rank: a one-hot mask of this rank's classes picks it.
  std::vector<double> picks(static_cast<size_t>(n * block), 0.0);
  const Tensor t = target.contiguous();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = t.data<int64_t>()[i];
    EXADNN_CHECK(c >= 0 && c < classes, op, "target ", c, " at row ", i, " is not a class in 0..",
                 classes - 1);
    if (c >= first && c < first + block) picks[static_cast<size_t>(i * block + c - first)] = 1.0;
  }
  const Tensor mask = from_vector<double>(picks, {n, block}).to(logits.dtype());  // [N, C/P]
  const Tensor sum_exp = reduce_from_group(sum(exp(shifted), {1}), comm);         // [N]
  const Tensor target_logit = reduce_from_group(sum(shifted * mask, {1}), comm);  // [N]
  return mean(log(sum_exp) - target_logit);
}

}  // namespace exadnn::dist
