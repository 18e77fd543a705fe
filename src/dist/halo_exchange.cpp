// halo_exchange (dist/spatial_parallel.h): the rows a kernel reaches across the cut between two
// ranks' parts of an image, as a graph node. Forward: my last `top`... rows go down, my first
// `bottom` rows go up; backward: the halo rows' gradients go back to their owners and are added
// to the rows they came from.
#include <chrono>
#include <string>
#include <vector>

#include "exadnn/autograd/function.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/dist/spatial_parallel.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::halo_exchange";
constexpr int kTagDown = 1, kTagUp = 2;  // rows travelling to the rank below / above

// Rows [first, first + count) of x [N, C, h, W], contiguous (a message buffer).
Tensor rows(const Tensor& x, int64_t first, int64_t count) {
  return x.narrow(2, first, count).contiguous();
}

// Counts the enclosing scope in parallel_ops_time().
struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~Timer() {
    detail::add_parallel_ops_time(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
};

class HaloExchange : public autograd::Function {
 public:
  HaloExchange(Communicator comm, int64_t top, int64_t bottom, double fill)
      : comm_(std::move(comm)), top_(top), bottom_(bottom), fill_(fill) {}

  // x [N, C, h, W] → [N, C, top + h + bottom, W].
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>& in) override {
    const Timer timer;
    const Tensor& x = in[0];
    const int64_t h = x.size(2);
    Shape shape = x.shape();
    shape[2] = top_ + h + bottom_;
    Tensor out = full(shape, fill_, TensorOptions().dtype(x.dtype()));
    copy_(out.narrow(2, top_, h), x);
    std::vector<Work> sends;
    Tensor from_above, from_below;
    std::vector<Work> recvs;
    if (has_above() && top_ > 0) {  // the rank above's last `top` rows become my top halo
      from_above = empty(rows(x, 0, top_).shape(), TensorOptions().dtype(x.dtype()));
      recvs.push_back(comm_.recv(from_above, comm_.rank() - 1, kTagDown));
    }
    if (has_below() && bottom_ > 0) {  // the rank below's first `bottom` rows: my bottom halo
      from_below = empty(rows(x, 0, bottom_).shape(), TensorOptions().dtype(x.dtype()));
      recvs.push_back(comm_.recv(from_below, comm_.rank() + 1, kTagUp));
    }
    if (has_below() && top_ > 0)
      sends.push_back(comm_.send(rows(x, h - top_, top_), comm_.rank() + 1, kTagDown));
    if (has_above() && bottom_ > 0)
      sends.push_back(comm_.send(rows(x, 0, bottom_), comm_.rank() - 1, kTagUp));
    for (Work& w : recvs) w.wait();
    if (from_above.defined()) copy_(out.narrow(2, 0, top_), from_above);
    if (from_below.defined()) copy_(out.narrow(2, top_ + h, bottom_), from_below);
    for (Work& w : sends) w.wait();
    return {out};
  }

  // dy [N, C, top + h + bottom, W] → dx [N, C, h, W]: my rows' own gradient plus what my
  // neighbours' halos (copies of my edge rows) received.
  std::vector<Tensor> backward(autograd::FunctionContext&,
                               const std::vector<Tensor>& grad) override {
    const Timer timer;
    const Tensor& dy = grad[0];
    const int64_t h = dy.size(2) - top_ - bottom_;
    Tensor dx = dy.narrow(2, top_, h).contiguous().clone();
    std::vector<Work> sends, recvs;
    Tensor to_my_bottom, to_my_top;  // from the rank below's top halo / the rank above's bottom
    if (has_below() && top_ > 0) {
      to_my_bottom = empty(rows(dx, 0, top_).shape(), TensorOptions().dtype(dy.dtype()));
      recvs.push_back(comm_.recv(to_my_bottom, comm_.rank() + 1, kTagUp));
    }
    if (has_above() && bottom_ > 0) {
      to_my_top = empty(rows(dx, 0, bottom_).shape(), TensorOptions().dtype(dy.dtype()));
      recvs.push_back(comm_.recv(to_my_top, comm_.rank() - 1, kTagDown));
    }
    if (has_above() && top_ > 0)
      sends.push_back(comm_.send(rows(dy, 0, top_), comm_.rank() - 1, kTagUp));
    if (has_below() && bottom_ > 0)
      sends.push_back(comm_.send(rows(dy, top_ + h, bottom_), comm_.rank() + 1, kTagDown));
    for (Work& w : recvs) w.wait();
    if (to_my_bottom.defined()) add_(dx.narrow(2, h - top_, top_), to_my_bottom);
    if (to_my_top.defined()) add_(dx.narrow(2, 0, bottom_), to_my_top);
    for (Work& w : sends) w.wait();
    return {dx};
  }

  std::string name() const override { return kWhere; }

 private:
  bool has_above() const { return comm_.rank() > 0; }
  bool has_below() const { return comm_.rank() + 1 < comm_.size(); }

  Communicator comm_;
  int64_t top_, bottom_;
  double fill_;
};

}  // namespace

Tensor halo_exchange(const Tensor& x, const Communicator& comm, int64_t top, int64_t bottom,
                     double fill) {
  EXADNN_CHECK(x.defined() && x.dim() == 4, kWhere, "expects [N, C, h, W], got ",
               x.defined() ? x.shape() : Shape{});
  EXADNN_CHECK(top >= 0 && bottom >= 0, kWhere, "halo sizes must be >= 0, got top ", top,
               ", bottom ", bottom);
  EXADNN_CHECK(top <= x.size(2) && bottom <= x.size(2), kWhere, "a halo of ", std::max(top, bottom),
               " rows is taller than this rank's ", x.size(2),
               " rows: use fewer ranks or a taller image");
  return autograd::apply<HaloExchange>({x}, comm, top, bottom, fill)[0];
}

}  // namespace exadnn::dist
