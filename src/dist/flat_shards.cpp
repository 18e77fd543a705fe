// FlatShards (flat_shards.h): parameters laid end to end in P blocks, and the optimizer state over
// the blocks translated to and from the one-process layout.
#include "exadnn/dist/flat_shards.h"

#include <algorithm>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {

FlatShards::FlatShards(std::vector<Shape> shapes, size_t first_index, int ranks)
    : shapes_(std::move(shapes)), first_(first_index), ranks_(ranks) {
  for (const Shape& s : shapes_) total_ += s.numel();
  block_ = (total_ + ranks_ - 1) / ranks_;
}

Tensor FlatShards::flatten(const std::vector<Tensor>& tensors) const {
  Tensor flat = zeros({padded()});
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const int64_t n = shapes_[i].numel();
    if (i < tensors.size() && tensors[i].defined())
      copy_(flat.narrow(0, offset, n), tensors[i].detach().reshape({n}));
    offset += n;
  }
  return flat;
}

Tensor FlatShards::block_of(const std::vector<Tensor>& tensors, int rank) const {
  Tensor out = zeros({block_});
  NoGradGuard no_grad;
  const int64_t begin = rank * block_, end = begin + block_;
  int64_t offset = 0;  // where each parameter starts in the flat [N]
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const int64_t n = shapes_[i].numel();
    const int64_t lo = std::max(begin, offset), hi = std::min(end, offset + n);
    if (lo < hi && i < tensors.size() && tensors[i].defined())
      copy_(out.narrow(0, lo - begin, hi - lo),
            tensors[i].detach().reshape({n}).narrow(0, lo - offset, hi - lo));
    offset += n;
  }
  return out;
}

std::vector<Tensor> FlatShards::unflatten(const Tensor& flat) const {
  std::vector<Tensor> out;
  int64_t offset = 0;
  for (const Shape& s : shapes_) {
    out.push_back(flat.narrow(0, offset, s.numel()).view(s));
    offset += s.numel();
  }
  return out;
}

Tensor gather_blocks(const Tensor& block, const Communicator& comm) {
  Tensor all = empty({comm.size() * block.numel()}, TensorOptions().dtype(block.dtype()));
  comm.allgather(all, block.contiguous()).wait();
  return all;
}

std::vector<std::string> buffer_names(const StateDict& state) {
  std::vector<std::string> names;
  for (const auto& [name, t] : state)
    if (name.rfind("0.", 0) == 0 && name != "0.step") names.push_back(name.substr(2));
  return names;
}

StateDict one_process_state(const StateDict& inner, const std::vector<FlatShards>& layouts,
                            const Communicator& comm) {
  StateDict out;
  out.insert("step", inner.at("step"));
  out.insert("lr", inner.at("lr"));
  const auto buffers = buffer_names(inner);
  for (size_t u = 0; u < layouts.size(); ++u) {
    const std::string unit = std::to_string(u) + ".";
    std::vector<std::vector<Tensor>> per_buffer;
    for (const auto& b : buffers)
      per_buffer.push_back(layouts[u].unflatten(gather_blocks(inner.at(unit + b), comm)));
    for (size_t k = 0; k < layouts[u].count(); ++k) {
      const std::string key = std::to_string(layouts[u].first_index() + k) + ".";
      out.insert(key + "step", inner.at(unit + "step").clone());
      for (size_t b = 0; b < buffers.size(); ++b)
        out.insert(key + buffers[b], per_buffer[b][k].clone());
    }
  }
  return out;
}

StateDict sharded_state(const StateDict& state, const std::vector<FlatShards>& layouts,
                        const std::vector<std::string>& buffers, const Communicator& comm,
                        const char* where) {
  // Every entry checked before anything is built.
  for (const char* name : {"step", "lr", "0.step"})
    EXADNN_CHECK(state.contains(name), where, "the state has no entry '", name, "'");
  for (const FlatShards& layout : layouts)
    for (size_t k = 0; k < layout.count(); ++k)
      for (const auto& b : buffers) {
        const size_t i = layout.first_index() + k;
        const std::string key = std::to_string(i) + "." + b;
        EXADNN_CHECK(state.contains(key), where, "the state has no entry '", key, "'");
        EXADNN_CHECK(state.at(key).shape() == layout.shapes()[k], where, "entry '", key,
                     "' has shape ", state.at(key).shape(), ", parameter ", i, " has ",
                     layout.shapes()[k]);
      }
  StateDict inner;
  inner.insert("step", state.at("step"));
  inner.insert("lr", state.at("lr"));
  for (size_t u = 0; u < layouts.size(); ++u) {
    const std::string unit = std::to_string(u) + ".";
    inner.insert(unit + "step", state.at("0.step"));
    for (const auto& b : buffers) {
      std::vector<Tensor> values;
      for (size_t k = 0; k < layouts[u].count(); ++k)
        values.push_back(
            state.at(std::to_string(layouts[u].first_index() + k) + "." + b).to(DType::f32));
      inner.insert(unit + b, layouts[u].block_of(values, comm.rank()));
    }
  }
  return inner;
}

}  // namespace exadnn::dist
