// load_plugin: dlopen with RTLD_NOW | RTLD_GLOBAL (the plugin's registrar runs inside dlopen; its
// symbols resolve against the libexadnn already loaded), once per name.
#include "exadnn/core/plugin.h"

#include <dirent.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
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

// The folders searched for plugins, in order: $EXADNN_PLUGIN_PATH's, then libexadnn's own.
std::vector<std::string> plugin_folders() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("EXADNN_PLUGIN_PATH"); env && *env) {
    std::string paths = env;
    for (size_t at = 0; at <= paths.size();) {
      const size_t colon = paths.find(':', at);
      const std::string dir = paths.substr(at, colon == std::string::npos ? colon : colon - at);
      if (!dir.empty()) out.push_back(dir);
      if (colon == std::string::npos) break;
      at = colon + 1;
    }
  }
  if (const std::string dir = own_folder(); !dir.empty()) out.push_back(dir);
  return out;
}

std::vector<std::string> candidates(const std::string& file) {
  std::vector<std::string> out;
  for (const std::string& dir : plugin_folders()) out.push_back(dir + "/" + file);
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
  if (!p.handle) p.error = "the plugin " + file + " was not found or did not load:" + p.error;
  return p;
}

std::atomic<bool>& app_plugins_switch() {
  static std::atomic<bool> on{false};
  return on;
}

constexpr char kAppPrefix[] = "libexadnn_app_";
constexpr char kAppSuffix[] = ".so.0";

// Whether plugin `app` may define `key`: `key` is `app`, or starts with `app` and '_' or '-'.
bool may_define(const std::string& app, const std::string& key) {
  if (key.compare(0, app.size(), app) != 0) return false;
  return key.size() == app.size() || key[app.size()] == '_' || key[app.size()] == '-';
}

}  // namespace

void set_app_plugins_enabled(bool enabled) {
  app_plugins_switch() = enabled;
}

bool app_plugins_enabled() {
  return app_plugins_switch();
}

std::vector<std::string> app_plugins() {
  const std::string prefix = kAppPrefix, suffix = kAppSuffix;
  std::set<std::string> names;
  for (const std::string& dir : plugin_folders()) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    while (const dirent* entry = ::readdir(d)) {
      const std::string file = entry->d_name;
      if (file.size() > prefix.size() + suffix.size() &&
          file.compare(0, prefix.size(), prefix) == 0 &&
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
        names.insert(file.substr(prefix.size(), file.size() - prefix.size() - suffix.size()));
    }
    ::closedir(d);
  }
  return {names.begin(), names.end()};
}

bool load_app_plugins_defining(const std::string& key, const std::function<bool()>& known) {
  if (known()) return true;
  if (!app_plugins_enabled()) return false;
  const std::vector<std::string> apps = app_plugins();
  for (const std::string& app : apps)
    if (may_define(app, key)) load_plugin("app_" + app);
  if (known()) return true;
  for (const std::string& app : apps)
    if (!may_define(app, key)) load_plugin("app_" + app);
  return known();
}

void load_all_app_plugins() {
  if (!app_plugins_enabled()) return;
  for (const std::string& app : app_plugins()) load_plugin("app_" + app);
}

std::string app_plugin_failures() {
  if (!app_plugins_enabled()) return "";
  std::string failures;
  for (const std::string& app : app_plugins()) {
    const std::string why = plugin_error("app_" + app);
    if (!why.empty()) failures += (failures.empty() ? "" : "; ") + why;
  }
  return failures.empty() ? "" : " (application plugins that failed to load: " + failures + ")";
}

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
