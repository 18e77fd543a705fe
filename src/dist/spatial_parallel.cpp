// The spatial-parallel layers (dist/spatial_parallel.h): halos sized from each kernel's reach,
// statistics summed over the ranks' rows, replicated weights whose gradients are summed.
#include "exadnn/dist/spatial_parallel.h"

#include <cmath>
#include <limits>

#include "exadnn/autograd/function.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/nn/batch_norm.h"
#include "exadnn/ops/concat.h"
#include "exadnn/ops/conv.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/ops/normalization.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/pool.h"
#include "exadnn/ops/reduction.h"

namespace exadnn::dist {
namespace {

// The rows above and below a rank's part that a kernel of (effective) height k with stride s and
// padding p reaches: output row o reads input rows o·s − p .. o·s − p + k − 1, so the part's
// outputs need p rows above and k − s − p below (none when negative).
struct Halo {
  int64_t top, bottom;
};

Halo halo_for(const char* layer, const Tensor& x, int64_t k, int64_t s, int64_t p) {
  EXADNN_CHECK(x.dim() == 4, layer, "expects [N, C, h, W], got ", x.shape());
  const int64_t h = x.size(2);
  EXADNN_CHECK(h % s == 0, layer, "this rank's height ", h, " is not divisible by the stride ", s,
               ": split the image into parts whose heights are");
  return {p, std::max<int64_t>(0, k - s - p)};
}

}  // namespace

Tensor spatial_rows(const Tensor& x, const Communicator& comm) {
  EXADNN_CHECK(x.dim() == 4 && x.size(2) % comm.size() == 0, "dist::spatial_rows",
               "expects [N, C, H, W] with H divisible by ", comm.size(), ", got ", x.shape());
  const int64_t h = x.size(2) / comm.size();
  return x.narrow(2, comm.rank() * h, h).contiguous();
}

// --- SpatialConv2d ----------------------------------------------------------------------------

SpatialConv2d::SpatialConv2d(const nn::Conv2dOptions& options, Communicator comm)
    : options_(options), comm_(std::move(comm)) {
  nn::Conv2d twin(options);  // drawn exactly as one process draws it
  weight = twin.weight;
  register_parameter("weight", &weight);
  if (options.bias()) {
    bias = twin.bias;
    register_parameter("bias", &bias);
  }
}

Tensor SpatialConv2d::forward(const Tensor& x) {
  Conv2dParams params = options_.params();
  const int64_t k = params.dilation.h * (options_.kernel().h - 1) + 1, s = params.stride.h;
  const Halo halo = halo_for("SpatialConv2d", x, k, s, params.padding.h);
  params.padding = Size2(0, params.padding.w);
  // The weights are used by every rank's rows: their gradient is the sum over the ranks.
  const Tensor w = copy_to_group(weight, comm_);
  const Tensor b = bias.defined() ? copy_to_group(bias, comm_) : Tensor();
  // Output row o reads rows o·s .. o·s + k − 1 of [top halo; x; bottom halo]. The rows that read x
  // only (the interior) are computed while the halo rows travel: they start at x row r0, the first
  // with r0 + top ≡ 0 (mod s), i.e. at output row o0 = (r0 + top) / s.
  const int64_t h = x.size(2), r0 = (s - halo.top % s) % s, o0 = (r0 + halo.top) / s;
  const int64_t interior = h - r0 >= k ? (h - r0 - k) / s + 1 : 0, outputs = h / s;
  PendingHalo pending(x, comm_, halo.top, halo.bottom);
  if (interior == 0 || (halo.top == 0 && halo.bottom == 0)) {
    const HaloRows rows = pending.finish(x);
    return conv2d(cat({rows.top, x, rows.bottom}, 2), w, b, params);
  }
  const Tensor middle = conv2d(x.narrow(2, r0, h - r0), w, b, params).narrow(2, 0, interior);
  const HaloRows rows = pending.finish(x);
  std::vector<Tensor> parts;
  if (o0 > 0)  // output rows 0 .. o0 − 1 read the top halo and x rows 0 .. (o0 − 1)·s + k − top
    parts.push_back(
        conv2d(cat({rows.top, x.narrow(2, 0, (o0 - 1) * s + k - halo.top)}, 2), w, b, params));
  parts.push_back(middle);
  const int64_t next = o0 + interior;  // output rows next .. outputs − 1 read the bottom halo
  if (next < outputs) {
    const int64_t first = next * s - halo.top;  // x row that output row `next` starts at
    parts.push_back(conv2d(cat({x.narrow(2, first, h - first), rows.bottom}, 2), w, b, params)
                        .narrow(2, 0, outputs - next));
  }
  return cat(parts, 2);
}

// --- SpatialMaxPool2d -------------------------------------------------------------------------

SpatialMaxPool2d::SpatialMaxPool2d(Size2 kernel, Size2 stride, Size2 padding, Communicator comm)
    : kernel_(kernel), stride_(stride), padding_(padding), comm_(std::move(comm)) {}

Tensor SpatialMaxPool2d::forward(const Tensor& x) {
  const Halo halo = halo_for("SpatialMaxPool2d", x, kernel_.h, stride_.h, padding_.h);
  const Tensor padded =
      halo_exchange(x, comm_, halo.top, halo.bottom, -std::numeric_limits<double>::infinity());
  return max_pool2d(padded, kernel_, stride_, Size2(0, padding_.w));
}

// --- SpatialBatchNorm2d -----------------------------------------------------------------------

SpatialBatchNorm2d::SpatialBatchNorm2d(int64_t channels, Communicator comm, double eps,
                                       double momentum)
    : channels_(channels), comm_(std::move(comm)), eps_(eps), momentum_(momentum) {
  nn::BatchNorm2d twin(channels, eps, momentum);
  weight = twin.weight;
  bias = twin.bias;
  running_mean = twin.running_mean;
  running_var = twin.running_var;
  register_parameter("weight", &weight);
  register_parameter("bias", &bias);
  register_buffer("running_mean", &running_mean);
  register_buffer("running_var", &running_var);
}

namespace {

// Batch norm in training mode over a split image, as one graph node: y = x̂·γ + β with
// x̂ = (x − μ)/σ, μ and σ² over N, H, W of every rank's rows. Backward (M samples per channel over
// all ranks, sums over every rank's rows): dx = γ/σ · (dy − Σdy/M − x̂·Σ(dy·x̂)/M); dγ and dβ are
// this rank's parts (Σ dy·x̂, Σ dy over its rows): γ and β arrive through copy_to_group, whose
// backward sums them over the ranks. Keeps x̂ and 1/σ for backward: one activation, like
// nn::BatchNorm2d.
class SplitBatchNorm : public autograd::Function {
 public:
  SplitBatchNorm(Communicator comm, Tensor running_mean, Tensor running_var, double momentum,
                 double eps)
      : comm_(std::move(comm)),
        running_mean_(std::move(running_mean)),
        running_var_(std::move(running_var)),
        momentum_(momentum),
        eps_(eps) {}

  // in: x [N, C, h, W], γ [C], β [C].
  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    const Tensor& x = in[0];
    const int64_t c = x.size(1);
    const Shape per_channel{1, c, 1, 1};
    Tensor count = from_vector<double>({static_cast<double>(x.size(0) * x.size(2) * x.size(3))});
    comm_.allreduce_blocking(count);
    m_ = count.data<double>()[0];
    Tensor mean = sum(x, {0, 2, 3}).contiguous().clone();
    comm_.allreduce_blocking(mean);
    mul_(mean, 1.0 / m_);
    const Tensor centred = x - mean.reshape(per_channel);
    Tensor var = sum(centred * centred, {0, 2, 3}).contiguous().clone();  // biased, [C]
    comm_.allreduce_blocking(var);
    mul_(var, 1.0 / m_);
    // Running statistics, with the unbiased variance (as nn::BatchNorm2d keeps them).
    mul_(running_mean_, 1.0 - momentum_);
    add_(running_mean_, mean, momentum_);
    mul_(running_var_, 1.0 - momentum_);
    add_(running_var_, var, momentum_ * m_ / std::max(1.0, m_ - 1.0));
    const Tensor inv_std = 1.0 / sqrt(var + eps_);  // [C]
    const Tensor x_hat = centred * inv_std.reshape(per_channel);
    ctx.save_for_backward({x_hat, inv_std, in[1]});
    return {x_hat * in[1].reshape(per_channel) + in[2].reshape(per_channel)};
  }

  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& grad) override {
    const Tensor& x_hat = ctx.saved()[0];
    const Tensor& inv_std = ctx.saved()[1];
    const Tensor& gamma = ctx.saved()[2];
    const Tensor& dy = grad[0];
    const Shape per_channel{1, x_hat.size(1), 1, 1};
    const Tensor local_dbeta = sum(dy, {0, 2, 3}).contiguous();           // [C]
    const Tensor local_dgamma = sum(dy * x_hat, {0, 2, 3}).contiguous();  // [C]
    Tensor dbeta = local_dbeta.clone(), dgamma = local_dgamma.clone();
    comm_.allreduce_blocking(dbeta);
    comm_.allreduce_blocking(dgamma);
    const Tensor scale = (gamma * inv_std).reshape(per_channel);
    const Tensor dx = scale * (dy - (dbeta / m_).reshape(per_channel) -
                               x_hat * (dgamma / m_).reshape(per_channel));
    return {dx, local_dgamma, local_dbeta};
  }

  std::string name() const override { return "dist::SpatialBatchNorm2d"; }

 private:
  Communicator comm_;
  Tensor running_mean_, running_var_;
  double momentum_, eps_;
  double m_ = 0;  // samples per channel over every rank
};

}  // namespace

Tensor SpatialBatchNorm2d::forward(const Tensor& x) {
  EXADNN_CHECK(x.dim() == 4 && x.size(1) == channels_, name(), "expects input [N, ", channels_,
               ", h, W], got ", x.shape());
  // γ and β are used by every rank's rows: their gradients are summed over the ranks.
  const Tensor w = copy_to_group(weight, comm_), b = copy_to_group(bias, comm_);
  if (!is_training()) return batch_norm(x, running_mean, running_var, w, b, false, momentum_, eps_);
  return autograd::apply<SplitBatchNorm>({x, w, b}, comm_, running_mean, running_var, momentum_,
                                         eps_)[0];
}

// --- SpatialGlobalAvgPool ---------------------------------------------------------------------

Tensor SpatialGlobalAvgPool::forward(const Tensor& x) {
  EXADNN_CHECK(x.dim() == 4, name(), "expects [N, C, h, W], got ", x.shape());
  Tensor cells = from_vector<double>({static_cast<double>(x.size(2) * x.size(3))});
  comm_.allreduce_blocking(cells);
  return reduce_from_group(sum(x, {2, 3}), comm_) / cells.data<double>()[0];
}

}  // namespace exadnn::dist
