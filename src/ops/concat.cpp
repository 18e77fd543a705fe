// cat: copies each input into its block of a new tensor; backward hands each input its block of
// the gradient.
#include "exadnn/ops/concat.h"

#include <string>

#include "exadnn/autograd/function.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn {
namespace {

class Concat : public autograd::Function {
 public:
  explicit Concat(int64_t dim) : dim_(dim) {}
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>& in) override {
    Shape shape = in[0].shape();
    shape[dim_] = 0;
    for (const Tensor& t : in) {
      shape[dim_] += t.size(dim_);
      sizes_.push_back(t.size(dim_));
    }
    Tensor out = empty(shape, TensorOptions(in[0].dtype()).device(in[0].device()));
    int64_t offset = 0;
    for (const Tensor& t : in) {
      if (t.size(dim_) > 0) copy_(out.narrow(dim_, offset, t.size(dim_)), t);
      offset += t.size(dim_);
    }
    return {out};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& grad) override {
    std::vector<Tensor> out;
    int64_t offset = 0;
    for (size_t i = 0; i < sizes_.size(); ++i) {
      if (ctx.needs_input_grad(i))
        out.push_back(grad[0].narrow(dim_, offset, sizes_[i]));
      else
        out.emplace_back();
      offset += sizes_[i];
    }
    return out;
  }
  std::string name() const override { return "cat"; }

 private:
  int64_t dim_;
  std::vector<int64_t> sizes_;
};

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  EXADNN_CHECK(!tensors.empty(), "cat", "needs at least one tensor");
  const Tensor& first = tensors[0];
  EXADNN_CHECK(first.defined() && first.dim() > 0, "cat", "tensor 0 is ",
               first.defined() ? "0-d" : "undefined", ": nothing to join along");
  const int64_t d = dim < 0 ? dim + first.dim() : dim;
  EXADNN_CHECK(d >= 0 && d < first.dim(), "cat", "dimension ", dim, " does not exist in ",
               first.shape());
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EXADNN_CHECK(t.defined(), "cat", "tensor ", i, " is undefined");
    EXADNN_CHECK(t.dtype() == first.dtype() && t.device() == first.device(), "cat", "tensor ", i,
                 " is ", dtype_name(t.dtype()), " on ", t.device().str(), ", tensor 0 ",
                 dtype_name(first.dtype()), " on ", first.device().str());
    bool fits = t.dim() == first.dim();
    for (int64_t k = 0; fits && k < t.dim(); ++k) fits = k == d || t.size(k) == first.size(k);
    EXADNN_CHECK(fits, "cat", "tensor ", i, " of shape ", t.shape(), " does not join tensor 0 of ",
                 "shape ", first.shape(), " along dimension ", d);
  }
  return autograd::apply<Concat>(tensors, d)[0];
}

}  // namespace exadnn
