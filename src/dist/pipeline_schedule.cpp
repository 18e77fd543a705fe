// pipeline_order and replay_pipeline: the schedules' op order, and a step replayed from costs.
#include "exadnn/dist/pipeline_schedule.h"

#include <algorithm>

#include "exadnn/core/error.h"

namespace exadnn::dist {

std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages,
                                       int64_t m) {
  std::vector<PipelineOp> order;
  if (schedule == PipelineSchedule::gpipe) {
    for (int64_t i = 0; i < m; ++i) order.push_back({true, i});
    for (int64_t i = 0; i < m; ++i) order.push_back({false, i});
    return order;
  }
  const int64_t warmup = std::min<int64_t>(stages - stage - 1, m);
  int64_t next_forward = 0, next_backward = 0;
  while (next_forward < warmup) order.push_back({true, next_forward++});
  while (next_forward < m) {
    order.push_back({true, next_forward++});
    order.push_back({false, next_backward++});
  }
  while (next_backward < m) order.push_back({false, next_backward++});
  return order;
}

PipelineReplay replay_pipeline(PipelineSchedule schedule,
                               const std::vector<std::vector<double>>& forward,
                               const std::vector<std::vector<double>>& backward) {
  const int p = static_cast<int>(forward.size());
  EXADNN_CHECK(p >= 1 && backward.size() == forward.size() && !forward[0].empty(),
               "replay_pipeline", "needs forward and backward times of the same stages");
  const auto m = static_cast<int64_t>(forward[0].size());
  for (int s = 0; s < p; ++s)
    EXADNN_CHECK(static_cast<int64_t>(forward[s].size()) == m &&
                     static_cast<int64_t>(backward[s].size()) == m,
                 "replay_pipeline", "stage ", s, " has ", forward[s].size(), " forward and ",
                 backward[s].size(), " backward times, stage 0 ", m);
  constexpr double kNotYet = -1;
  // End time of each op, per stage and micro-batch; each stage's next op and free time.
  std::vector<std::vector<double>> forward_end(p, std::vector<double>(m, kNotYet)),
      backward_end(p, std::vector<double>(m, kNotYet));
  std::vector<std::vector<PipelineOp>> orders;
  for (int s = 0; s < p; ++s) orders.push_back(pipeline_order(schedule, s, p, m));
  std::vector<size_t> next(p, 0);
  std::vector<double> free_at(p, 0), busy(p, 0);
  size_t remaining = static_cast<size_t>(2 * m * p);
  while (remaining > 0) {
    bool progressed = false;
    for (int s = 0; s < p; ++s) {
      while (next[s] < orders[s].size()) {
        const PipelineOp op = orders[s][next[s]];
        const auto i = static_cast<size_t>(op.micro_batch);
        double ready = 0;  // when its input is there
        if (op.forward && s > 0) ready = forward_end[s - 1][i];
        if (!op.forward && s < p - 1) ready = backward_end[s + 1][i];
        if (ready == kNotYet) break;
        const double cost = op.forward ? forward[s][i] : backward[s][i];
        const double end = std::max(free_at[s], ready) + cost;
        (op.forward ? forward_end : backward_end)[s][i] = end;
        free_at[s] = end;
        busy[s] += cost;
        ++next[s];
        --remaining;
        progressed = true;
      }
    }
    EXADNN_CHECK(progressed, "replay_pipeline", "the schedule deadlocks");  // cannot happen
  }
  PipelineReplay r;
  r.makespan = *std::max_element(free_at.begin(), free_at.end());
  for (int s = 0; s < p; ++s)
    r.idle_fraction.push_back(r.makespan > 0 ? 1 - busy[s] / r.makespan : 0);
  return r;
}

}  // namespace exadnn::dist
