// send_to / recv_from (dist/parallel_ops.h): a tensor's values forward from one rank to another
// and its gradient back, as graph nodes on both sides. Each message is a shape header (dtype,
// rank, sizes) and then the values, on the pair's tag (tensor_message.h).
#include <string>
#include <vector>

#include "exadnn/autograd/function.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/ops/factories.h"
#include "tensor_message.h"

namespace exadnn::dist {
namespace {

void send_values(const Tensor& t, const Communicator& comm, int dst, int tag) {
  for (Work& w : detail::send_tensor_message(t, comm, dst, tag, "dist::send_to")) w.wait();
}

Tensor recv_values(const Communicator& comm, int src, int tag) {
  return detail::recv_tensor_message(comm, src, tag);
}

// Sender: forward sends x and returns a zero token; backward receives dx.
class SendNode : public autograd::Function {
 public:
  SendNode(Communicator comm, int peer, int tag) : comm_(std::move(comm)), peer_(peer), tag_(tag) {}
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>& in) override {
    send_values(in[0], comm_, peer_, tag_);
    return {zeros({}, TensorOptions(in[0].dtype()))};
  }
  std::vector<Tensor> backward(autograd::FunctionContext&, const std::vector<Tensor>&) override {
    return {recv_values(comm_, peer_, tag_)};
  }
  std::string name() const override { return "dist::send_to"; }

 private:
  Communicator comm_;
  int peer_, tag_;
};

// Receiver: forward's values arrive before the node is made; backward sends the gradient back.
class RecvNode : public autograd::Function {
 public:
  RecvNode(Communicator comm, int peer, int tag, Tensor values)
      : comm_(std::move(comm)), peer_(peer), tag_(tag), values_(std::move(values)) {}
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>&) override {
    return {values_};
  }
  std::vector<Tensor> backward(autograd::FunctionContext&,
                               const std::vector<Tensor>& grad) override {
    send_values(grad[0], comm_, peer_, tag_);
    return {Tensor()};
  }
  std::string name() const override { return "dist::recv_from"; }

 private:
  Communicator comm_;
  int peer_, tag_;
  Tensor values_;
};

}  // namespace

Tensor send_to(const Tensor& x, const Communicator& comm, int dst, int tag) {
  EXADNN_CHECK(x.defined(), "dist::send_to", "the tensor is undefined");
  return autograd::apply<SendNode>({x}, comm, dst, tag)[0];
}

Tensor recv_from(const Communicator& comm, int src, int tag) {
  Tensor values = recv_values(comm, src, tag);
  // A leaf requiring grad anchors the node in the graph, so backward reaches it.
  const Tensor anchor = zeros({}, TensorOptions().requires_grad());
  return autograd::apply<RecvNode>({anchor}, comm, src, tag, values)[0];
}

}  // namespace exadnn::dist
