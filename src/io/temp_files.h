// Temporaries of atomic checkpoint writes: a save writes "<target>.tmp.<pid>", then renames it over
// the target. A process killed between the two leaves its temporary behind; the next save into
// the same folder removes it.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace exadnn::io::internal {

/// How old a temporary must be to count as stale even when its process id is alive (the id may
/// have been reused, or belong to a process on another host of a shared file system).
inline constexpr std::chrono::hours kStaleTemporaryAge{1};

/// The temporary this process writes before it replaces `target`: "<target>.tmp.<pid>".
std::string temporary_path(const std::string& target);

/// Removes the temporaries left in target's folder by saves that were killed mid-write: files
/// "<target name>.tmp.<pid>" (pid not this process's) whose process no longer exists on this host
/// or which were last written more than `max_age` ago, and files "<other name>.tmp.<pid>" that
/// start with the checkpoint magic and are older than `max_age` (their writer may be alive on
/// another host). Best effort: never throws. Returns how many it removed.
size_t remove_stale_temporaries(const std::filesystem::path& target,
                                std::chrono::seconds max_age = kStaleTemporaryAge);

}  // namespace exadnn::io::internal
