// GEMM routines shared by the CPU GEMM kernels (internal to the CPU backend).
#pragma once

#include "exadnn/backend/kernels.h"

namespace exadnn::cpu {

/// f32 GEMM in f32 (oneDNN's sgemm or CBLAS, per gemm_provider()); ignores args.precision.
void sgemm(const GemmArgs& args);
/// f32 operands computed as args.precision says (fp32, bf16, fp16, split_fp16, split_bf16).
void sgemm_with_precision(const GemmArgs& args);
/// bf16 operands and result, products summed in f32 (oneDNN matmul).
void gemm_bf16(const GemmArgs& args);
/// fp16 operands and result, products summed in f32.
void gemm_f16(const GemmArgs& args);

}  // namespace exadnn::cpu
