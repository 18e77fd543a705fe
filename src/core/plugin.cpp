// load_plugin: dlopen with RTLD_NOW | RTLD_GLOBAL (the plugin's registrar runs inside dlopen; its
// symbols resolve against the libexadnn already loaded), once per name.
#include "exadnn/core/plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace exadnn {
namespace {

struct Plugin {
  bool tried = false;
  void* handle = nullptr;
  std::string error;
};

std::mutex& plugins_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, Plugin>& plugins() {
  static auto* table = new std::map<std::string, Plugin>();  // leaked: used until exit
  return *table;
}

// The folder libexadnn was loaded from ("" if unknown).
std::string own_folder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::vector<std::string> candidates(const std::string& file) {
  std::vector<std::string> out;
  if (const char* env = std::getenv("EXADNN_PLUGIN_PATH"); env && *env) {
    std::string paths = env;
    for (size_t at = 0; at <= paths.size();) {
      const size_t colon = paths.find(':', at);
      const std::string dir = paths.substr(at, colon == std::string::npos ? colon : colon - at);
      if (!dir.empty()) out.push_back(dir + "/" + file);
      if (colon == std::string::npos) break;
      at = colon + 1;
    }
  }
  if (const std::string dir = own_folder(); !dir.empty()) out.push_back(dir + "/" + file);
  out.push_back(file);  // the loader's own search path (LD_LIBRARY_PATH, ld.so.cache, ...)
  return out;
}

Plugin& loaded(const std::string& name) {
  std::lock_guard<std::mutex> lock(plugins_mutex());
  Plugin& p = plugins()[name];
  if (p.tried) return p;
  p.tried = true;
  const std::string file = "libexadnn_" + name + ".so.0";
  for (const std::string& path : candidates(file)) {
    p.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (p.handle) {
      p.error.clear();
      break;
    }
    const char* why = ::dlerror();
    p.error += "\n  " + path + ": " + (why ? why : "not loadable");
  }
  if (!p.handle) p.error = "the " + name + " backend plugin " + file + " was not found:" + p.error;
  return p;
}

}  // namespace

bool load_plugin(const std::string& name) {
  return loaded(name).handle != nullptr;
}

std::string plugin_error(const std::string& name) {
  std::lock_guard<std::mutex> lock(plugins_mutex());
  const auto it = plugins().find(name);
  return it == plugins().end() ? "" : it->second.error;
}

void* plugin_symbol(const std::string& name, const char* symbol) {
  Plugin& p = loaded(name);
  return p.handle ? ::dlsym(p.handle, symbol) : nullptr;
}

}  // namespace exadnn
