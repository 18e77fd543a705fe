// Stale temporaries: recognised by name ("<name>.tmp.<digits>"), and by content when they belong
// to another checkpoint of the folder; stale by owner (a dead process id) or by age.
#include "io/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <vector>

#include "io/checkpoint_format.h"

namespace exadnn::io::internal {
namespace {

constexpr std::string_view kTmp = ".tmp.";

// The process id of "<stem>.tmp.<digits>" and its stem, or nothing for any other name.
std::optional<std::pair<std::string, long long>> parse_temporary(const std::string& name) {
  const size_t at = name.rfind(kTmp);
  if (at == std::string::npos || at == 0) return std::nullopt;
  const std::string digits = name.substr(at + kTmp.size());
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  return std::make_pair(name.substr(0, at), std::stoll(digits));
}

// Whether a process with this id exists on this host (EPERM: it exists, owned by another user).
bool process_alive(long long pid) {
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

bool holds_checkpoint(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[sizeof kMagic] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::memcmp(head, kMagic, sizeof head) == 0;
}

}  // namespace

std::string temporary_path(const std::string& target) {
  return target + std::string(kTmp) + std::to_string(::getpid());
}

size_t remove_stale_temporaries(const std::filesystem::path& target, std::chrono::seconds max_age) {
  namespace fs = std::filesystem;
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string own_name = target.filename().string();
  const auto now = fs::file_time_type::clock::now();
  std::vector<fs::path> stale;  // removed after the listing, not while it runs
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto parsed = parse_temporary(it->path().filename().string());
    if (!parsed || parsed->second == ::getpid()) continue;
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) continue;
    const bool own_target = parsed->first == own_name;
    if (!own_target && !holds_checkpoint(it->path())) continue;
    const auto written = fs::last_write_time(it->path(), file_ec);
    const bool old = !file_ec && now - written > max_age;
    // Another checkpoint's temporary may be written by a process on another host of a shared
    // file system, whose id means nothing here: only its age makes it stale.
    if (old || (own_target && !process_alive(parsed->second))) stale.push_back(it->path());
  }
  size_t removed = 0;
  for (const fs::path& file : stale) {
    std::error_code file_ec;
    if (fs::remove(file, file_ec)) ++removed;
  }
  return removed;
}

}  // namespace exadnn::io::internal
