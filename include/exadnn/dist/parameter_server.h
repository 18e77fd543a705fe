// ParameterServer: S ranks hold shards of the parameters and apply the optimizer; the other ranks
// are workers that push gradients and pull parameters.
//
//   dist::ParameterServer ps(model, comm, make_sgd, dist::ParameterServerOptions().servers(1));
//   if (ps.is_server()) {
//     ps.serve();                       // returns when every worker has called finish()
//   } else {
//     for (...) { loss.backward(); ps.step(); model.zero_grad(); }   // replaces opt.step()
//     ps.finish();
//   }
//
// Synchronous mode: every step, each server averages the gradients of all workers and applies
// one optimizer step (the same arithmetic as an averaged allreduce followed by the optimizer);
// workers then pull the new parameters. Asynchronous (Downpour) mode: a worker pushes the mean
// of its gradients every `push_every` steps, divided by the number of workers W (its share of a
// synchronous step), and pulls the parameters every `pull_every` steps; servers apply each push
// as it arrives, without waiting for the other workers. Parameters are
// assigned whole to servers, largest first to the least-loaded server.
//
// Checkpoints: the optimizer state lives on the servers, one shard each. gather_optimizer_state()
// (every worker, at the same point, e.g. the end of an epoch) collects it on worker 0 in the
// layout of one optimizer over all the trainable parameters ("step", "lr", "<i>.<buffer>" with i
// the parameter's index in the module), so a checkpoint moves freely between a parameter-server
// run and a single-process one; load_optimizer_state() hands such a state back to the servers.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/nn/module.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::dist {

/// Makes the servers' update rule over a shard of the parameters: any exadnn optimizer, or a
/// user-supplied one.
using OptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

/// Settings of a ParameterServer (chained setters).
class ParameterServerOptions {
 public:
  /// Number of server ranks (the last ones of the communicator); default 1.
  ParameterServerOptions& servers(int s) {
    servers_ = s;
    return *this;
  }
  /// Asynchronous (Downpour) instead of synchronous updates (default false).
  ParameterServerOptions& asynchronous(bool on = true) {
    asynchronous_ = on;
    return *this;
  }
  /// Asynchronous mode: push gradients every n steps (default 1).
  ParameterServerOptions& push_every(int n) {
    push_every_ = n;
    return *this;
  }
  /// Asynchronous mode: pull parameters every n steps (default 1).
  ParameterServerOptions& pull_every(int n) {
    pull_every_ = n;
    return *this;
  }
  int servers() const { return servers_; }
  bool is_asynchronous() const { return asynchronous_; }
  int push_every() const { return push_every_; }
  int pull_every() const { return pull_every_; }

 private:
  int servers_ = 1;
  bool asynchronous_ = false;
  int push_every_ = 1;
  int pull_every_ = 1;
};

/// A parameter server over the ranks of a communicator (see the file comment).
class ParameterServer {
 public:
  /// Collective. Broadcasts rank 0's parameters, splits the ranks into workers and servers and
  /// makes the servers' optimizers. `module` must outlive this object.
  ParameterServer(nn::Module& module, Communicator comm, OptimizerFactory make_optimizer,
                  ParameterServerOptions options = {});
  ~ParameterServer();

  bool is_server() const { return is_server_; }
  /// The workers among themselves (for sharding data and averaging metrics); on a server, the
  /// servers among themselves.
  const Communicator& group() const { return group_; }
  int num_workers() const { return num_workers_; }

  /// Worker: hands this step's gradients (.grad() of the module's parameters) to the servers
  /// and, when due, replaces the parameters with the servers' current values.
  void step();
  /// Worker, every worker at the same point (e.g. the end of an epoch): asynchronous mode pushes
  /// what it accumulated, and once every worker has, each holds the servers' current parameters —
  /// every worker's updates so far, the model to score or save. Without it a worker that ends
  /// its steps first holds parameters missing the others' last updates. Synchronous mode: nothing
  /// to do (the parameters are the servers' after every step).
  void synchronize();
  /// Worker: pushes what is left and tells the servers it is done; asynchronous mode then waits
  /// for the final parameters, sent once every worker is done (so all end with the same model).
  void finish();
  /// Server: applies updates until every worker has finished; its shard of the module's
  /// parameters then holds the final values (the workers hold all of them).
  void serve();

  /// Worker, every worker at the same point (between steps): the servers' optimizer state as
  /// one optimizer over all the trainable parameters would have it (optim::Optimizer::state_dict
  /// layout) on worker 0 — an empty StateDict on the others. The servers answer inside serve()
  /// once every worker has asked, so the state is that of the same steps for all of them
  /// (asynchronous mode: each worker first pushes what it accumulated); every worker then holds
  /// the servers' current parameters.
  StateDict gather_optimizer_state();
  /// Collective over all ranks, after construction and before serve()/step(): loads rank 0's
  /// `state` (the layout gather_optimizer_state() returns; ignored on the other ranks) into the
  /// servers' optimizers. A state that does not fit an optimizer from the factory over all the
  /// trainable parameters is an Error naming the mismatch on rank 0 (the other ranks throw too).
  void load_optimizer_state(const StateDict& state);

  /// Server: its optimizer (null on workers).
  optim::Optimizer* optimizer() { return optimizer_.get(); }

 private:
  struct Shard;

  void push();
  void pull();
  // Server: sends its optimizer's state to worker 0 (gather_optimizer_state's reply).
  void send_state();
  // Worker 0: an optimizer from the factory over all the trainable parameters, as the template
  // of the whole state (its keys, order, shapes and dtypes).
  std::unique_ptr<optim::Optimizer> whole_optimizer() const;

  nn::Module& module_;
  std::vector<Tensor> params_;
  Communicator comm_;  // a private duplicate: PS traffic never meets other messages
  Communicator group_;
  ParameterServerOptions options_;
  bool is_server_ = false;
  int num_workers_ = 0;
  std::vector<std::unique_ptr<Shard>> shards_;  // one per server
  OptimizerFactory make_optimizer_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  int64_t steps_ = 0;
  int64_t accumulated_ = 0;
  bool finished_ = false;
};

}  // namespace exadnn::dist
