// The halo exchange (dist/spatial_parallel.h) in two halves: PendingHalo's constructor posts the
// messages (my last `top` rows down to the rank below, my first `bottom` rows up to the rank above,
// and the receives of the neighbours' rows) and returns at once, so the caller can compute what
// needs no halo; finish() waits and returns the halo rows as a graph node whose backward sends the
// rows' gradients back to their owners and adds what this rank's neighbours send to its edge rows.
#include <chrono>
#include <string>
#include <vector>

#include "exadnn/autograd/function.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/dist/spatial_parallel.h"
#include "exadnn/ops/concat.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::halo_exchange";
constexpr int kTagDown = 1, kTagUp = 2;  // rows travelling to the rank below / above

// Counts the enclosing scope in parallel_ops_time().
struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~Timer() {
    detail::add_parallel_ops_time(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
};

// Rows [first, first + count) of x [N, C, h, W], contiguous (a message buffer).
Tensor rows(const Tensor& x, int64_t first, int64_t count) {
  return x.narrow(2, first, count).contiguous();
}

Shape with_rows(const Tensor& x, int64_t count) {
  Shape s = x.shape();
  s[2] = count;
  return s;
}

// The graph node of finish(): forward hands out the rows already received; backward returns the
// halo rows' gradients to their owners and collects the gradients of this rank's edge rows.
class HaloRowsNode : public autograd::Function {
 public:
  HaloRowsNode(Communicator comm, Tensor top, Tensor bottom)
      : comm_(std::move(comm)), top_(std::move(top)), bottom_(std::move(bottom)) {}

  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>&) override {
    return {top_, bottom_};
  }

  // grad: d(top rows) [N, C, top, W], d(bottom rows) [N, C, bottom, W] → dx [N, C, h, W].
  std::vector<Tensor> backward(autograd::FunctionContext&,
                               const std::vector<Tensor>& grad) override {
    const Timer timer;
    const int64_t top = top_.size(2), bottom = bottom_.size(2), h = h_;
    Tensor dx = zeros(with_rows(top_, h), TensorOptions(top_.dtype()));
    std::vector<Work> sends, recvs;
    Tensor to_my_last, to_my_first;  // the rank below's top halo / the rank above's bottom halo
    if (below() && top > 0) {
      to_my_last = empty(with_rows(top_, top), TensorOptions(top_.dtype()));
      recvs.push_back(comm_.recv(to_my_last, comm_.rank() + 1, kTagUp));
    }
    if (above() && bottom > 0) {
      to_my_first = empty(with_rows(top_, bottom), TensorOptions(top_.dtype()));
      recvs.push_back(comm_.recv(to_my_first, comm_.rank() - 1, kTagDown));
    }
    if (above() && top > 0)
      sends.push_back(comm_.send(grad[0].contiguous(), comm_.rank() - 1, kTagUp));
    if (below() && bottom > 0)
      sends.push_back(comm_.send(grad[1].contiguous(), comm_.rank() + 1, kTagDown));
    for (Work& w : recvs) w.wait();
    if (to_my_last.defined()) add_(dx.narrow(2, h - top, top), to_my_last);
    if (to_my_first.defined()) add_(dx.narrow(2, 0, bottom), to_my_first);
    for (Work& w : sends) w.wait();
    return {dx};
  }

  std::string name() const override { return kWhere; }
  int64_t h_ = 0;  // this rank's rows

 private:
  bool above() const { return comm_.rank() > 0; }
  bool below() const { return comm_.rank() + 1 < comm_.size(); }

  Communicator comm_;
  Tensor top_, bottom_;
};

}  // namespace

PendingHalo::PendingHalo(const Tensor& x, Communicator comm, int64_t top, int64_t bottom,
                         double fill)
    : comm_(std::move(comm)) {
  EXADNN_CHECK(x.defined() && x.dim() == 4, kWhere, "expects [N, C, h, W], got ",
               x.defined() ? x.shape() : Shape{});
  EXADNN_CHECK(top >= 0 && bottom >= 0, kWhere, "halo sizes must be >= 0, got top ", top,
               ", bottom ", bottom);
  EXADNN_CHECK(top <= x.size(2) && bottom <= x.size(2), kWhere, "a halo of ", std::max(top, bottom),
               " rows is taller than this rank's ", x.size(2),
               " rows: use fewer ranks or a taller image");
  const bool above = comm_.rank() > 0, below = comm_.rank() + 1 < comm_.size();
  const int64_t h = x.size(2);
  top_rows_ = full(with_rows(x, top), fill, TensorOptions(x.dtype()));
  bottom_rows_ = full(with_rows(x, bottom), fill, TensorOptions(x.dtype()));
  if (above && top > 0) works_.push_back(comm_.recv(top_rows_, comm_.rank() - 1, kTagDown));
  if (below && bottom > 0) works_.push_back(comm_.recv(bottom_rows_, comm_.rank() + 1, kTagUp));
  if (below && top > 0)
    works_.push_back(comm_.send(rows(x, h - top, top), comm_.rank() + 1, kTagDown));
  if (above && bottom > 0)
    works_.push_back(comm_.send(rows(x, 0, bottom), comm_.rank() - 1, kTagUp));
}

PendingHalo::~PendingHalo() {
  try {
    for (Work& w : works_) w.wait();  // never leave a message pointing at freed memory
  } catch (...) {
  }
}

HaloRows PendingHalo::finish(const Tensor& x) {
  {
    const Timer timer;  // the exchange's time not hidden behind the caller's work
    for (Work& w : works_) w.wait();
    works_.clear();
  }
  auto node = std::make_shared<HaloRowsNode>(comm_, top_rows_, bottom_rows_);
  node->h_ = x.size(2);
  // x is the node's input: the halo rows' gradients flow back to the neighbours' edge rows.
  const std::vector<Tensor> out = autograd::apply_function(node, {x});
  return {out[0], out[1]};
}

Tensor halo_exchange(const Tensor& x, const Communicator& comm, int64_t top, int64_t bottom,
                     double fill) {
  PendingHalo pending(x, comm, top, bottom, fill);
  const HaloRows halo = pending.finish(x);
  return cat({halo.top, x, halo.bottom}, 2);
}

}  // namespace exadnn::dist
