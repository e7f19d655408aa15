# One run of one system on the Task Bench graph in `graph` (an array), with `ranks` ranks (sourced, not
# run: metg.sh and spread.sh source it). Needs `herald` (herald-task-bench), `peer` (Task Bench's build, peer.sh), `before` (an
# earlier build, for the *-before systems), `per_rank` (StarPU's cores per rank), `over` (mpiexec's
# oversubscription flag, or empty) and a `die` function.
#
# Systems: herald-head, herald-replicated, herald-mpi (herald's plain MPI program), herald-head-before,
# herald-replicated-before, taskbench-mpi (mpi/nonblock), taskbench-starpu.

run_one() {  # system, iterations -> "seconds" (Task Bench's Elapsed Time)
  local system=$1 n=$2 cmd
  case $system in
    herald-head) cmd=("$herald" "${graph[@]}" -iter "$n" -control head -scheduler mapped) ;;
    herald-replicated) cmd=("$herald" "${graph[@]}" -iter "$n" -control replicated -scheduler mapped) ;;
    herald-mpi) cmd=("$herald" "${graph[@]}" -iter "$n" -system mpi) ;;
    herald-head-before | herald-replicated-before)
      [[ -x $before/apps/herald-task-bench/herald-task-bench ]] || die "$system needs --before BUILD_DIR"
      local control=${system#herald-}
      cmd=("$before/apps/herald-task-bench/herald-task-bench" "${graph[@]}" -iter "$n" -control "${control%-before}"
        -scheduler mapped) ;;
    taskbench-mpi) cmd=("$peer/mpi/nonblock" "${graph[@]}" -iter "$n") ;;
    taskbench-starpu) cmd=(env STARPU_SILENT=1 STARPU_NCPU=$per_rank "$peer/starpu/main" "${graph[@]}" -iter "$n") ;;
    *) die "unknown system '$system'" ;;
  esac
  mpiexec -n "$ranks" "${over[@]}" "${cmd[@]}" 2>&1 | awk '/^Elapsed Time/ {print $3; found = 1} END {exit !found}' ||
    die "$system at -iter $n printed no Elapsed Time"
}
