// The OpenMP team a parallel region started here really gets, and a scope that makes oneDNN split
// its work for that team.
//
// oneDNN (OpenMP runtime) splits a primitive's or a GEMM's work for omp_get_max_threads() threads
// and assumes its parallel region gets every one of them. Under OMP_DYNAMIC=true, under
// OMP_THREAD_LIMIT, or when a simulation calls exadnn from inside its own parallel region (nested
// parallelism off: a team of one), the region gets fewer and part of the output is never written.
// exadnn's own loops are `omp parallel for` over their chunks and are correct with any team.
#pragma once

namespace exadnn::cpu {

/// Threads a parallel region entered by the calling thread would get: 1 inside an active region
/// when no further level may be active, otherwise omp_get_max_threads() bounded by the thread
/// limit shared with the enclosing teams.
int available_team_size();

/// For its lifetime, the calling task's OpenMP settings ask for exactly available_team_size()
/// threads with dynamic adjustment off, so oneDNN's split matches the team it gets. Restores
/// the caller's settings on exit (they are per task: safe inside a caller's parallel region).
class ExactTeamScope {
 public:
  ExactTeamScope();
  ~ExactTeamScope();
  ExactTeamScope(const ExactTeamScope&) = delete;
  ExactTeamScope& operator=(const ExactTeamScope&) = delete;

 private:
  int saved_threads_;
  int saved_dynamic_;
};

}  // namespace exadnn::cpu
