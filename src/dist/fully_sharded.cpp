// FullyShardedModel (dist/fully_sharded.h): one graph node per layer with parameters that gathers
// the layer's blocks, runs it, and in backward runs it again to reduce-scatter its gradients.
#include "exadnn/dist/fully_sharded.h"

#include <chrono>
#include <set>
#include <typeinfo>

#include "exadnn/autograd/engine.h"
#include "exadnn/autograd/function.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/backend/precision_policy.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "seconds_since.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::FullyShardedModel";

using detail::Clock;
using detail::seconds_since;

// Binds the layer's parameters for the lifetime of the scope, then releases them.
class BoundParameters {
 public:
  BoundParameters(nn::Module& layer, const std::vector<Tensor>& values)
      : layer_(layer), count_(values.size()) {
    layer_.bind_parameters(values);
  }
  ~BoundParameters() { layer_.bind_parameters(std::vector<Tensor>(count_)); }
  BoundParameters(const BoundParameters&) = delete;
  BoundParameters& operator=(const BoundParameters&) = delete;

 private:
  nn::Module& layer_;
  size_t count_;
};

// Copies of the layer's buffers, put back when the scope ends: the recomputation in backward must
// not update batch norm's running statistics a second time.
class KeptBuffers {
 public:
  explicit KeptBuffers(nn::Module& layer) : layer_(layer) {
    for (const auto& [name, t] : layer_.named_buffers()) saved_.push_back(t.clone());
  }
  ~KeptBuffers() {
    NoGradGuard no_grad;
    const auto now = layer_.named_buffers();
    for (size_t i = 0; i < now.size() && i < saved_.size(); ++i) copy_(now[i].second, saved_[i]);
  }
  KeptBuffers(const KeptBuffers&) = delete;
  KeptBuffers& operator=(const KeptBuffers&) = delete;

 private:
  nn::Module& layer_;
  std::vector<Tensor> saved_;
};

// inputs {x, shard} → {layer(x)}: the layer run on its gathered parameters (see the header).
class GatheredLayer : public autograd::Function {
 public:
  GatheredLayer(FullyShardedModel& owner, const FullyShardedModel::Unit& unit)
      : owner_(owner), unit_(unit), autocast_(precision::autocast_dtype()) {}

  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    Tensor y;
    {
      BoundParameters bound(*unit_.layer, owner_.gather(unit_));
      y = (*unit_.layer)(in[0]);
    }
    ctx.save_for_backward({in[0]});
    return {y};
  }

  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& grad_out) override {
    Tensor x = ctx.saved()[0].detach();
    const bool wants_x = ctx.needs_input_grad(0);
    if (wants_x) x.requires_grad_(true);
    std::vector<Tensor> grads;
    {  // the gathered parameters live only in this scope
      std::vector<Tensor> params = owner_.gather(unit_);
      for (Tensor& p : params) p = p.detach().requires_grad_(true);
      BoundParameters bound(*unit_.layer, params);
      KeptBuffers kept(*unit_.layer);
      Tensor y;
      {
        EnableGradGuard record;
        precision::Autocast autocast(autocast_);
        y = (*unit_.layer)(x);
      }
      if (wants_x) params.insert(params.begin(), x);
      grads = autograd::grad({y}, params, {grad_out[0]});
    }
    Tensor grad_x;
    if (wants_x) {
      grad_x = grads.front();
      grads.erase(grads.begin());
    }
    return {grad_x, owner_.reduce_scatter(unit_, std::move(grads))};
  }

  std::string name() const override { return "FullyShardedModel." + unit_.layer->name(); }

 private:
  FullyShardedModel& owner_;
  const FullyShardedModel::Unit& unit_;
  DType autocast_;
};

// The layers `seq` runs, in order, with every nested Sequential opened into its own layers (a
// Sequential only chains its layers, so running the list is running the model).
void append_layers(const nn::Sequential& seq, std::vector<std::shared_ptr<nn::Module>>& out) {
  for (size_t i = 0; i < seq.size(); ++i) {
    const std::shared_ptr<nn::Module>& layer = seq[i];
    if (typeid(*layer) == typeid(nn::Sequential))
      append_layers(static_cast<const nn::Sequential&>(*layer), out);
    else
      out.push_back(layer);
  }
}

}  // namespace

FullyShardedModel::FullyShardedModel(std::shared_ptr<nn::Sequential> model, Communicator comm,
                                     const OptimizerFactory& make)
    : model_(std::move(model)), comm_(std::move(comm)) {
  EXADNN_CHECK(model_ != nullptr && model_->size() > 0, kWhere, "needs a model with layers");
  EXADNN_CHECK(model_->input_names().size() == 1, kWhere,
               "the model's first layer takes several inputs; layers of one input only");
  for (const auto& [name, p] : model_->named_parameters()) {
    EXADNN_CHECK(p.dtype() == DType::f32, kWhere, "parameter '", name, "' is ",
                 dtype_name(p.dtype()), ": only f32 models are sharded");
    parameter_names_.push_back(name);
  }
  EXADNN_CHECK(!parameter_names_.empty(), kWhere, "the model has no parameters");
  size_t first = 0;
  append_layers(*model_, layers_);
  for (const std::shared_ptr<nn::Module>& layer : layers_) {
    const std::vector<Tensor> params = layer->parameters();
    if (params.empty()) {
      unit_of_layer_.push_back(-1);
      continue;
    }
    std::vector<Shape> shapes;
    for (const Tensor& p : params) shapes.push_back(p.shape());
    Unit unit{layer, FlatShards(shapes, first, comm_.size()), Tensor()};
    // Rank 0's values: broadcast the layer's flat parameters, keep this rank's block.
    Tensor flat = unit.layout.flatten(params);
    comm_.broadcast(flat, 0).wait();
    unit.shard = flat.narrow(0, comm_.rank() * unit.layout.block(), unit.layout.block()).clone();
    unit.shard.requires_grad_(true);
    layer->bind_parameters(std::vector<Tensor>(params.size()));  // released
    first += params.size();
    unit_of_layer_.push_back(static_cast<int>(units_.size()));
    units_.push_back(std::move(unit));
  }
  inner_ = make(shards());
  EXADNN_CHECK(inner_ != nullptr, kWhere, "the optimizer factory returned nothing");
}

std::vector<Tensor> FullyShardedModel::gather(const Unit& unit) {
  const auto t0 = Clock::now();
  const Tensor whole = gather_blocks(unit.shard.detach(), comm_);
  comm_seconds_ += seconds_since(t0);
  return unit.layout.unflatten(whole);
}

Tensor FullyShardedModel::reduce_scatter(const Unit& unit, std::vector<Tensor> grads) {
  const Tensor flat = unit.layout.flatten(grads);
  grads.clear();  // only the flat copy from here on
  Tensor block = empty({unit.layout.block()});
  const auto t0 = Clock::now();
  comm_.reduce_scatter(block, flat).wait();
  comm_seconds_ += seconds_since(t0);
  mul_(block, 1.0 / comm_.size());
  return block;
}

Tensor FullyShardedModel::forward(const Tensor& x) {
  Tensor y = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const int u = unit_of_layer_[i];
    if (u < 0)
      y = (*layers_[i])(y);
    else
      y = autograd::apply<GatheredLayer>({y, units_[u].shard}, *this, units_[u])[0];
  }
  return y;
}

void FullyShardedModel::step() {
  inner_->step();
}

void FullyShardedModel::zero_grad() {
  for (Unit& unit : units_) unit.shard.zero_grad();
}

std::vector<Tensor> FullyShardedModel::shards() const {
  std::vector<Tensor> out;
  for (const Unit& unit : units_) out.push_back(unit.shard);
  return out;
}

int64_t FullyShardedModel::shard_numel() const {
  int64_t n = 0;
  for (const Unit& unit : units_) n += unit.layout.block();
  return n;
}

int64_t FullyShardedModel::total_numel() const {
  int64_t n = 0;
  for (const Unit& unit : units_) n += unit.layout.total();
  return n;
}

int64_t FullyShardedModel::largest_unit_numel() const {
  int64_t n = 0;
  for (const Unit& unit : units_) n = std::max(n, unit.layout.total());
  return n;
}

StateDict FullyShardedModel::state_dict() const {
  StateDict out;
  size_t name = 0;
  for (const Unit& unit : units_) {
    const Tensor whole = gather_blocks(unit.shard.detach(), comm_);
    for (const Tensor& t : unit.layout.unflatten(whole))
      out.insert(parameter_names_[name++], t.clone());
  }
  for (const auto& [path, t] : model_->named_buffers()) {
    Tensor rank0 = t.detach().clone();
    comm_.broadcast(rank0, 0).wait();
    out.insert(path, rank0);
  }
  return out;
}

void FullyShardedModel::load_state_dict(const StateDict& state, bool strict) {
  // Every entry checked before anything changes.
  std::set<std::string> known;
  size_t name = 0;
  for (const Unit& unit : units_)
    for (const Shape& shape : unit.layout.shapes()) {
      const std::string& path = parameter_names_[name++];
      known.insert(path);
      EXADNN_CHECK(state.contains(path), kWhere, "the state has no entry '", path, "'");
      EXADNN_CHECK(state.at(path).shape() == shape, kWhere, "entry '", path, "' has shape ",
                   state.at(path).shape(), ", the parameter has ", shape);
    }
  const auto buffers = model_->named_buffers();
  for (const auto& [path, t] : buffers) {
    known.insert(path);
    EXADNN_CHECK(state.contains(path), kWhere, "the state has no entry '", path, "'");
    EXADNN_CHECK(state.at(path).shape() == t.shape(), kWhere, "entry '", path, "' has shape ",
                 state.at(path).shape(), ", the buffer has ", t.shape());
  }
  if (strict)
    for (const auto& [path, t] : state)
      EXADNN_CHECK(known.count(path) > 0, kWhere, "unexpected entry '", path,
                   "' (the model has no such parameter or buffer)");
  NoGradGuard no_grad;
  name = 0;
  for (Unit& unit : units_) {
    std::vector<Tensor> values;
    for (size_t k = 0; k < unit.layout.count(); ++k)
      values.push_back(state.at(parameter_names_[name++]).to(DType::f32));
    copy_(unit.shard, unit.layout.block_of(values, comm_.rank()));
  }
  for (const auto& [path, t] : buffers) copy_(t, state.at(path).to(t.dtype()));
}

void FullyShardedModel::gather_into_model() {
  for (Unit& unit : units_) {
    std::vector<Tensor> whole = gather(unit);
    for (Tensor& t : whole) t = t.detach().requires_grad_(true);  // leaves, as a module's are
    unit.layer->bind_parameters(whole);
  }
}

std::vector<FlatShards> FullyShardedModel::layouts() const {
  std::vector<FlatShards> out;
  for (const Unit& unit : units_) out.push_back(unit.layout);
  return out;
}

StateDict FullyShardedModel::optimizer_state_dict() const {
  return one_process_state(inner_->state_dict(), layouts(), comm_);
}

void FullyShardedModel::load_optimizer_state_dict(const StateDict& state) {
  inner_->load_state_dict(
      sharded_state(state, layouts(), buffer_names(inner_->state_dict()), comm_, kWhere));
}

}  // namespace exadnn::dist
