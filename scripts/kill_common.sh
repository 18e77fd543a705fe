# Shared by the kill scripts (scripts/kill_campaign.sh, scripts/rank_kill_trials.sh); sourced.
#   kill_tree PID       SIGKILLs PID and all its descendants in one kill(1) call (an MPI job:
#                       mpirun and its ranks, which Open MPI puts in process groups of their own,
#                       so a group kill would miss them); fails when PID had already ended
#   rank_pid MPIRUN R   the PID of MPI rank R among mpirun's children (Open MPI sets
#                       OMPI_COMM_WORLD_RANK in each rank's environment); fails when none is found

kill_tree() {
  kill -0 "$1" 2> /dev/null || return 1
  local pids=() queue=("$1") p
  while ((${#queue[@]})); do
    p=${queue[0]} queue=("${queue[@]:1}")
    pids+=("$p")
    queue+=($(pgrep -P "$p" || true))
  done
  kill -KILL "${pids[@]}" 2> /dev/null || true
}

rank_pid() {
  local pid
  for pid in $(pgrep -P "$1"); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$pid"
      return 0
    fi
  done
  return 1
}
