// Registers the CUDA layer kernels: conv, pooling and softmax through cuDNN, batch norm through
// exadnn's own CUDA kernels (batch_norm.cu).
#include "cudnn_kernels.h"

#include "register.h"

namespace exadnn::cuda {

void register_nn_kernels(KernelRegistry& r) {
  register_conv_kernels(r);
  register_pool_kernels(r);
  register_softmax_kernels(r);
  register_batch_norm_kernels(r);
}

}  // namespace exadnn::cuda
