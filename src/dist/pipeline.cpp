// PipelineParallel (dist/pipeline.h): stage cutting, the two schedules, activations and gradients
// as tagged non-blocking messages (a shape header, then the values), the gathered state.
#include "exadnn/dist/pipeline.h"
#include "exadnn/dist/pipeline_balance.h"
#include "exadnn/dist/pipeline_schedule.h"

#include <chrono>
#include <string>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/operators.h"
#include "seconds_since.h"
#include "tensor_message.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::PipelineParallel";
constexpr int64_t kMaxDims = detail::kMaxMessageDims;

using detail::Clock;
using detail::seconds_since;

// The first layer of each stage 1 .. p−1, balanced by (parameter count + 1) per layer.
std::vector<size_t> balanced_boundaries(const nn::Sequential& model, int p) {
  std::vector<double> cost;
  double total = 0;
  for (size_t i = 0; i < model.size(); ++i) {
    cost.push_back(static_cast<double>(model[i]->parameter_count()) + 1.0);
    total += cost.back();
  }
  std::vector<size_t> cuts;
  size_t j = 0;
  double cumulative = 0;
  for (int k = 1; k < p; ++k) {
    // Take at least one layer, stop once the share k/p is reached, leave one layer per later stage.
    do {
      cumulative += cost[j++];
    } while (cumulative < total * k / p && j < model.size() - static_cast<size_t>(p - k));
    cuts.push_back(j);
  }
  return cuts;
}

// The layer index that starts a one-process state name ("3.weight" → 3).
size_t layer_of(const std::string& name) {
  return std::stoul(name.substr(0, name.find('.')));
}

}  // namespace

const char* to_string(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::gpipe ? "gpipe" : "1f1b";
}

PipelineSchedule parse_pipeline_schedule(const std::string& name) {
  if (name == "gpipe") return PipelineSchedule::gpipe;
  if (name == "1f1b") return PipelineSchedule::one_f_one_b;
  throw Error(kWhere, exadnn::detail::cat("unknown schedule '", name, "' (known: gpipe, 1f1b)"));
}

// One micro-batch in flight on this stage: what forward kept for backward.
struct PipelineParallel::MicroBatch {
  int64_t index = 0;
  Tensor input;   // the stage's input (a leaf requiring grad on later stages)
  Tensor output;  // the stage's output with its graph (undefined with recompute)
  Tensor target;  // last stage: the micro-batch's target
  Tensor loss;    // last stage: loss / m with its graph (undefined with recompute)
};

std::vector<size_t> PipelineParallel::measured_boundaries(const nn::Sequential& model,
                                                          const Tensor& micro_batch) {
  const int p = comm_.size();
  if (model.size() < static_cast<size_t>(p)) return {};  // refused below
  // Every rank of the group measures; the mean over them decides, and the group's rank 0's cut is
  // everyone's (the same doubles on every rank would cut alike; the broadcast makes sure).
  const Communicator& group = options_.measured_over() ? *options_.measured_over() : comm_;
  Tensor costs = from_vector<double>(measure_layer_costs(model, micro_batch));
  group.allreduce(costs).wait();
  layer_costs_.assign(costs.data<double>(), costs.data<double>() + costs.numel());
  for (double& c : layer_costs_) c /= group.size();
  Tensor cuts = zeros({p - 1}, TensorOptions().dtype(DType::i64));
  if (group.rank() == 0) {
    const std::vector<size_t> mine = cut_evenly(layer_costs_, p);
    for (int k = 0; k + 1 < p; ++k) cuts.data<int64_t>()[k] = static_cast<int64_t>(mine[k]);
  }
  group.broadcast(cuts, 0).wait();
  return std::vector<size_t>(cuts.data<int64_t>(), cuts.data<int64_t>() + (p - 1));
}

PipelineParallel::PipelineParallel(const nn::Sequential& model, Communicator comm,
                                   PipelineOptions options)
    : comm_(std::move(comm)), options_(std::move(options)) {
  const int p = comm_.size();
  EXADNN_CHECK(model.size() >= static_cast<size_t>(p), kWhere, "the model has ", model.size(),
               " layers, fewer than the ", p, " stages: a rank would be left empty");
  EXADNN_CHECK(options_.micro_batches() >= 1, kWhere, "micro_batches must be >= 1, got ",
               options_.micro_batches());
  std::vector<size_t> cuts = options_.boundaries();
  if (cuts.empty() && options_.balance_sample().defined())
    cuts = measured_boundaries(model, options_.balance_sample());
  if (cuts.empty()) cuts = balanced_boundaries(model, p);
  EXADNN_CHECK(cuts.size() == static_cast<size_t>(p - 1), kWhere, "boundaries must list ", p - 1,
               " first layers (one per stage after the first), got ", cuts.size());
  for (size_t k = 0; k < cuts.size(); ++k)
    EXADNN_CHECK(cuts[k] > (k == 0 ? 0 : cuts[k - 1]) && cuts[k] < model.size(), kWhere,
                 "boundary ", k, " = ", cuts[k], " leaves a stage empty (boundaries must increase ",
                 "strictly inside 1..", model.size() - 1, ")");
  cuts.insert(cuts.begin(), 0);
  cuts.push_back(model.size());
  cuts_ = cuts;
  first_ = cuts[comm_.rank()];
  end_ = cuts[comm_.rank() + 1];
  stage_ = std::make_shared<nn::Sequential>();
  for (size_t i = first_; i < end_; ++i) stage_->push_back(model[i]);
  for (const auto& [name, t] : model.state_dict()) {
    const size_t layer = layer_of(name);
    int owner = 0;
    while (layer >= cuts[owner + 1]) ++owner;
    entries_.push_back({name, t.shape(), t.dtype(), owner});
  }
}

void PipelineParallel::send_tensor(const Tensor& t, int dst, int tag) {
  for (Work& w : detail::send_tensor_message(t, comm_, dst, tag, kWhere))
    pending_sends_.push_back(std::move(w));
}

Tensor PipelineParallel::recv_tensor(int src, int tag) {
  return detail::recv_tensor_message(comm_, src, tag);
}

Tensor PipelineParallel::micro_batch_loss(const Tensor& output, const Tensor& target) const {
  return (*loss_)(output, target) / static_cast<double>(options_.micro_batches());
}

void PipelineParallel::run_forward(MicroBatch& mb, const Tensor& x, const Tensor& target) {
  const int64_t b = x.size(0) / options_.micro_batches();
  mb.input = is_first() ? x.narrow(0, mb.index * b, b)
                        : recv_tensor(comm_.rank() - 1, static_cast<int>(2 * mb.index));
  if (is_last()) mb.target = target.narrow(0, mb.index * b, b);
  const auto t0 = Clock::now();
  Tensor out;
  if (options_.recompute()) {
    NoGradGuard no_grad;  // only the input is kept; backward runs the stage again
    out = (*stage_)(mb.input);
    if (is_last()) loss_sum_ += micro_batch_loss(out, mb.target).item<double>();
  } else {
    if (!is_first()) mb.input.requires_grad_(true);
    out = mb.output = (*stage_)(mb.input);
    if (is_last()) {
      mb.loss = micro_batch_loss(out, mb.target);
      loss_sum_ += mb.loss.item<double>();
    }
  }
  const double busy = seconds_since(t0);
  stats_.busy_seconds += busy;
  stats_.forward_seconds += busy;
  stats_.forward_each[static_cast<size_t>(mb.index)] = busy;
  if (!is_last()) send_tensor(out.detach(), comm_.rank() + 1, static_cast<int>(2 * mb.index));
}

void PipelineParallel::run_backward(MicroBatch& mb) {
  const Tensor grad =
      is_last() ? Tensor() : recv_tensor(comm_.rank() + 1, static_cast<int>(2 * mb.index + 1));
  const auto t0 = Clock::now();
  if (options_.recompute()) {
    if (!is_first()) mb.input = mb.input.detach().requires_grad_(true);
    mb.output = (*stage_)(mb.input);
    if (is_last()) mb.loss = micro_batch_loss(mb.output, mb.target);
  }
  if (is_last())
    mb.loss.backward();
  else
    mb.output.backward(grad);
  const double busy = seconds_since(t0);
  stats_.busy_seconds += busy;
  stats_.backward_seconds += busy;
  stats_.backward_each[static_cast<size_t>(mb.index)] = busy;
  if (!is_first())
    send_tensor(mb.input.grad(), comm_.rank() - 1, static_cast<int>(2 * mb.index + 1));
  mb = MicroBatch{mb.index, {}, {}, {}, {}};  // frees the activations
}

double PipelineParallel::forward_backward(const Tensor& x, const Tensor& target,
                                          const PipelineLoss& loss) {
  const int64_t m = options_.micro_batches();
  EXADNN_CHECK(x.defined() && x.dim() >= 1 && x.size(0) % m == 0, kWhere, "a batch of ",
               x.defined() && x.dim() >= 1 ? x.size(0) : 0, " samples does not split into ", m,
               " micro-batches");
  EXADNN_CHECK(!is_last() || (target.defined() && target.size(0) == x.size(0)), kWhere,
               "the last stage needs a target of ", x.size(0), " samples");
  stats_ = PipelineStats{};
  stats_.forward_each.assign(static_cast<size_t>(m), 0.0);
  stats_.backward_each.assign(static_cast<size_t>(m), 0.0);
  loss_ = &loss;
  loss_sum_ = 0;
  const auto t0 = Clock::now();
  std::vector<MicroBatch> mbs(static_cast<size_t>(m));
  int64_t live = 0;
  auto forward_one = [&](int64_t i) {
    mbs[i].index = i;
    run_forward(mbs[i], x, target);
    stats_.max_live_activations = std::max(stats_.max_live_activations, ++live);
  };
  auto backward_one = [&](int64_t i) {
    run_backward(mbs[i]);
    --live;
  };
  for (const PipelineOp& op : pipeline_order(options_.schedule(), comm_.rank(), comm_.size(), m)) {
    if (op.forward)
      forward_one(op.micro_batch);
    else
      backward_one(op.micro_batch);
  }
  for (Work& w : pending_sends_) w.wait();
  pending_sends_.clear();
  loss_ = nullptr;
  stats_.wall_seconds = seconds_since(t0);
  stats_.idle_fraction = 1.0 - stats_.busy_seconds / stats_.wall_seconds;
  Tensor total = from_vector<double>({loss_sum_});
  comm_.broadcast(total, comm_.size() - 1).wait();
  return total.data<double>()[0];
}

Tensor PipelineParallel::forward(const Tensor& x) {
  NoGradGuard no_grad;
  Tensor out = (*stage_)(is_first() ? x : recv_tensor(comm_.rank() - 1, 0));
  if (!is_last()) send_tensor(out, comm_.rank() + 1, 0);
  for (Work& w : pending_sends_) w.wait();
  pending_sends_.clear();
  // The last stage's output to every rank: its shape first, then its values.
  Tensor header = zeros({2 + kMaxDims}, TensorOptions().dtype(DType::i64));
  if (is_last()) {
    out = out.contiguous();
    int64_t* h = header.data<int64_t>();
    h[0] = static_cast<int64_t>(out.dtype());
    h[1] = out.dim();
    for (int64_t d = 0; d < out.dim(); ++d) h[2 + d] = out.size(d);
  }
  const int last = comm_.size() - 1;
  comm_.broadcast(header, last).wait();
  const int64_t* h = header.data<int64_t>();
  if (!is_last())
    out = empty(Shape(std::vector<int64_t>(h + 2, h + 2 + h[1])),
                TensorOptions().dtype(static_cast<DType>(h[0])));
  comm_.broadcast(out, last).wait();
  return out;
}

// A one-process name ("5.weight") as this stage's ("1.weight" when the stage starts at layer 4).
static std::string local_name(const std::string& name, size_t first) {
  const size_t dot = name.find('.');
  return std::to_string(std::stoul(name.substr(0, dot)) - first) + name.substr(dot);
}

StateDict PipelineParallel::full_state_dict() const {
  const StateDict mine = stage_->state_dict();
  StateDict out;
  for (const Entry& e : entries_) {
    Tensor t = e.stage == comm_.rank() ? mine.at(local_name(e.name, first_)).contiguous().clone()
                                       : empty(e.shape, TensorOptions().dtype(e.dtype));
    comm_.broadcast(t, e.stage).wait();
    out.insert(e.name, t);
  }
  return out;
}

void PipelineParallel::load_full_state_dict(const StateDict& state) {
  StateDict mine;
  for (const Entry& e : entries_) {
    if (e.stage != comm_.rank()) continue;
    EXADNN_CHECK(state.contains(e.name), kWhere, "the state has no entry '", e.name, "'");
    mine.insert(local_name(e.name, first_), state.at(e.name));
  }
  stage_->load_state_dict(mine);
}

}  // namespace exadnn::dist
