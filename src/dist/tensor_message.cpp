// send_tensor_message / recv_tensor_message (tensor_message.h).
#include "tensor_message.h"

#include "exadnn/ops/factories.h"

namespace exadnn::dist::detail {

std::vector<Work> send_tensor_message(const Tensor& t, const Communicator& comm, int dst, int tag,
                                      const char* where) {
  EXADNN_CHECK(t.dim() <= kMaxMessageDims, where, "tensors of more than ", kMaxMessageDims,
               " dimensions cannot be sent, got ", t.shape());
  std::vector<int64_t> header{static_cast<int64_t>(t.dtype()), t.dim()};
  for (int64_t s : t.shape()) header.push_back(s);
  header.resize(2 + kMaxMessageDims, 0);
  return {comm.send(from_vector<int64_t>(header), dst, tag), comm.send(t.contiguous(), dst, tag)};
}

Tensor recv_tensor_message(const Communicator& comm, int src, int tag) {
  Tensor header = empty({2 + kMaxMessageDims}, TensorOptions(DType::i64));
  comm.recv(header, src, tag).wait();
  const int64_t* h = header.data<int64_t>();
  Tensor t = empty(Shape(std::vector<int64_t>(h + 2, h + 2 + h[1])),
                   TensorOptions(static_cast<DType>(h[0])));
  comm.recv(t, src, tag).wait();
  return t;
}

}  // namespace exadnn::dist::detail
