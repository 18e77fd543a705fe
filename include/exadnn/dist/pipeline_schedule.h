// The order in which each pipeline stage runs its micro-batches' forwards and backwards (GPipe,
// 1F1B), and a replay of that order with given compute times and messages that take no time: the
// bubble a pipeline's own stage costs imply, against which a measured idle fraction tells time
// lost to messages from time lost to unequal (or noisy) stages.
#pragma once

#include <cstdint>
#include <vector>

#include "exadnn/dist/pipeline.h"

namespace exadnn::dist {

/// One step of a stage's schedule: micro-batch `micro_batch`'s forward or backward.
struct PipelineOp {
  bool forward = true;
  int64_t micro_batch = 0;
};

/// What stage `stage` of `stages` runs, in order, for `micro_batches` micro-batches. GPipe: every
/// forward, then every backward (micro-batch order). 1F1B: min(stages − stage − 1, m) forwards to
/// fill the pipe, then a forward and a backward in turn, then the remaining backwards.
std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages,
                                       int64_t micro_batches);

/// A step replayed: every stage starts at 0; an op starts when its stage is free and its input is
/// there (forward of micro-batch i on stage s after that forward on s − 1; backward of i on s
/// after that backward on s + 1), and lasts its given time.
struct PipelineReplay {
  double makespan = 0;                ///< the last op's end
  std::vector<double> idle_fraction;  ///< per stage: 1 − its compute / makespan
};

/// Replays one step: forward[s][i] and backward[s][i] are stage s's seconds for micro-batch i
/// (every stage the same m). With equal costs every stage's idle fraction is the bubble
/// (p − 1)/(m + p − 1), under both schedules. Error for ragged or empty input.
PipelineReplay replay_pipeline(PipelineSchedule schedule,
                               const std::vector<std::vector<double>>& forward,
                               const std::vector<std::vector<double>>& backward);

}  // namespace exadnn::dist
