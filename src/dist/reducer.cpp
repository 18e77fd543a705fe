#include "exadnn/dist/reducer.h"

#include <chrono>
#include <cstdlib>

#include "bucket_transport.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {

namespace {
constexpr const char* kWhere = "dist::GradientReducer";

// FNV-1a over 64-bit words: the layout's fingerprint that ranks compare.
uint64_t fnv(uint64_t hash, uint64_t word) {
  for (int i = 0; i < 8; ++i) hash = (hash ^ ((word >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  return hash;
}
}  // namespace

const char* to_string(ReducerTransport transport) {
  switch (transport) {
    case ReducerTransport::automatic:
      return "auto";
    case ReducerTransport::mpi:
      return "mpi";
    case ReducerTransport::shared_memory:
      return "shared_memory";
  }
  return "?";
}

ReducerTransport parse_reducer_transport(const std::string& name, const std::string& where) {
  for (ReducerTransport t :
       {ReducerTransport::automatic, ReducerTransport::mpi, ReducerTransport::shared_memory})
    if (name == to_string(t)) return t;
  throw Error(where, exadnn::detail::cat("unknown gradient transport '", name,
                                         "'; expected auto, mpi or shared_memory"));
}

GradientReducer::~GradientReducer() = default;

GradientReducer::GradientReducer(std::vector<Tensor> params, Communicator comm,
                                 ReducerOptions options)
    : params_(std::move(params)), comm_(std::move(comm)) {
  EXADNN_CHECK(options.first_bucket_bytes() >= 0 && options.bucket_bytes() >= 0, kWhere,
               "bucket sizes must be >= 0");
  bucket_of_.assign(params_.size(), 0);
  ready_.assign(params_.size(), false);
  int64_t bytes_in_bucket = 0;
  for (size_t k = params_.size(); k-- > 0;) {  // reverse registration order
    const Tensor& p = params_[k];
    EXADNN_CHECK(p.defined() && is_floating(p.dtype()) && p.is_leaf(), kWhere, "parameter ", k,
                 " is not a floating-point leaf tensor");
    // Buckets live where the gradients do (device tensors reduce through the device's
    // collectives), so every parameter must be on one device.
    EXADNN_CHECK(p.device() == params_.back().device(), kWhere, "parameter ", k, " is on ",
                 p.device().str(), " but parameter ", params_.size() - 1, " is on ",
                 params_.back().device().str(), "; every parameter must be on one device");
    const int64_t bytes = static_cast<int64_t>(p.nbytes());
    const int64_t capacity =
        buckets_.size() <= 1 ? options.first_bucket_bytes() : options.bucket_bytes();
    const bool fits = !buckets_.empty() && options.bucket_bytes() > 0 &&
                      params_[buckets_.back().params[0]].dtype() == p.dtype() &&
                      bytes_in_bucket + bytes <= capacity;
    if (!fits) {
      buckets_.emplace_back();
      bytes_in_bucket = 0;
    }
    Bucket& b = buckets_.back();
    b.offset.push_back(b.params.empty() ? 0 : b.offset.back() + params_[b.params.back()].numel());
    b.params.push_back(k);
    bucket_of_[k] = buckets_.size() - 1;
    bytes_in_bucket += bytes;
  }
  for (Bucket& b : buckets_) {
    const Tensor& last = params_[b.params.back()];
    b.numel = b.offset.back() + last.numel();
    b.dtype = last.dtype();
    b.pending = b.params.size();
  }
  check_layout_agrees();
  if (comm_.size() > 1) make_transport(options.transport());
}

void GradientReducer::make_transport(ReducerTransport choice) {
  if (buckets_.empty()) return;  // nothing to reduce (the same on every rank: layouts agree)
  if (const char* env = std::getenv("EXADNN_REDUCER_TRANSPORT");
      env && choice == ReducerTransport::automatic)
    choice = parse_reducer_transport(env, "EXADNN_REDUCER_TRANSPORT");
  // The choice decides which collectives follow: every rank must make the same one.
  Tensor choices = empty({comm_.size()}, TensorOptions().dtype(DType::i64));
  comm_.allgather(choices, from_vector<int64_t>({static_cast<int64_t>(choice)})).wait();
  const int64_t* chosen = choices.data<int64_t>();
  for (int r = 1; r < comm_.size(); ++r)  // every rank names the same culprit
    EXADNN_CHECK(chosen[r] == chosen[0], kWhere, "rank ", r, " asks for the ",
                 to_string(static_cast<ReducerTransport>(chosen[r])),
                 " gradient transport but rank 0 for ",
                 to_string(static_cast<ReducerTransport>(chosen[0])),
                 " (ReducerOptions::transport, distributed.transport or EXADNN_REDUCER_TRANSPORT "
                 "must agree)");
  std::vector<detail::BucketShape> shapes;
  for (const Bucket& b : buckets_)
    shapes.push_back({b.numel, b.dtype, params_[b.params[0]].device()});
  if (choice != ReducerTransport::mpi) {
    std::string why;
    transport_ = detail::make_shared_memory_transport(comm_, shapes, &why);
    EXADNN_CHECK(transport_ || choice == ReducerTransport::automatic, kWhere,
                 "the shared-memory transport cannot be used: ", why);
  }
  if (!transport_) transport_ = detail::make_mpi_transport(comm_, shapes);
}

const char* GradientReducer::transport_name() const {
  return transport_ ? transport_->name() : "none";
}

std::string GradientReducer::layout() const {
  std::string s = exadnn::detail::cat(buckets_.size(), " buckets:");
  for (size_t i = 0; i < buckets_.size(); ++i)
    s += exadnn::detail::cat(i ? "," : "", " [", i, "] ", buckets_[i].params.size(), " tensors, ",
                             buckets_[i].numel, " ", dtype_name(buckets_[i].dtype));
  return s;
}

void GradientReducer::check_layout_agrees() {
  // Every rank's (number of buckets, fingerprint of every bucket's dtype, size and members).
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const Bucket& b : buckets_) {
    hash = fnv(hash, static_cast<uint64_t>(b.dtype));
    hash = fnv(hash, static_cast<uint64_t>(b.numel));
    for (size_t k : b.params) hash = fnv(hash, k);
  }
  Tensor mine = empty({2}, TensorOptions().dtype(DType::i64));
  mine.data<int64_t>()[0] = static_cast<int64_t>(buckets_.size());
  mine.data<int64_t>()[1] = static_cast<int64_t>(hash);
  Tensor all = empty({comm_.size(), 2}, TensorOptions().dtype(DType::i64));
  comm_.allgather(all, mine).wait();
  const int64_t* a = all.data<int64_t>();
  for (int r = 1; r < comm_.size(); ++r) {
    EXADNN_CHECK(a[2 * r] == a[0] && a[2 * r + 1] == a[1], kWhere, "rank ", r,
                 "'s gradient buckets differ from rank 0's (rank ", r, ": ", a[2 * r],
                 " buckets; rank 0: ", a[0], " buckets; this rank (", comm_.rank(), "): ", layout(),
                 "). Every rank must wrap the same model, with the same bucket sizes");
  }
}

void GradientReducer::mark_ready(size_t index) {
  EXADNN_CHECK(index < params_.size(), kWhere, "no parameter ", index);
  if (ready_[index]) return;  // a second backward into the same step: already counted
  in_step_ = true;
  ready_[index] = true;
  --buckets_[bucket_of_[index]].pending;
  launch_ready_buckets();
}

void GradientReducer::launch_ready_buckets() {
  if (!transport_) return;  // one rank: nothing to reduce
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].pending == 0) {
    fill(next_launch_);
    transport_->start(next_launch_++);
  }
  transport_->progress();  // moves the started reductions on while backward computes
}

void GradientReducer::fill(size_t index) {
  // Each gradient goes into its slot of the transport's input, multiplied on the way by what
  // the transport asks (1/P when it only sums: one pass over the gradient either way).
  NoGradGuard no_grad;
  const Bucket& b = buckets_[index];
  const Tensor flat = transport_->input(index);
  const double scale = transport_->fill_scale();
  for (size_t j = 0; j < b.params.size(); ++j) {
    const Tensor& p = params_[b.params[j]];
    Tensor slot = flat.narrow(0, b.offset[j], p.numel());
    const Tensor g = p.grad();
    if (!g.defined())
      fill_(slot, 0.0);
    else if (scale != 1.0)
      scaled_copy_(slot, g.reshape({p.numel()}), scale);
    else if (g.data_ptr() != slot.data_ptr())
      copy_(slot, g.reshape({p.numel()}));
  }
}

void GradientReducer::finish() {
  if (!in_step_) return;
  for (Bucket& b : buckets_) b.pending = 0;  // gradients that never came count as zeros
  launch_ready_buckets();
  if (!transport_) {  // one rank: the gradients are the average; a missing one counts as zeros
    for (Tensor& p : params_)
      if (!p.grad().defined())
        p.set_grad(zeros(p.shape(), TensorOptions().dtype(p.dtype()).device(p.device())));
  }
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = buckets_.size(); transport_ && k-- > 0;) {  // the last-started bucket first
    transport_->wait(k);
    const Tensor averaged = transport_->result(k);
    const Bucket& b = buckets_[k];
    for (size_t j = 0; j < b.params.size(); ++j) {  // no copy back: views into the bucket
      Tensor& p = params_[b.params[j]];
      p.set_grad(averaged.narrow(0, b.offset[j], p.numel()).view(p.shape()));
    }
  }
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (Bucket& b : buckets_) b.pending = b.params.size();
  std::fill(ready_.begin(), ready_.end(), false);
  next_launch_ = 0;
  in_step_ = false;
}

}  // namespace exadnn::dist
