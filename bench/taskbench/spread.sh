#!/usr/bin/env bash
# How much runs of one graph vary: each system runs the same stencil_1d graph (long enough that start-up
# does not count: 1000 steps) N times, the systems interleaved, at each -iter given; per system and size the
# median elapsed time and the spread, (max - min) / median, as metg.sh's report computes it.
#
#   bench/taskbench/spread.sh [--ranks N] [--steps S] [--iters LIST] [--runs R] [--systems LIST]
#                             [--build DIR] [--before DIR] [--peer DIR]
#
# Systems as in metg.sh (run-one.sh): herald-replicated, herald-head, herald-mpi, the *-before ones (the
# herald-task-bench of --before), taskbench-mpi (built by peer.sh).
set -euo pipefail
die() { echo "spread.sh: $*" >&2; exit 1; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command_line="bench/taskbench/spread.sh $*"
ranks=2 steps=1000 iters=16384,4096,512 runs=10 systems=herald-replicated,taskbench-mpi build=$repo/build before= peer=
source "$repo/bench/options.sh"
parse_options "ranks steps iters runs systems build before peer" "$@"
[[ $runs =~ ^[1-9][0-9]*$ ]] || refuse "--runs takes a count, not '$runs'"
herald=$build/apps/herald-task-bench/herald-task-bench
[[ -x $herald ]] || die "build herald-task-bench in $build first"
[[ -n $peer ]] || peer=$("$repo/bench/taskbench/peer.sh")
[[ $(id -u) != 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-gl
over=()
((ranks <= $(nproc))) || over=(--oversubscribe)
graph=(-steps "$steps" -width "$ranks" -type stencil_1d -kernel compute_bound)
per_rank=1
source "$repo/bench/taskbench/run-one.sh"
IFS=, read -r -a iter_list <<<"$iters"
IFS=, read -r -a system_list <<<"$systems"
echo "# $command_line"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, ranks $ranks, stencil_1d width $ranks, $steps steps, compute_bound"
echo "system,iterations,median_s,min_s,max_s,spread,runs_s"
for n in "${iter_list[@]}"; do
  declare -A times=()
  for ((r = 0; r < runs; r++)); do
    for system in "${system_list[@]}"; do times[$system]+="$(run_one "$system" "$n") "; done
  done
  for system in "${system_list[@]}"; do
    echo "$system,$n,$(tr ' ' '\n' <<<"${times[$system]}" | grep . | sort -g | awk '
      {v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.6g,%.6g,%.6g,%.3f", m, v[1], v[NR], (v[NR] - v[1]) / m}'),${times[$system]% }"
  done
  unset times
done
