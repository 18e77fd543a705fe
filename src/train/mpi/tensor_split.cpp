// TensorSplit (tensor_split.h): which runs split, the blocks in and out, the optimizer state's
// layout.
#include "tensor_split.h"

#include <string>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/concat.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::train::internal {
namespace {

const char* const kActivations[] = {"ReLU", "LeakyReLU", "GELU", "Sigmoid", "Tanh"};

bool is_activation(const nn::Module& m) {
  for (const char* name : kActivations)
    if (m.name() == name) return true;
  return false;
}

// Block `rank` of `t` split into `parts` along `dim` (0 or 1), contiguous.
Tensor block_of(const Tensor& t, int64_t dim, int rank, int parts) {
  const int64_t n = t.size(dim) / parts;
  return t.narrow(dim, rank * n, n).contiguous();
}

}  // namespace

TensorSplit::TensorSplit(std::shared_ptr<nn::Sequential> whole, const dist::ProcessGrid& grid)
    : whole_(std::move(whole)), split_(std::make_shared<nn::Sequential>()), grid_(grid) {
  NoGradGuard no_grad;
  const nn::Sequential& w = *whole_;
  for (size_t i = 0; i < w.size(); ++i) {
    auto* up = dynamic_cast<nn::Linear*>(w[i].get());
    auto* down = i + 2 < w.size() ? dynamic_cast<nn::Linear*>(w[i + 2].get()) : nullptr;
    if (!up || !down || !is_activation(*w[i + 1]) || !up->bias.defined() || !down->bias.defined()) {
      split_->push_back(w[i]);  // replicated
      for (size_t k = 0; k < w[i]->parameters().size(); ++k) split_dims_.push_back(-1);
      continue;
    }
    auto column = std::make_shared<dist::ColumnParallelLinear>(
        up->weight.size(1), up->weight.size(0), grid_.tensor(), /*gather_output=*/false);
    auto row = std::make_shared<dist::RowParallelLinear>(down->weight.size(1), down->weight.size(0),
                                                         grid_.tensor(), /*input_is_split=*/true);
    pairs_.push_back({up, down, column, row});
    split_->push_back(column);
    split_->push_back(w[i + 1]);
    split_->push_back(row);
    split_dims_.insert(split_dims_.end(), {0, 0, 1, -1});  // weights then biases, as nn::Linear
    i += 2;
  }
}

void TensorSplit::take_blocks() {
  NoGradGuard no_grad;
  const int t = grid_.tensor_rank(), parts = grid_.shape().tensor;
  for (const Pair& p : pairs_) {
    copy_(p.column->weight, block_of(p.up->weight, 0, t, parts));
    copy_(p.column->bias, block_of(p.up->bias, 0, t, parts));
    copy_(p.row->weight, block_of(p.down->weight, 1, t, parts));
    copy_(p.row->bias, p.down->bias);
  }
}

void TensorSplit::gather_into_whole() {
  NoGradGuard no_grad;
  const std::vector<Tensor> whole = whole_->parameters(), split = split_->parameters();
  for (size_t i = 0; i < whole.size(); ++i) copy_(whole[i], gather(split[i], i));
}

Tensor TensorSplit::gather(const Tensor& mine, size_t index) const {
  return gather_along(mine, split_dims_.at(index));
}

Tensor TensorSplit::gather_along(const Tensor& mine, int dim) const {
  if (dim < 0) return mine.clone();
  const int parts = grid_.shape().tensor;
  Tensor all = empty({parts * mine.numel()}, TensorOptions().dtype(mine.dtype()));
  grid_.tensor().allgather(all, mine.contiguous()).wait();
  std::vector<Tensor> blocks;
  for (int r = 0; r < parts; ++r)
    blocks.push_back(all.narrow(0, r * mine.numel(), mine.numel()).reshape(mine.shape()));
  return cat(blocks, dim);
}

Tensor TensorSplit::block(const Tensor& value, size_t index) const {
  return block_along(value, split_dims_.at(index));
}

Tensor TensorSplit::block_along(const Tensor& value, int dim) const {
  return dim < 0 ? value : block_of(value, dim, grid_.tensor_rank(), grid_.shape().tensor);
}

// "3.momentum_buffer" → parameter 3's axis; "step", "lr" or a scalar per-parameter entry: -1.
int TensorSplit::split_dim(const std::string& entry, const Tensor& value) const {
  const size_t dot = entry.find('.');
  if (dot == std::string::npos || value.dim() == 0) return -1;
  const size_t index = std::stoul(entry.substr(0, dot));
  return index < split_dims_.size() ? split_dims_[index] : -1;
}

StateDict TensorSplit::gather_optimizer_state(const StateDict& mine) const {
  StateDict out;
  for (const auto& [name, t] : mine) out.insert(name, gather_along(t, split_dim(name, t)));
  return out;
}

StateDict TensorSplit::block_optimizer_state(const StateDict& whole) const {
  StateDict mine;
  for (const auto& [name, value] : whole)
    mine.insert(name, block_along(value, split_dim(name, value)));
  return mine;
}

}  // namespace exadnn::train::internal
