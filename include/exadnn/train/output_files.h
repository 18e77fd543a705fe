// Checks, before the first training step, that every file the run will write can be written, so
// a typo in a path fails in a second instead of after hours of training.
#pragma once

#include "exadnn/train/options.h"

namespace exadnn::train {

/// --metrics-out and --plot: their folder exists and is writable, and the path is not a folder or
/// a read-only file. --checkpoint-dir: created if needed and writable; a last.ckpt already there
/// is refused unless the run continues it (--resume) or replaces it (--overwrite). Each problem is
/// an Error naming the path and the option.
void check_output_files(const TrainOptions& options);

}  // namespace exadnn::train
