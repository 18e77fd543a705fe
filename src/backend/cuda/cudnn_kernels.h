// The layer kernels of the CUDA backend (nn_kernels.h signatures), registered by
// register_nn_kernels (cudnn_kernels.cpp), each group defined in the file named beside it.
#pragma once

#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/nn_kernels.h"

namespace exadnn::cuda {

void register_conv_kernels(KernelRegistry& r);        // cudnn_conv.cpp
void register_pool_kernels(KernelRegistry& r);        // cudnn_pool.cpp
void register_softmax_kernels(KernelRegistry& r);     // cudnn_softmax.cpp
void register_batch_norm_kernels(KernelRegistry& r);  // batch_norm_kernels.cpp

}  // namespace exadnn::cuda
