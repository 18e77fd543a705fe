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

#include <functional>
#include <string>
#include <vector>

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

// Application plugins: the science applications' workflow modules and dataset kinds (apps/<name>)
// are shared libraries libexadnn_app_<name>.so.0 in the plugin folders (EXADNN_PLUGIN_PATH, then
// libexadnn's own folder), loaded when a name that no linked code registered is looked up: a
// CPU training run then maps none of the applications' libraries (LAMMPS, Python, spglib, FFTW,
// parallel HDF5, ZFP), and a scientist's own application dropped into a plugin folder is found
// like the shipped ones. Off unless a program turns it on (the `exadnn` command does): a program
// that links an application's registrations itself would register them twice.

/// Turns on-demand loading of application plugins on or off for this process.
void set_app_plugins_enabled(bool enabled);
bool app_plugins_enabled();

/// The application plugins in the plugin folders, by name ("alloy" for libexadnn_app_alloy.so.0),
/// sorted, each once.
std::vector<std::string> app_plugins();

/// Makes `key` (a module or dataset kind name) known if an application plugin defines it: when
/// enabled and `known()` is false, loads first the plugins whose name is `key` or a prefix of it
/// followed by '_' or '-' ("cbed" for "cbed-space-group"), then, if `known()` is still false, all
/// the others. Returns `known()` afterwards. A plugin that fails to load is skipped (its error
/// is in plugin_error("app_<name>")); `known` must not hold a lock the plugins' registrations take.
bool load_app_plugins_defining(const std::string& key, const std::function<bool()>& known);

/// Loads every application plugin (when enabled), so listings of names are complete.
void load_all_app_plugins();

/// For messages about an unknown name: "" when every application plugin tried loaded, else
/// " (application plugins that failed to load: <why>)".
std::string app_plugin_failures();

}  // namespace exadnn
