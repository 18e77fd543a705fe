// Process-wide runtime settings: CPU thread count and a report of the chosen fast paths.
#pragma once

#include <string>

namespace exadnn {

/// Sets the threads used by exadnn's parallel loops, its BLAS and oneDNN (all share one count, so
/// they never oversubscribe the cores). The initial value comes from OMP_NUM_THREADS, else the
/// number of cores.
void set_num_threads(int n);
int get_num_threads();

/// Library version, "0.1.0".
const char* version();
/// Multi-line description of the build and the paths picked at run time (BLAS vendor, GEMM
/// provider, threads, CUDA): what `exadnn info` prints.
std::string runtime_info();

}  // namespace exadnn
