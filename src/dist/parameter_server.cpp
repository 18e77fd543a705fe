#include "exadnn/dist/parameter_server.h"

#include <algorithm>
#include <numeric>
#include <thread>

#include "comm_state.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "mpi_types.h"

namespace exadnn::dist {

namespace {
constexpr const char* kWhere = "dist::ParameterServer";
constexpr int kPush = 11, kPull = 12, kParams = 13, kDone = 14;

// Waits for a message from `source` (or MPI_ANY_SOURCE) with any tag, answering liveness queries
// meanwhile; a silence longer than the communicator's timeout is a TimeoutError.
MPI_Status probe(detail::CommState& comm, int source, const std::string& waiting_for) {
  const auto start = std::chrono::steady_clock::now();
  for (int polls = 0;; ++polls) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(source, MPI_ANY_TAG, comm.data, &flag, &status);
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
    : module_(module), comm_(comm.split(0, comm.rank())), group_(comm_), options_(options) {
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

void ParameterServer::serve() {
  EXADNN_CHECK(is_server_, kWhere, "serve() is for servers; workers call step()");
  detail::CommState& state = *comm_.state();
  Shard& shard = *shards_[static_cast<size_t>(comm_.rank() - num_workers_)];
  const MPI_Datatype type = detail::mpi_datatype(shard.flat.dtype());
  const int n = static_cast<int>(shard.flat.numel());
  NoGradGuard no_grad;
  auto receive = [&](const MPI_Status& status, const Tensor& into) {
    MPI_Recv(into.defined() ? into.data_ptr() : nullptr, into.defined() ? n : 0, type,
             status.MPI_SOURCE, status.MPI_TAG, state.data, MPI_STATUS_IGNORE);
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

  if (options_.is_asynchronous()) {
    for (int active = num_workers_; active > 0;) {
      const MPI_Status status = probe(state, MPI_ANY_SOURCE, "any worker");
      if (status.MPI_TAG == kPush) {
        receive(status, scratch);
        apply(scratch);
      } else {
        MPI_Recv(control.data_ptr(), 1, MPI_INT64_T, status.MPI_SOURCE, status.MPI_TAG, state.data,
                 MPI_STATUS_IGNORE);
        if (status.MPI_TAG == kPull) send_params(status.MPI_SOURCE);
        if (status.MPI_TAG == kDone) --active;
      }
    }
    for (int w = 0; w < num_workers_; ++w) send_params(w);  // the final values, to every worker
    return;
  }
  // Synchronous: one gradient from every worker per step, averaged, one optimizer step.
  Tensor sum = zeros({n}, TensorOptions().dtype(shard.flat.dtype()));
  while (true) {
    int done = 0;
    fill_(sum, 0.0);
    for (int w = 0; w < num_workers_; ++w) {
      const MPI_Status status = probe(state, w, exadnn::detail::cat("worker ", w));
      if (status.MPI_TAG == kDone) {
        MPI_Recv(control.data_ptr(), 1, MPI_INT64_T, w, kDone, state.data, MPI_STATUS_IGNORE);
        ++done;
        continue;
      }
      EXADNN_CHECK(status.MPI_TAG == kPush, kWhere, "unexpected message with tag ", status.MPI_TAG,
                   " from worker ", w);
      receive(status, scratch);
      add_(sum, scratch);
    }
    if (done == num_workers_) return;
    EXADNN_CHECK(done == 0, kWhere, done, " of ", num_workers_,
                 " workers finished while the others sent gradients: synchronous workers must run "
                 "the same number of steps");
    mul_(sum, 1.0 / num_workers_);
    apply(sum);
    for (int w = 0; w < num_workers_; ++w) send_params(w);
  }
}

}  // namespace exadnn::dist
