#!/usr/bin/env bash
# METG(50%) of herald's runtime (head and replicated control), herald's plain MPI program, Task Bench's own
# MPI implementation (mpi/nonblock) and Task Bench's StarPU implementation, on this machine, one Task Bench
# graph with -iter swept. Per size and repetition every system runs the graph once, in an order that
# rotates; herald-task-bench-metg -from-csv then rates every system by Task Bench's rule (metg_rule.hpp).
#
#   bench/taskbench/metg.sh [--ranks N] [--steps S] [--width W] [--iters LIST] [--reps R] [--kernel K] [--type T]
#                           [--systems LIST] [--build DIR] [--peer DIR] [--before DIR] [--out DIR]
#
# Systems: herald-head, herald-replicated, herald-mpi, taskbench-starpu, taskbench-mpi (default: all; the last
# is the reference of the ratios), and herald-head-before and herald-replicated-before: the herald-task-bench of
# another build (--before, an earlier commit's) under head or replicated control. Writes <out>/metg-p<N>.csv (every run) and <out>/metg-p<N>.md (the
# report).
set -euo pipefail
die() { echo "metg.sh: $*" >&2; exit 1; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command_line="bench/taskbench/metg.sh $*"
ranks=2 steps=100 width= iters= reps=5 kernel=compute_bound type=stencil_1d build=$repo/build peer= before= out=$repo/bench/taskbench/results
systems=herald-head,herald-replicated,herald-mpi,taskbench-starpu,taskbench-mpi
source "$repo/bench/options.sh"
parse_options "ranks steps width iters reps kernel type systems build peer before out" "$@"
[[ $ranks =~ ^[1-9][0-9]*$ ]] || refuse "--ranks takes a count, not '$ranks'"
width=${width:-$ranks}
if [[ -z $iters ]]; then
  iters=$(n=262144; while ((n >= 16)); do printf '%s,' $n; n=$((n / 2)); done)
  iters=${iters%,}
fi
IFS=, read -r -a iter_list <<<"$iters"
IFS=, read -r -a system_list <<<"$systems"
herald=$build/apps/herald-task-bench/herald-task-bench
metg=$build/apps/herald-task-bench/herald-task-bench-metg
[[ -x $herald && -x $metg ]] || die "build herald-task-bench and herald-task-bench-metg in $build first"
if [[ -z $peer ]]; then
  starpu=()
  [[ $systems == *taskbench-starpu* ]] && starpu=(--starpu)
  peer=$("$repo/bench/taskbench/peer.sh" "${starpu[@]}")
fi
[[ $(id -u) != 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-gl
cores=$(nproc)
over=()
((ranks <= cores)) || over=(--oversubscribe)
per_rank=$((cores / ranks > 0 ? cores / ranks : 1))
mkdir -p "$out"
name=${HERALD_METG_NAME:-metg-p$ranks}
csv=$out/$name.csv
graph=(-steps "$steps" -width "$width" -type "$type" -kernel "$kernel")

# Cores running tasks, as the report counts them: the processes that run tasks (not herald's head), times
# their threads, at most the machine's.
cores_of() {
  local n
  case $1 in
    herald-head | herald-head-before) n=$((ranks > 1 ? ranks - 1 : 1)) ;;
    taskbench-starpu) n=$((ranks * per_rank)) ;;
    *) n=$ranks ;;
  esac
  echo $((n < cores ? n : cores))
}
source "$repo/bench/taskbench/run-one.sh"
totals() {  # iterations -> "tasks,flops" from herald's summary of the same graph
  mpiexec -n 1 "$herald" "${graph[@]}" -iter "$1" -system mpi 2>&1 |
    awk '/^Total Tasks/ {t = $3} /^Total FLOPs/ {f = $3} END {print t "," f}'
}

echo "system,iterations,seconds,cores,tasks,work" >"$csv"
declare -A work
for n in "${iter_list[@]}"; do work[$n]=$(totals "$n"); done
for ((rep = 0; rep < reps; rep++)); do
  for ((i = 0; i < ${#iter_list[@]}; i++)); do
    n=${iter_list[i]}
    count=${#system_list[@]}
    for ((k = 0; k < count; k++)); do
      system=${system_list[(rep + i + k) % count]}
      seconds=$(run_one "$system" "$n")
      echo "$system,$n,$seconds,$(cores_of "$system"),${work[$n]}" >>"$csv"
    done
  done
done
# The report lists systems in the order of their first row: put them in the order asked, reference last.
{
  head -1 "$csv"
  for system in "${system_list[@]}"; do grep "^$system," "$csv"; done
} >"$csv.ordered"
mv "$csv.ordered" "$csv"
{
  echo "# $command_line (steps $steps, width $width, reps $reps, type $type, kernel $kernel, -iter $iters)"
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), Task Bench $(git -C "$peer" rev-parse --short HEAD)"
  echo "# herald: -scheduler mapped (Task Bench's block of points per rank); StarPU: STARPU_NCPU=$per_rank per rank"
  (cd "$out" && mpiexec -n 1 "$metg" -from-csv "$(basename "$csv")")
} | tee "$out/$name.md"
