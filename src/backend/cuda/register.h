// The parts of the CUDA backend that fill the MemoryManager and the dispatch table; each is
// defined in the file named beside it and called once by register.cpp when the library loads.
#pragma once

#include "exadnn/backend/dispatch.h"

namespace exadnn::cuda {

void register_memory_backends();                       // memory.cpp
void register_elementwise_kernels(KernelRegistry& r);  // elementwise_kernels.cpp
void register_reduce_kernels(KernelRegistry& r);       // reduce_kernels.cpp
void register_optim_kernels(KernelRegistry& r);        // optim_kernels.cpp
void register_gemm_kernels(KernelRegistry& r);         // gemm_kernels.cpp
void register_nn_kernels(KernelRegistry& r);           // cudnn_kernels.cpp

}  // namespace exadnn::cuda
