#include "omp_team.h"

#include <omp.h>

#include <algorithm>

namespace exadnn::cpu {

int available_team_size() {
  const int level = omp_get_active_level();
  if (level >= omp_get_max_active_levels()) return 1;  // a nested region would be inactive
  // The thread limit bounds all threads of the contention group: divide it among the enclosing
  // teams, each of which may start a region of its own.
  long enclosing = 1;
  for (int l = 1; l <= omp_get_level(); ++l) enclosing *= std::max(1, omp_get_team_size(l));
  const long limit = std::max(1L, static_cast<long>(omp_get_thread_limit()) / enclosing);
  return static_cast<int>(std::min<long>(omp_get_max_threads(), limit));
}

ExactTeamScope::ExactTeamScope()
    : saved_threads_(omp_get_max_threads()), saved_dynamic_(omp_get_dynamic()) {
  const int team = available_team_size();
  omp_set_dynamic(0);
  if (team != saved_threads_) omp_set_num_threads(team);
}

ExactTeamScope::~ExactTeamScope() {
  if (omp_get_max_threads() != saved_threads_) omp_set_num_threads(saved_threads_);
  omp_set_dynamic(saved_dynamic_);
}

}  // namespace exadnn::cpu
