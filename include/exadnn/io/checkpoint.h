// Checkpoints: tensors and metadata in one versioned, checksummed file, written atomically.
//
// File layout (little-endian):
//   "EXADNNCK"  u32 format version  u64 header bytes  header (JSON)  tensor data  u64 checksum
// The header lists every tensor (name, dtype, shape, byte offset into the data) and the string
// metadata. The checksum (FNV-1a 64) covers everything before it. Writing goes to a temporary file
// in the same folder ("<target>.tmp.<pid>"), which is flushed, fsync'ed and renamed over the
// target, so a run killed mid-write leaves either the old checkpoint or the new one, never a
// broken one; the temporary such a run leaves behind is removed by the next save into the folder.
//
// Reading checks the file's structure (every tensor's dtype, shape, offset and size against the
// data section, without overflow); checkpoint_fields.h checks the fields against what a reader
// expects of them.
#pragma once

#include <map>
#include <string>

#include "exadnn/core/state_dict.h"

namespace exadnn::io {

/// Current checkpoint format version.
inline constexpr uint32_t kCheckpointVersion = 1;

/// What a checkpoint holds.
struct Checkpoint {
  StateDict tensors;                            ///< dense CPU copies
  std::map<std::string, std::string> metadata;  ///< e.g. epoch, step, config
  std::string path;                             ///< the file it was read from (for messages)
};

/// Writes `tensors` (any device/layout; stored dense) and `metadata` to `path` atomically, after
/// removing the temporaries that saves killed mid-write left in the folder: those of `path` whose
/// process is gone from this host, and any checkpoint temporary older than an hour.
void save_checkpoint(const std::string& path, const StateDict& tensors,
                     const std::map<std::string, std::string>& metadata = {});
/// Reads a checkpoint; a missing, truncated, corrupt (checksum) or newer-version file, or one whose
/// header does not describe its data exactly (a tensor's dtype, shape, offset or size; tensors
/// are stored back to back in header order), is an Error naming the file, the field and the
/// problem.
Checkpoint load_checkpoint(const std::string& path);

}  // namespace exadnn::io
