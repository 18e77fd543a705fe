#include "exadnn/dist/parameter_server.h"

#include <algorithm>
#include <numeric>
#include <thread>

#include "comm_state.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "mpi_check.h"
#include "mpi_types.h"

namespace exadnn::dist {

namespace {
constexpr const char* kWhere = "dist::ParameterServer";
constexpr int kPush = 11, kPull = 12, kParams = 13, kDone = 14;
constexpr int kGather = 15, kState = 16, kLoad = 17;  // optimizer state: request, reply, load
constexpr int kSync = 18;  // asynchronous mode: a worker waits for the parameters of all pushes

// The keys of an optimizer's state_dict() grouped by what they belong to: [0] the optimizer-wide
// entries ("step", "lr"), [i + 1] those of parameter i ("i.step", "i.<buffer>", ...), in order.
std::vector<std::vector<std::string>> keys_by_param(const StateDict& state, size_t params) {
  std::vector<std::vector<std::string>> groups(params + 1);
  for (const auto& entry : state) {
    const std::string& key = entry.first;
    const size_t dot = key.find('.');
    const bool indexed =
        dot != std::string::npos && dot > 0 && key.find_first_not_of("0123456789") == dot;
    const size_t group = indexed ? std::stoull(key.substr(0, dot)) + 1 : 0;
    EXADNN_CHECK(group <= params, kWhere, "optimizer state entry '", key, "' names parameter ",
                 group - 1, " but there are ", params);
    groups[group].push_back(key);
  }
  return groups;
}

// Waits for a message from `source` (or MPI_ANY_SOURCE) with any tag, answering liveness queries
// meanwhile; a silence longer than the communicator's timeout is a TimeoutError.
MPI_Status probe(detail::CommState& comm, int source, const std::string& waiting_for) {
  const auto start = std::chrono::steady_clock::now();
  for (int polls = 0;; ++polls) {
    int flag = 0;
    MPI_Status status;
    detail::mpi_check(MPI_Iprobe(source, MPI_ANY_TAG, comm.data, &flag, &status), "MPI_Iprobe",
                      kWhere);
    if (flag) return status;
    comm.serve_queries();
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > comm.timeout)
      throw TimeoutError(kWhere, exadnn::detail::cat("server rank ", comm.rank,
                                                     " heard nothing from ", waiting_for, " for ",
                                                     std::chrono::duration<double>(waited).count(),
                                                     " s (the timeout)"));
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}
}  // namespace

// One server's part of the parameters, with the flat buffer that carries it.
struct ParameterServer::Shard {
  int server = 0;               // its rank
  std::vector<size_t> params;   // indices into params_
  std::vector<int64_t> offset;  // element offset of each in `flat`
  Tensor flat;                  // the message: gradients or parameters, packed
  Tensor accumulated;           // worker, asynchronous mode: summed gradients since the last push

  void pack_params(const std::vector<Tensor>& all) {
    for (size_t j = 0; j < params.size(); ++j) {
      const Tensor& p = all[params[j]];
      copy_(flat.narrow(0, offset[j], p.numel()), p.reshape({p.numel()}));
    }
  }
  void pack_grads(const std::vector<Tensor>& all, const Tensor& into) {
    for (size_t j = 0; j < params.size(); ++j) {
      const Tensor& p = all[params[j]];
      Tensor slot = into.narrow(0, offset[j], p.numel());
      const Tensor g = p.grad();
      if (g.defined())
        copy_(slot, g.reshape({p.numel()}));
      else
        fill_(slot, 0.0);
    }
  }
  // The keys of this server's optimizer state in its state_dict() order, named as in the state
  // of one optimizer over all the parameters (grouped by keys_by_param): parameter j of the shard
  // is parameter params[j] of the whole, its "j.<name>" is "params[j].<name>" there.
  std::vector<std::string> state_keys(const std::vector<std::vector<std::string>>& whole) const {
    std::vector<std::string> keys = whole[0];
    for (size_t k : params) keys.insert(keys.end(), whole[k + 1].begin(), whole[k + 1].end());
    return keys;
  }
  // Writes `from` (packed) into each parameter (`grads` false) or its .grad() (`grads` true).
  void unpack(const std::vector<Tensor>& all, const Tensor& from, bool grads) {
    for (size_t j = 0; j < params.size(); ++j) {
      Tensor p = all[params[j]];
      Tensor slice = from.narrow(0, offset[j], p.numel()).view(p.shape());
      if (!grads)
        copy_(p, slice);
      else
        p.set_grad(slice.clone());
    }
  }
};

ParameterServer::ParameterServer(nn::Module& module, Communicator comm,
                                 OptimizerFactory make_optimizer, ParameterServerOptions options)
    : module_(module),
      comm_(comm.split(0, comm.rank())),
      group_(comm_),
      options_(options),
      make_optimizer_(make_optimizer) {
  const int size = comm_.size(), servers = options.servers();
  EXADNN_CHECK(servers >= 1 && servers < size, kWhere, "needs 1 <= servers < ranks, got ", servers,
               " servers among ", size, " ranks");
  EXADNN_CHECK(options.push_every() >= 1 && options.pull_every() >= 1, kWhere,
               "push_every and pull_every must be >= 1");
  num_workers_ = size - servers;
  is_server_ = comm_.rank() >= num_workers_;
  group_ = comm_.split(is_server_ ? 1 : 0, comm_.rank());
  broadcast_module(module, comm_);
  for (const Tensor& p : module.parameters())
    if (p.requires_grad()) params_.push_back(p);
  EXADNN_CHECK(!params_.empty(), kWhere, "the module has no trainable parameters");
  const DType dtype = params_[0].dtype();
  for (const Tensor& p : params_)
    EXADNN_CHECK(p.dtype() == dtype, kWhere, "parameters of one dtype are needed, got ",
                 dtype_name(dtype), " and ", dtype_name(p.dtype()));

  // Largest parameters first, each to the server with the fewest elements so far.
  std::vector<size_t> order(params_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return params_[a].numel() > params_[b].numel(); });
  std::vector<int64_t> load(static_cast<size_t>(servers), 0);
  for (int s = 0; s < servers; ++s) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->server = num_workers_ + s;
  }
  for (size_t k : order) {
    const size_t s = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[s] += params_[k].numel();
    shards_[s]->params.push_back(k);
  }
  for (auto& shard : shards_) {
    std::sort(shard->params.begin(), shard->params.end());
    int64_t n = 0;
    for (size_t k : shard->params) {
      shard->offset.push_back(n);
      n += params_[k].numel();
    }
    shard->flat = zeros({n}, TensorOptions().dtype(dtype));
    if (!is_server_ && options.is_asynchronous())
      shard->accumulated = zeros({n}, TensorOptions().dtype(dtype));
  }
  if (is_server_) {
    std::vector<Tensor> mine;
    for (size_t k : shards_[static_cast<size_t>(comm_.rank() - num_workers_)]->params)
      mine.push_back(params_[k]);
    optimizer_ = make_optimizer(std::move(mine));
    EXADNN_CHECK(optimizer_ != nullptr, kWhere, "the optimizer factory returned null");
  }
}

ParameterServer::~ParameterServer() = default;

void ParameterServer::push() {
  NoGradGuard no_grad;
  std::vector<Work> sends;
  for (auto& shard : shards_) {
    if (options_.is_asynchronous()) {
      copy_(shard->flat, shard->accumulated);
      // The mean over the accumulated steps, as one worker's share (1/W) of a synchronous step:
      // with no staleness, W asynchronous pushes of plain SGD add up to one synchronous update.
      mul_(shard->flat, 1.0 / static_cast<double>(accumulated_ * num_workers_));
      fill_(shard->accumulated, 0.0);
    } else {
      shard->pack_grads(params_, shard->flat);
    }
    sends.push_back(comm_.send(shard->flat, shard->server, kPush));
  }
  for (Work& w : sends) w.wait();
  accumulated_ = 0;
}

void ParameterServer::pull() {
  NoGradGuard no_grad;
  std::vector<Work> works;
  Tensor request = zeros({1}, TensorOptions().dtype(DType::i64));
  for (auto& shard : shards_) {
    if (options_.is_asynchronous()) works.push_back(comm_.send(request, shard->server, kPull));
    works.push_back(comm_.recv(shard->flat, shard->server, kParams));
  }
  for (Work& w : works) w.wait();
  for (auto& shard : shards_) shard->unpack(params_, shard->flat, false);
}

void ParameterServer::step() {
  EXADNN_CHECK(!is_server_, kWhere, "step() is for workers; servers call serve()");
  EXADNN_CHECK(!finished_, kWhere, "step() after finish()");
  ++steps_;
  if (!options_.is_asynchronous()) {
    ++accumulated_;
    push();
    pull();
    return;
  }
  {
    NoGradGuard no_grad;
    for (auto& shard : shards_) {
      shard->pack_grads(params_, shard->flat);
      add_(shard->accumulated, shard->flat);
    }
  }
  if (++accumulated_ == options_.push_every()) push();
  if (steps_ % options_.pull_every() == 0) pull();
}

void ParameterServer::synchronize() {
  EXADNN_CHECK(!is_server_, kWhere, "synchronize() is for workers; servers serve()");
  EXADNN_CHECK(!finished_, kWhere, "synchronize() after finish()");
  if (!options_.is_asynchronous()) return;
  if (accumulated_ > 0) push();
  // The servers answer once every worker has asked; each worker's pushes precede its request
  // (one sender, one communicator: MPI keeps their order), so all of them are applied.
  Tensor request = zeros({1}, TensorOptions().dtype(DType::i64));
  std::vector<Work> works;
  for (auto& shard : shards_) {
    works.push_back(comm_.send(request, shard->server, kSync));
    works.push_back(comm_.recv(shard->flat, shard->server, kParams));
  }
  for (Work& w : works) w.wait();
  NoGradGuard no_grad;
  for (auto& shard : shards_) shard->unpack(params_, shard->flat, false);
}

void ParameterServer::finish() {
  if (is_server_ || finished_) return;
  finished_ = true;
  if (options_.is_asynchronous() && accumulated_ > 0) push();
  Tensor done = zeros({1}, TensorOptions().dtype(DType::i64));
  std::vector<Work> works;
  for (auto& shard : shards_) works.push_back(comm_.send(done, shard->server, kDone));
  // Asynchronous: once every worker is done, each server sends its final parameters to all.
  if (options_.is_asynchronous())
    for (auto& shard : shards_) works.push_back(comm_.recv(shard->flat, shard->server, kParams));
  for (Work& w : works) w.wait();
  if (options_.is_asynchronous()) {
    NoGradGuard no_grad;
    for (auto& shard : shards_) shard->unpack(params_, shard->flat, false);
  }
}

std::unique_ptr<optim::Optimizer> ParameterServer::whole_optimizer() const {
  std::unique_ptr<optim::Optimizer> whole = make_optimizer_(params_);
  EXADNN_CHECK(whole != nullptr, kWhere, "the optimizer factory returned null");
  return whole;
}

StateDict ParameterServer::gather_optimizer_state() {
  EXADNN_CHECK(!is_server_, kWhere, "gather_optimizer_state() is for workers; servers serve()");
  EXADNN_CHECK(!finished_, kWhere, "gather_optimizer_state() after finish()");
  if (options_.is_asynchronous() && accumulated_ > 0) push();  // its updates belong in the state
  Tensor request = zeros({1}, TensorOptions().dtype(DType::i64));
  std::vector<Work> works;
  for (auto& shard : shards_) works.push_back(comm_.send(request, shard->server, kGather));
  StateDict whole;
  std::vector<Tensor> discarded;  // the optimizer-wide entries of servers after the first
  if (comm_.rank() == 0) {
    whole = whole_optimizer()->state_dict();  // receive buffers, in the whole's layout
    const auto groups = keys_by_param(whole, params_.size());
    for (size_t s = 0; s < shards_.size(); ++s) {
      const std::vector<std::string> keys = shards_[s]->state_keys(groups);
      for (size_t i = 0; i < keys.size(); ++i) {
        // "step" and "lr" agree on all servers (each applied every update): the first's count.
        const bool discard = s > 0 && i < groups[0].size();
        Tensor into =
            discard ? discarded.emplace_back(empty_like(whole.at(keys[i]))) : whole.at(keys[i]);
        works.push_back(comm_.recv(into, shards_[s]->server, kState));
      }
    }
  }
  for (auto& shard : shards_) works.push_back(comm_.recv(shard->flat, shard->server, kParams));
  for (Work& w : works) w.wait();
  NoGradGuard no_grad;
  for (auto& shard : shards_) shard->unpack(params_, shard->flat, false);
  return whole;
}

void ParameterServer::send_state() {
  const StateDict state = optimizer_->state_dict();
  std::vector<Work> sends;
  for (const auto& entry : state) sends.push_back(comm_.send(entry.second, 0, kState));
  for (Work& w : sends) w.wait();
}

void ParameterServer::load_optimizer_state(const StateDict& state) {
  // Rank 0 checks the state against an optimizer over all the parameters, and tells everyone.
  std::string refused;
  std::vector<std::vector<std::string>> groups;
  if (comm_.rank() == 0) {
    try {
      whole_optimizer()->load_state_dict(state);
      groups = keys_by_param(state, params_.size());
    } catch (const Error& e) {
      refused = e.what();
    }
  }
  Tensor fits = from_vector<int64_t>({refused.empty() ? 1 : 0});
  comm_.broadcast(fits, 0).wait();
  if (comm_.rank() == 0 && !refused.empty())
    throw Error(kWhere, "cannot load the servers' optimizer state: " + refused);
  EXADNN_CHECK(fits.data<int64_t>()[0] == 1, kWhere,
               "rank 0 refused the optimizer state (see its message)");
  std::vector<Work> works;
  StateDict mine;
  if (comm_.rank() == 0)
    for (auto& shard : shards_)
      for (const std::string& key : shard->state_keys(groups))
        works.push_back(comm_.send(state.at(key).contiguous(), shard->server, kLoad));
  if (is_server_) {
    mine = optimizer_->state_dict();  // receive buffers: this optimizer's own keys and layout
    for (const auto& entry : mine) works.push_back(comm_.recv(entry.second, 0, kLoad));
  }
  for (Work& w : works) w.wait();
  if (is_server_) optimizer_->load_state_dict(mine);
}

void ParameterServer::serve() {
  EXADNN_CHECK(is_server_, kWhere, "serve() is for servers; workers call step()");
  detail::CommState& state = *comm_.state();
  Shard& shard = *shards_[static_cast<size_t>(comm_.rank() - num_workers_)];
  const MPI_Datatype type = detail::mpi_datatype(shard.flat.dtype());
  const int n = static_cast<int>(shard.flat.numel());
  NoGradGuard no_grad;
  auto receive = [&](const MPI_Status& status, const Tensor& into) {
    detail::mpi_check(
        MPI_Recv(into.defined() ? into.data_ptr() : nullptr, into.defined() ? n : 0, type,
                 status.MPI_SOURCE, status.MPI_TAG, state.data, MPI_STATUS_IGNORE),
        "MPI_Recv of a shard", kWhere);
  };
  auto send_params = [&](int worker) {
    shard.pack_params(params_);
    comm_.send(shard.flat, worker, kParams).wait();
  };
  auto apply = [&](const Tensor& gradient) {
    shard.unpack(params_, gradient, true);
    optimizer_->step();
  };
  Tensor scratch = zeros({n}, TensorOptions().dtype(shard.flat.dtype()));
  Tensor control = zeros({1}, TensorOptions().dtype(DType::i64));

  // Every worker asked for the optimizer state: the state to worker 0, the parameters to all.
  auto answer_gather = [&] {
    send_state();
    for (int w = 0; w < num_workers_; ++w) send_params(w);
  };

  if (options_.is_asynchronous()) {
    // A worker that asked for the state or to synchronize waits for the answer: it sends nothing
    // more until then.
    for (int active = num_workers_, asking = 0, syncing = 0; active > 0;) {
      const MPI_Status status = probe(state, MPI_ANY_SOURCE, "any worker");
      if (status.MPI_TAG == kPush) {
        receive(status, scratch);
        apply(scratch);
      } else {
        detail::mpi_check(MPI_Recv(control.data_ptr(), 1, MPI_INT64_T, status.MPI_SOURCE,
                                   status.MPI_TAG, state.data, MPI_STATUS_IGNORE),
                          "MPI_Recv of a control message", kWhere);
        if (status.MPI_TAG == kPull) send_params(status.MPI_SOURCE);
        if (status.MPI_TAG == kDone) --active;
        if (status.MPI_TAG == kGather && ++asking == num_workers_) {
          answer_gather();
          asking = 0;
        }
        if (status.MPI_TAG == kSync && ++syncing == num_workers_) {
          for (int w = 0; w < num_workers_; ++w) send_params(w);
          syncing = 0;
        }
      }
    }
    for (int w = 0; w < num_workers_; ++w) send_params(w);  // the final values, to every worker
    return;
  }
  // Synchronous: one gradient from every worker per step, averaged, one optimizer step.
  Tensor sum = zeros({n}, TensorOptions().dtype(shard.flat.dtype()));
  // Each round, every worker sends one message: all gradients, all done, or all asking for the
  // optimizer state.
  while (true) {
    int done = 0, asking = 0;
    fill_(sum, 0.0);
    for (int w = 0; w < num_workers_; ++w) {
      const MPI_Status status = probe(state, w, exadnn::detail::cat("worker ", w));
      if (status.MPI_TAG == kDone || status.MPI_TAG == kGather) {
        detail::mpi_check(MPI_Recv(control.data_ptr(), 1, MPI_INT64_T, w, status.MPI_TAG,
                                   state.data, MPI_STATUS_IGNORE),
                          "MPI_Recv of a control message", kWhere);
        ++(status.MPI_TAG == kDone ? done : asking);
        continue;
      }
      EXADNN_CHECK(status.MPI_TAG == kPush, kWhere, "unexpected message with tag ", status.MPI_TAG,
                   " from worker ", w);
      receive(status, scratch);
      add_(sum, scratch);
    }
    if (done == num_workers_) return;
    if (asking == num_workers_) {
      answer_gather();
      continue;
    }
    EXADNN_CHECK(done == 0 && asking == 0, kWhere, done, " of ", num_workers_,
                 " workers finished and ", asking,
                 " asked for the optimizer state while the others sent gradients: synchronous "
                 "workers must run the same number of steps and gather the state together");
    mul_(sum, 1.0 / num_workers_);
    apply(sum);
    for (int w = 0; w < num_workers_; ++w) send_params(w);
  }
}

}  // namespace exadnn::dist
