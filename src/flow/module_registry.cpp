// The module registry: functions registered by name in the executable, and modules loaded from
// shared libraries (`run: lib.so:symbol`, opened once with dlopen and never closed, so functions
// and their static state stay valid for the life of the process). A name no linked code
// registered is looked for in the application plugins (core/plugin.h) first, when enabled.
#include <dlfcn.h>

#include <map>
#include <mutex>

#include "exadnn/core/plugin.h"
#include "exadnn/flow/module.h"

namespace exadnn::flow {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, ModuleFn> functions;
  std::map<std::string, void*> libraries;  // path -> dlopen handle
};

// Constructed on first use: registrations run during static initialisation of other files.
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void register_module(const std::string& name, ModuleFn fn) {
  EXADNN_CHECK(!name.empty() && name.find(':') == std::string::npos, "flow::register_module",
               "module name '", name, "' must be non-empty and contain no ':'");
  EXADNN_CHECK(fn != nullptr, "flow::register_module", "module '", name, "' has no function");
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  EXADNN_CHECK(r.functions.emplace(name, std::move(fn)).second, "flow::register_module", "module '",
               name, "' is registered twice");
}

namespace {
// Loads the application plugin that may define `name` unless it is registered; true if it is.
bool registered_or_loaded(const std::string& name) {
  return load_app_plugins_defining(name, [&] {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    return r.functions.count(name) > 0;
  });
}
}  // namespace

bool is_module_registered(const std::string& name) {
  return registered_or_loaded(name);
}

std::vector<std::string> registered_modules() {
  load_all_app_plugins();
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& kv : r.functions) names.push_back(kv.first);
  return names;
}

ModuleFn resolve_module(const std::string& run) {
  const auto colon = run.rfind(':');
  if (colon == std::string::npos) registered_or_loaded(run);
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (colon == std::string::npos) {
    const auto it = r.functions.find(run);
    EXADNN_CHECK(it != r.functions.end(), "flow", "no module function called '", run,
                 "' is registered", app_plugin_failures());
    return it->second;
  }
  const std::string path = run.substr(0, colon), symbol = run.substr(colon + 1);
  void*& handle = r.libraries[path];
  if (!handle) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      r.libraries.erase(path);
      const char* why = dlerror();
      throw Error("flow", exadnn::detail::cat("cannot load module library '", path,
                                              "': ", why ? why : "dlopen failed"));
    }
  }
  dlerror();
  void* address = dlsym(handle, symbol.c_str());
  const char* why = dlerror();
  EXADNN_CHECK(address && !why, "flow", "module library '", path, "' has no symbol '", symbol, "'",
               why ? std::string(": ") + why : std::string());
  const auto fn = reinterpret_cast<ModuleSymbol>(address);
  return [fn](ModuleContext& ctx) { fn(ctx); };
}

}  // namespace exadnn::flow
