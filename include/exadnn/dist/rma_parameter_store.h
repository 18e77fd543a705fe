// RmaParameterStore: asynchronous SGD over MPI one-sided communication (RMA). The module's f32
// parameters live in MPI windows, sharded across the ranks; every rank reads the current values
// and adds its updates whenever it is ready, without waiting for any other rank.
//
//   dist::RmaParameterStore store(model, comm, dist::RmaOptions().staleness(4));
//   for (...) {
//     store.read();                        // the current parameters, into the module
//     loss(model(x), y).backward();
//     store.apply_gradients(lr);           // adds -lr·grad (plain SGD), or:
//     // store.step(opt);                  // any local optimizer: adds its update (new - old)
//   }
//   store.finish();                        // collective: every rank's updates are in
//   store.read();                          // the final parameters, the same on every rank
//
// Layout: the trainable parameters, flattened in module order, form one vector of N elements;
// rank r's window (MPI_Win_allocate) holds the contiguous elements [r·N/P, (r+1)·N/P). At
// construction rank 0's parameters are broadcast and every rank puts its shard in place. Each rank
// then holds one passive-target epoch (MPI_Win_lock_all) on the windows until finish():
//  - read() fetches every shard with MPI_Get (with `atomic_reads`, MPI_Get_accumulate and
//    MPI_NO_OP) and MPI_Win_flush_all. Plain MPI_Get concurrent with another rank's accumulate is
//    a conflicting access in MPI's terms: each element read is either its old or its new value on
//    the shared-memory and RDMA transports we know of, but only atomic_reads guarantees it.
//    Different elements may come from different moments (the Hogwild-style inconsistency).
//  - apply_gradients(lr) / step(opt) / accumulate(delta) add their amount with
//    MPI_Accumulate(MPI_SUM), which is element-wise atomic, and flush: once they return, the
//    update is visible to every later read() on any rank, and no update is ever lost. With
//    `read_on_update`, MPI_Get_accumulate(MPI_SUM) adds the same amount and fetches the values it
//    was added to (element-wise atomic too); the module then holds fetched + amount, so a loop
//    that reads after each update needs no read() of its own: one pass over the windows instead
//    of two. (An update that the staleness bound then holds back reads again after the wait.)
//
// Staleness: with `staleness(s)` (s >= 0) a rank that has made more than s updates more than the
// slowest rank still training waits after its update until that rank catches up. The update
// counts live in a second small window (one int64 per rank, read with MPI_Get_accumulate/NO_OP);
// a finished rank stops counting as the slowest, and so does a paused one (pause(): a rank that
// has run out of work until the next collective point, e.g. the end of an epoch whose batches
// the ranks claim first come, first served, must not be waited for). A wait longer than the
// communicator's timeout
// throws a TimeoutError naming the ranks it waited for (a dead or hung rank). Without a bound
// (the default), no rank ever waits for another before finish().
//
// Optimizers with state (momentum, Adam's moments): step(opt) keeps the state on this rank. It
// takes one step of the local optimizer from the parameters this rank last read, and adds the
// change it made (new − old) to the shared parameters. Each rank's momentum is therefore built
// from its own gradients only, and is applied on top of whatever the other ranks have added in
// the meantime: P ranks behave like P momentum-SGD chains pushing the same weights, not like one
// chain with P× the batch. (Asynchronous momentum adds to the implicit momentum of staleness;
// lower the momentum or the learning rate if P grows.) The state is never shared or averaged.
//
// Exactness with one rank: apply_gradients(lr) adds fl(−lr·g), so parameter p becomes
// fl(p + fl(−lr·g)), exactly what optim::SGD without momentum or weight decay computes: bit for
// bit serial SGD. step(opt) adds fl(new − old), which reproduces `new` up to one rounding.
//
// Progress: MPI_Accumulate and MPI_Get on another rank's window need no call on that rank with
// the shared-memory (osc/sm) and RDMA one-sided components; on a component that emulates RMA
// with messages, a rank busy computing may delay the others' operations on its shard.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/nn/module.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::dist {

/// Settings of an RmaParameterStore (chained setters).
class RmaOptions {
 public:
  /// Most updates a rank may be ahead of the slowest training rank; -1 (default): no bound.
  RmaOptions& staleness(int64_t s) {
    staleness_ = s;
    return *this;
  }
  /// Read with MPI_Get_accumulate(MPI_NO_OP) (element-wise atomic) instead of MPI_Get.
  RmaOptions& atomic_reads(bool on = true) {
    atomic_reads_ = on;
    return *this;
  }
  /// Each update also reads: it fetches the values it is added to (MPI_Get_accumulate with
  /// MPI_SUM, one pass over the windows instead of an update and then a read()) and leaves
  /// fetched + update in the module, the shared parameters as of this rank's update.
  RmaOptions& read_on_update(bool on = true) {
    read_on_update_ = on;
    return *this;
  }
  int64_t staleness() const { return staleness_; }
  bool has_atomic_reads() const { return atomic_reads_; }
  bool reads_on_update() const { return read_on_update_; }

 private:
  int64_t staleness_ = -1;
  bool atomic_reads_ = false;
  bool read_on_update_ = false;
};

/// A module's parameters in MPI windows, read and updated asynchronously (see the file comment).
class RmaParameterStore {
 public:
  /// Collective over `comm`. Broadcasts rank 0's parameters and buffers and puts them in the
  /// windows. The module's trainable parameters must be contiguous f32 host tensors; `module`
  /// must outlive this object.
  RmaParameterStore(nn::Module& module, const Communicator& comm, RmaOptions options = {});
  /// Releases the lock; the windows of a store that was not finished are left to MPI_Finalize
  /// (freeing them is collective).
  ~RmaParameterStore();
  RmaParameterStore(const RmaParameterStore&) = delete;
  RmaParameterStore& operator=(const RmaParameterStore&) = delete;

  /// Copies the current shared parameters into the module's parameters.
  void read();
  /// Adds −lr·grad of every parameter (one without a gradient adds nothing).
  void apply_gradients(double lr);
  /// One step of `opt` (which must update this store's module's parameters) on this rank; adds
  /// its change (new − old) to the shared parameters. The module keeps the new values.
  void step(optim::Optimizer& opt);
  /// Adds `delta` (N f32 values, flattened in module order) to the shared parameters (with
  /// read_on_update, the module then holds the values it was added to, plus `delta`).
  void accumulate(const float* delta);

  /// This rank makes no update until its next one: until then nobody waits for it (it stops
  /// counting as the slowest). For a rank about to enter a collective that the others reach only
  /// after their own updates (end of epoch); its next update counts it again.
  void pause();

  /// Collective: ends this rank's updates, waits (with the communicator's timeout) for every
  /// rank to end its own, then releases and frees the windows. read() still works afterwards
  /// (it returns the final parameters, the same on every rank).
  void finish();

  /// Parameters (N) in the flattened vector.
  int64_t numel() const { return numel_; }
  /// First element of rank r's shard; shard_begin(P) == numel().
  int64_t shard_begin(int r) const;
  /// Updates this rank has made.
  int64_t updates() const { return updates_; }
  /// Every rank's update count as the windows hold it now (a finished or paused rank:
  /// INT64_MAX).
  std::vector<int64_t> update_counts();
  const Communicator& communicator() const { return comm_; }
  const RmaOptions& options() const { return options_; }

 private:
  struct Windows;

  void pack(std::vector<float>& out) const;
  void unpack(const std::vector<float>& in);
  void count_update();
  // Writes this rank's entry of the count window: `value` replaces it, or is added to it.
  void set_own_count(int64_t value, bool replace);
  // Waits while this rank is more than the staleness bound ahead; true if it had to wait.
  bool wait_for_stragglers();

  std::vector<Tensor> params_;
  Communicator comm_;
  RmaOptions options_;
  int64_t numel_ = 0;
  int64_t updates_ = 0;
  std::vector<float> flat_, delta_;  // scratch: the parameters read, an update
  std::unique_ptr<Windows> windows_;
  bool finished_ = false;
  bool paused_ = false;
};

/// A job-wide int64 counter on rank 0 of `comm` (an MPI window), incremented atomically with
/// MPI_Fetch_and_op: ranks hand out work (e.g. batches) first come, first served.
class RmaCounter {
 public:
  /// Collective over `comm`; the counter starts at 0.
  explicit RmaCounter(const Communicator& comm);
  /// Collective: frees the window (after a barrier with the communicator's timeout).
  ~RmaCounter();
  RmaCounter(const RmaCounter&) = delete;
  RmaCounter& operator=(const RmaCounter&) = delete;

  /// Adds `n` and returns the value before (atomic across the job).
  int64_t fetch_add(int64_t n = 1);

 private:
  Communicator comm_;
  struct Window;
  std::unique_ptr<Window> window_;
};

}  // namespace exadnn::dist
