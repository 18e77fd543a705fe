#include "exadnn/dist/data_parallel.h"

#include "exadnn/autograd/engine.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {

void broadcast_module(nn::Module& module, const Communicator& comm, int root) {
  NoGradGuard no_grad;
  std::vector<std::pair<Tensor, Tensor>> staged;  // (destination, contiguous buffer)
  std::vector<Work> works;
  auto send = [&](const Tensor& t) {
    Tensor buffer = t.is_contiguous() ? t : t.contiguous();
    staged.emplace_back(t, buffer);
    works.push_back(comm.broadcast(buffer, root));
  };
  for (const Tensor& p : module.parameters()) send(p);
  for (const auto& [name, b] : module.named_buffers()) send(b);
  for (Work& w : works) w.wait();
  for (auto& [dst, buffer] : staged)
    if (dst.impl_ptr() != buffer.impl_ptr()) copy_(dst, buffer);
}

DataParallel::DataParallel(nn::Module& module, Communicator comm, ReducerOptions options)
    : module_(module) {
  broadcast_module(module, comm);
  for (const Tensor& p : module.parameters())
    if (p.requires_grad()) params_.push_back(p);
  reducer_ = std::make_unique<GradientReducer>(params_, std::move(comm), options);
  for (size_t i = 0; i < params_.size(); ++i)
    hook_ids_.push_back(
        params_[i].register_grad_hook([this, i](const Tensor&) { on_gradient_ready(i); }));
}

DataParallel::~DataParallel() {
  for (size_t i = 0; i < params_.size(); ++i) params_[i].remove_grad_hook(hook_ids_[i]);
}

void DataParallel::on_gradient_ready(size_t index) {
  if (!sync_) return;
  if (!reducer_->in_step()) autograd::queue_callback([this] { reducer_->finish(); });
  reducer_->mark_ready(index);
}

void DataParallel::finish() {
  reducer_->finish();
}

}  // namespace exadnn::dist
