// Backend plugins: a backend whose libraries are heavy (CUDA: cudart, cuBLAS, cuBLASLt, cuDNN,
// NCCL — hundreds of MB mapped and relocated at start) is a shared library loaded on first use,
// not linked into programs. Loading it runs its registrar, which fills the MemoryManager's memory
// kinds and its row of the dispatch table; a CPU-only run never maps it.
//
//   if (!exadnn::load_plugin("cuda")) std::puts(exadnn::plugin_error("cuda").c_str());
//
// The MemoryManager loads "cuda" itself the first time device, pinned or managed memory is asked
// for; programs call load_plugin only to ask questions first (`exadnn info`).
#pragma once

#include <string>

namespace exadnn {

/// Loads libexadnn_<name>.so.0 once (later calls return the first answer). Looked for in
/// $EXADNN_PLUGIN_PATH (':'-separated folders), beside libexadnn itself (build tree and install
/// alike), then on the loader's search path. True when it is loaded (by this call, an earlier one,
/// or because the program links it).
bool load_plugin(const std::string& name);

/// Why load_plugin(name) failed: every place tried, with the loader's message ("" when loaded or
/// not tried yet).
std::string plugin_error(const std::string& name);

/// The address of C function `symbol` of plugin `name`, loading it first; nullptr when the plugin
/// or the symbol is missing.
void* plugin_symbol(const std::string& name, const char* symbol);

}  // namespace exadnn
