// parallel: {tensor: T} (mpi_strategies.h): every linear → activation → linear run of the model
// list becomes a dist::ColumnParallelLinear (output features split over the T tensor ranks, no
// gather) → the activation → a dist::RowParallelLinear (input features split, one allreduce), over
// the tensor axis of a data × tensor ProcessGrid; the other layers are replicated on every tensor
// rank. The D = ranks / T replicas each read their shard of every epoch and average gradients.
//
// Every rank builds the whole model (same seed); the split layers start from its weights' blocks
// (a resumed checkpoint's), so the run starts where one process does. After each epoch the blocks
// are gathered back into every rank's whole model (the root scores and saves it); checkpoints hold
// the one-process layout of the weights and of the optimizer state (its buffers gathered and split
// like the weights).
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/process_grid.h"
#include "exadnn/dist/tensor_parallel.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/linear.h"
#include "exadnn/ops/concat.h"
#include "mpi_strategies.h"
#include "mpi_strategy.h"

namespace exadnn::train::internal {
namespace {

const char* const kActivations[] = {"ReLU", "LeakyReLU", "GELU", "Sigmoid", "Tanh"};

bool is_activation(const nn::Module& m) {
  for (const char* name : kActivations)
    if (m.name() == name) return true;
  return false;
}

// Block `rank` of `t` split into `parts` along `dim` (0 or 1), contiguous.
Tensor block(const Tensor& t, int64_t dim, int rank, int parts) {
  const int64_t n = t.size(dim) / parts;
  return t.narrow(dim, rank * n, n).contiguous();
}

class TensorStrategy : public ModelSplitStrategy {
 public:
  TensorStrategy(const MpiSpec& spec, const ParallelSpec& parallel)
      : ModelSplitStrategy(
            spec, {dist::Communicator::world().size() / parallel.tensor, 1, parallel.tensor}) {}
  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    take_model(model, "tensor");
    split_ = std::make_shared<nn::Sequential>();
    NoGradGuard no_grad;
    for (size_t i = 0; i < whole_->size(); ++i) {
      auto* up = dynamic_cast<nn::Linear*>((*whole_)[i].get());
      auto* down =
          i + 2 < whole_->size() ? dynamic_cast<nn::Linear*>((*whole_)[i + 2].get()) : nullptr;
      if (!up || !down || !is_activation(*(*whole_)[i + 1]) || !up->bias.defined() ||
          !down->bias.defined()) {
        split_->push_back((*whole_)[i]);  // replicated
        for (size_t k = 0; k < (*whole_)[i]->parameters().size(); ++k) split_dims_.push_back(-1);
        continue;
      }
      auto column = std::make_shared<dist::ColumnParallelLinear>(
          up->weight.size(1), up->weight.size(0), grid_.tensor(), /*gather_output=*/false);
      auto row = std::make_shared<dist::RowParallelLinear>(
          down->weight.size(1), down->weight.size(0), grid_.tensor(), /*input_is_split=*/true);
      pairs_.push_back({up, down, column, row});
      split_->push_back(column);
      split_->push_back((*whole_)[i + 1]);
      split_->push_back(row);
      split_dims_.insert(split_dims_.end(), {0, 0, 1, -1});  // weights then biases, as nn::Linear
      i += 2;
    }
    return make(split_->parameters());
  }
  // The model is in place (a resumed checkpoint's weights too): the split layers take its blocks.
  void attach(const std::shared_ptr<nn::Module>&, const TrainingRecipe&) override {
    NoGradGuard no_grad;
    const int t = grid_.tensor_rank(), parts = grid_.shape().tensor;
    for (const Pair& p : pairs_) {
      copy_(p.column->weight, block(p.up->weight, 0, t, parts));
      copy_(p.column->bias, block(p.up->bias, 0, t, parts));
      copy_(p.row->weight, block(p.down->weight, 1, t, parts));
      copy_(p.row->bias, p.down->bias);
    }
  }
  bool runs_forward_backward() const override { return true; }
  double forward_backward(const data::Batch& batch, const LossFunction& loss) override {
    return train_on(*split_, batch.inputs, batch.targets, loss);
  }
  EpochTotals combine(const EpochTotals& mine) override {
    NoGradGuard no_grad;  // the blocks back into the whole model, for the root's score and save
    const std::vector<Tensor> whole = whole_->parameters(), split = split_->parameters();
    for (size_t i = 0; i < whole.size(); ++i) copy_(whole[i], gather(split[i], split_dims_[i]));
    return combine_replicas(mine);
  }
  // The one-process layout: each split parameter's buffers gathered like the parameter.
  StateDict optimizer_state(const optim::Optimizer& opt) override {
    StateDict out;
    for (const auto& [name, t] : opt.state_dict()) {
      const size_t dot = name.find('.');
      const int dim = dot == std::string::npos || t.dim() == 0
                          ? -1
                          : split_dims_[std::stoul(name.substr(0, dot))];
      out.insert(name, gather(t, dim));
    }
    return out;
  }
  void load_optimizer_state(optim::Optimizer& opt, const StateDict& state) override {
    StateDict mine;  // this rank's blocks
    const int t = grid_.tensor_rank(), parts = grid_.shape().tensor;
    for (const auto& [name, value] : state) {
      const size_t dot = name.find('.');
      const size_t i = dot == std::string::npos ? 0 : std::stoul(name.substr(0, dot));
      const bool split = dot != std::string::npos && value.dim() > 0 && i < split_dims_.size() &&
                         split_dims_[i] >= 0;
      mine.insert(name, split ? block(value, split_dims_[i], t, parts) : value);
    }
    opt.load_state_dict(mine);
  }
  std::string describe() const override {
    return detail::cat(world_.size(), " ranks: ", grid_.shape().tensor, "-way tensor parallel (",
                       pairs_.size(), " linear runs split; ",
                       parameters_held(split_ ? split_->parameters() : std::vector<Tensor>{}),
                       ") × ", grid_.shape().data, " data-parallel");
  }

 private:
  // The whole tensor from every tensor rank's block along `dim` (-1: replicated, a copy).
  Tensor gather(const Tensor& mine, int dim) const {
    if (dim < 0) return mine.clone();
    const int parts = grid_.shape().tensor;
    Tensor all = empty({parts * mine.numel()}, TensorOptions().dtype(mine.dtype()));
    grid_.tensor().allgather(all, mine.contiguous()).wait();
    std::vector<Tensor> blocks;
    for (int r = 0; r < parts; ++r)
      blocks.push_back(all.narrow(0, r * mine.numel(), mine.numel()).reshape(mine.shape()));
    return cat(blocks, dim);
  }

  std::shared_ptr<nn::Sequential> split_;  // the model with its runs split
  std::vector<int> split_dims_;  // per parameter of split_: the axis it is split along, or -1
  struct Pair {  // a linear → activation → linear run and the layers that split it
    nn::Linear *up, *down;
    std::shared_ptr<dist::ColumnParallelLinear> column;
    std::shared_ptr<dist::RowParallelLinear> row;
  };
  std::vector<Pair> pairs_;
};

}  // namespace

std::unique_ptr<Strategy> make_tensor_strategy(const MpiSpec& spec, const ParallelSpec& parallel) {
  return std::make_unique<TensorStrategy>(spec, parallel);
}

}  // namespace exadnn::train::internal
