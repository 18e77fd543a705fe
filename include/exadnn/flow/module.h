// Workflow modules: the function an instance runs, the context it gets from the Executive, and
// how functions are found by the name a control file gives in `run:`.
//
//   void train(exadnn::flow::ModuleContext& ctx) {
//     const double lr = ctx.arg<double>("lr", 0.05);
//     ctx.comm().allreduce(...);                    // the instance's own ranks only
//     ctx.tuple_space().put("result/" + ..., ...);
//   }
//   EXADNN_FLOW_MODULE(train_mlp, train);           // `run: train_mlp` in the control file
//
// A module in a shared library is named `run: path/to/lib.so:symbol`, where `symbol` is an
// `extern "C" void symbol(exadnn::flow::ModuleContext&)` (see EXADNN_FLOW_EXPORT).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/flow/control_file.h"

namespace exadnn::flow {

class Channel;
class TupleSpace;
class ModuleContext;

/// What a module instance runs, once per (iteration, instance) on each of its ranks.
using ModuleFn = std::function<void(ModuleContext&)>;
/// The C signature of a module exported from a shared library.
using ModuleSymbol = void (*)(ModuleContext&);

namespace detail {
struct RankServices;
}

/// Everything a module instance may use: who it is, its ranks, its arguments, its channels and
/// the tuple space. One per running instance and rank; valid while the module function runs.
class ModuleContext {
 public:
  /// Built by the Executive (and by tests that run a module function directly).
  ModuleContext(const ModuleSpec& spec, int instance, int iteration, dist::Communicator comm,
                Args args, std::shared_ptr<detail::RankServices> services);
  ~ModuleContext();
  ModuleContext(const ModuleContext&) = delete;
  ModuleContext& operator=(const ModuleContext&) = delete;

  /// The module's name in the control file.
  const std::string& name() const { return spec_->name; }
  /// The ensemble instance (0 for a module that is not an ensemble).
  int instance() const { return instance_; }
  /// Number of instances of this module (the ensemble's size, or 1).
  int instances() const { return spec_->instances(); }
  /// The workflow iteration (0 .. iterations - 1).
  int iteration() const { return iteration_; }
  /// Number of workflow iterations.
  int iterations() const;
  /// This instance's own communicator: exactly its ranks (size = the module's `ranks`).
  const dist::Communicator& comm() const { return comm_; }
  /// "module 'x' instance i iteration k", for messages.
  std::string describe() const;

  /// True when argument `key` was given (in `args:` or the instance's ensemble entry).
  bool has_arg(const std::string& key) const { return args_.count(key) > 0; }
  /// Every argument (module `args` overridden by this instance's ensemble entry).
  const Args& args() const { return args_; }
  /// Argument `key` as T (bool, integers, double, std::string); an Error naming the module, the
  /// key, the file:line and the expected type if it is missing or does not convert.
  template <class T>
  T arg(const std::string& key) const;
  /// Argument `key` as T, or `fallback` when it was not given (still an Error if it was given
  /// with the wrong type).
  template <class T>
  T arg(const std::string& key, T fallback) const {
    return has_arg(key) ? arg<T>(key) : fallback;
  }

  /// The channel called `name` (this module is its sender or receiver); an Error if the control
  /// file declares no such channel touching this module.
  Channel& channel(const std::string& name);
  /// The tuple space; an Error if the control file asks for none (`tuple_space: {servers: K}`).
  TupleSpace& tuple_space();

 private:
  const ModuleSpec* spec_;
  int instance_;
  int iteration_;
  dist::Communicator comm_;
  Args args_;
  std::shared_ptr<detail::RankServices> services_;
};

// The argument types ModuleContext::arg supports (defined in src/flow/module_context.cpp).
template <>
std::string ModuleContext::arg<std::string>(const std::string& key) const;
template <>
bool ModuleContext::arg<bool>(const std::string& key) const;
template <>
int ModuleContext::arg<int>(const std::string& key) const;
template <>
int64_t ModuleContext::arg<int64_t>(const std::string& key) const;
template <>
double ModuleContext::arg<double>(const std::string& key) const;
template <>
float ModuleContext::arg<float>(const std::string& key) const;

/// Registers `fn` under `name` for `run: name`; an Error if the name is taken.
void register_module(const std::string& name, ModuleFn fn);
/// True when a module function called `name` is registered (by linked code, or by the
/// application plugin loaded now to look for it: core/plugin.h).
bool is_module_registered(const std::string& name);
/// The names of the registered module functions, sorted (every application plugin loaded first).
std::vector<std::string> registered_modules();
/// The function a `run:` value names: a registered name, or "lib.so:symbol" (the library is
/// opened with dlopen once and kept open). An Error saying what was not found.
ModuleFn resolve_module(const std::string& run);

namespace detail {
/// Registers a module at static-initialisation time (used by EXADNN_FLOW_MODULE).
struct ModuleRegistrar {
  ModuleRegistrar(const char* name, ModuleFn fn) { register_module(name, std::move(fn)); }
};
}  // namespace detail

}  // namespace exadnn::flow

/// Registers function `fn` (void(ModuleContext&)) as module `name` (an identifier) when the
/// program starts. Use it in a source file linked into the executable.
#define EXADNN_FLOW_MODULE(name, fn) \
  static const ::exadnn::flow::detail::ModuleRegistrar exadnn_flow_module_##name(#name, fn)

/// Declares `symbol` as a module exported from a shared library (`run: lib.so:symbol`).
#define EXADNN_FLOW_EXPORT(symbol) \
  extern "C" __attribute__((visibility("default"))) void symbol(::exadnn::flow::ModuleContext& ctx)
