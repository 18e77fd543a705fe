// Where a checkpoint written by `exadnn train` left off: the epoch, the random generator's state
// and the metrics history, each field checked (type, shape, range: io/checkpoint_fields.h) with a
// message that names the file and the field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/io/checkpoint.h"

namespace exadnn::train {

/// One finished epoch, as the metrics and the checkpoint's history record it.
struct EpochRecord {
  int64_t epoch;
  double train_loss, test_accuracy, samples_per_second, seconds;
};

struct ResumePoint {
  int64_t epoch = 0;  ///< the last finished epoch (>= 0)
  uint64_t rng_seed = 0, rng_offset = 0;
  std::vector<EpochRecord> history;
};

/// Reads the `epoch` and `history` metadata and the `rng` tensor ([2] i64: seed, offset).
ResumePoint read_resume_point(const io::Checkpoint& ckpt);

/// The `history` metadata for a list of epochs (what read_resume_point reads back).
std::string history_json(const std::vector<EpochRecord>& history);

}  // namespace exadnn::train
