// The differentiable collectives of dist/parallel_ops.h: the raw moves (gather, scatter, sum along
// a dimension) as plain functions, then one autograd Function per pair member, each of whose
// backward is its twin's raw move.
#include "exadnn/dist/parallel_ops.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/autograd/function.h"
#include "exadnn/ops/factories.h"

namespace exadnn::dist {
namespace {

using autograd::FunctionContext;

int64_t checked_dim(const Tensor& x, int64_t dim, const char* op) {
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  EXADNN_CHECK(x.defined() && d >= 0 && d < x.dim(), op, "dimension ", dim,
               " does not exist in a tensor of shape ", x.shape());
  return d;
}

// Σ_ranks x, as a new tensor.
Tensor summed(const Tensor& x, const Communicator& comm) {
  Tensor out = x.contiguous().clone();
  comm.allreduce_blocking(out);
  return out;
}

// Rank order concatenation along d of every rank's x ([..., m, ...] → [..., P·m, ...]).
Tensor gathered(const Tensor& x, const Communicator& comm, int64_t d) {
  const int64_t p = comm.size();
  Shape stacked{p};
  for (int64_t s : x.shape()) stacked.push_back(s);
  Tensor all = empty(stacked, TensorOptions().dtype(x.dtype()));
  comm.allgather(all, x.contiguous()).wait();
  // [P, s0.. s_d ..] → [s0.., P, s_d, ..] → merge (P, s_d).
  std::vector<int64_t> order;
  for (int64_t i = 1; i <= d; ++i) order.push_back(i);
  order.push_back(0);
  for (int64_t i = d + 1; i <= x.dim(); ++i) order.push_back(i);
  Shape merged = x.shape();
  merged[d] *= p;
  return all.permute(order).contiguous().reshape(merged);
}

int64_t block_size(const Tensor& x, const Communicator& comm, int64_t d, const char* op) {
  const int64_t n = x.size(d);
  EXADNN_CHECK(n % comm.size() == 0, op, "size ", n, " of dimension ", d, " (shape ", x.shape(),
               ") does not divide over ", comm.size(), " ranks");
  return n / comm.size();
}

// Rank r's block r along d of x, as a new contiguous tensor.
Tensor own_block(const Tensor& x, const Communicator& comm, int64_t d, const char* op) {
  const int64_t m = block_size(x, comm, d, op);
  return x.narrow(d, comm.rank() * m, m).contiguous();
}

// Σ_ranks x, rank r keeping block r along d.
Tensor summed_block(const Tensor& x, const Communicator& comm, int64_t d, const char* op) {
  const int64_t p = comm.size();
  const int64_t m = block_size(x, comm, d, op);
  // [s0.., n, ..] → [s0.., P, m, ..] → [P, s0.., m, ..]: each rank's block contiguous.
  Shape split;
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i == d) {
      split.push_back(p);
      split.push_back(m);
    } else {
      split.push_back(x.size(i));
    }
  }
  std::vector<int64_t> order{d};
  for (int64_t i = 0; i <= x.dim(); ++i)
    if (i != d) order.push_back(i);
  const Tensor blocks = x.contiguous().reshape(split).permute(order).contiguous();
  Shape out_shape = x.shape();
  out_shape[d] = m;
  Tensor out = empty(out_shape, TensorOptions().dtype(x.dtype()));
  comm.reduce_scatter(out, blocks).wait();
  return out;
}

std::atomic<int64_t> g_nanoseconds{0}, g_calls{0};

// The moves, by name, so each Function states its forward and backward in one line.
enum class Move { identity, sum, gather, own_block, sum_block };

Tensor raw_move(Move m, const Tensor& x, const Communicator& comm, int64_t d, const char* op) {
  switch (m) {
    case Move::identity:
      return x;
    case Move::sum:
      return summed(x, comm);
    case Move::gather:
      return gathered(x, comm, d);
    case Move::own_block:
      return own_block(x, comm, d, op);
    case Move::sum_block:
      return summed_block(x, comm, d, op);
  }
  return x;
}

Tensor move(Move m, const Tensor& x, const Communicator& comm, int64_t d, const char* op) {
  if (m == Move::identity || m == Move::own_block) return raw_move(m, x, comm, d, op);  // local
  const auto t0 = std::chrono::steady_clock::now();
  Tensor out = raw_move(m, x, comm, d, op);
  detail::add_parallel_ops_time(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return out;
}

// One collective: `forward_move` forward, `backward_move` on the gradient.
class Collective : public autograd::Function {
 public:
  Collective(const char* op, Move forward_move, Move backward_move, Communicator comm, int64_t d)
      : op_(op), fwd_(forward_move), bwd_(backward_move), comm_(std::move(comm)), d_(d) {}
  std::vector<Tensor> forward(FunctionContext&, const std::vector<Tensor>& in) override {
    return {move(fwd_, in[0], comm_, d_, op_)};
  }
  std::vector<Tensor> backward(FunctionContext&, const std::vector<Tensor>& grad) override {
    return {move(bwd_, grad[0], comm_, d_, op_)};
  }
  std::string name() const override { return std::string("dist::") + op_; }

 private:
  const char* op_;
  Move fwd_, bwd_;
  Communicator comm_;
  int64_t d_;
};

Tensor apply_collective(const char* op, Move fwd, Move bwd, const Tensor& x,
                        const Communicator& comm, int64_t dim) {
  EXADNN_CHECK(x.defined(), op, "the input tensor is undefined");
  EXADNN_CHECK(x.device().is_cpu(), op, "takes host tensors, got one on ", x.device().str());
  const int64_t d = (fwd == Move::identity || fwd == Move::sum) ? 0 : checked_dim(x, dim, op);
  return autograd::apply<Collective>({x}, op, fwd, bwd, comm, d)[0];
}

}  // namespace

CollectiveTime parallel_ops_time() {
  return {static_cast<double>(g_nanoseconds.load()) * 1e-9, g_calls.load()};
}
void reset_parallel_ops_time() {
  g_nanoseconds = 0;
  g_calls = 0;
}
void detail::add_parallel_ops_time(double seconds) {
  g_nanoseconds += static_cast<int64_t>(seconds * 1e9);
  ++g_calls;
}

Tensor copy_to_group(const Tensor& x, const Communicator& comm) {
  return apply_collective("copy_to_group", Move::identity, Move::sum, x, comm, 0);
}
Tensor reduce_from_group(const Tensor& x, const Communicator& comm) {
  return apply_collective("reduce_from_group", Move::sum, Move::identity, x, comm, 0);
}
Tensor all_reduce(const Tensor& x, const Communicator& comm) {
  return apply_collective("all_reduce", Move::sum, Move::sum, x, comm, 0);
}
Tensor scatter_to_group(const Tensor& x, const Communicator& comm, int64_t dim) {
  return apply_collective("scatter_to_group", Move::own_block, Move::gather, x, comm, dim);
}
Tensor gather_from_group(const Tensor& x, const Communicator& comm, int64_t dim) {
  return apply_collective("gather_from_group", Move::gather, Move::own_block, x, comm, dim);
}
Tensor all_gather(const Tensor& x, const Communicator& comm, int64_t dim) {
  return apply_collective("all_gather", Move::gather, Move::sum_block, x, comm, dim);
}
Tensor reduce_scatter(const Tensor& x, const Communicator& comm, int64_t dim) {
  return apply_collective("reduce_scatter", Move::sum_block, Move::gather, x, comm, dim);
}

}  // namespace exadnn::dist
