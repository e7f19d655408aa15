#!/usr/bin/env bash
# Instructions per empty task (valgrind's callgrind): herald-alloc-bench's stencil of one point per worker,
# whose kernel does next to nothing. On one rank no byte crosses a network and no loop waits for another
# rank; at more ranks (--ranks) every rank is counted apart, which shows what a rank spends on the tasks it
# neither runs nor feeds (under replicated control every rank plans every task). Each control runs at two
# step counts; the difference of a rank's instruction counts over the difference of the graph's tasks
# leaves out MPI's start-up and the runtime's set-up.
#
#   bench/runtime/instructions.sh [--build DIR] [--steps A,B] [--controls LIST] [--ranks N]
#
# DIR (default build) holds herald-alloc-bench; an earlier commit's build gives the "before" figures.
# Per rank: instructions_per_task is over every task of the graph, instructions_per_task_run over the
# tasks that rank runs (a head runs none: "-"); both count the loops that wait for another rank, which
# spin for as long as the other takes, so at two ranks or more they move from run to run. submit_per_task
# is Head::submit() with everything it calls (callgrind_annotate's inclusive count), over every task of
# the graph: the planning at submission, which no wait inflates (a head's rank plans every task; under
# replicated control every rank does).
set -euo pipefail
die() { echo "instructions.sh: $*" >&2; exit 1; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$repo/build steps=2000,6000 controls=replicated,head ranks=1
source "$repo/bench/options.sh"
parse_options "build steps controls ranks" "$@"
IFS=, read -r a b <<<"$steps"
[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $b -gt $a ]] || refuse "--steps takes A,B with B > A, not '$steps'"
[[ $ranks =~ ^[1-9][0-9]*$ ]] || refuse "--ranks takes a positive count of processes, not '$ranks'"
bench=$build/apps/herald-alloc-bench/herald-alloc-bench
[[ -x $bench ]] || die "no herald-alloc-bench in $build"
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
over=()
((ranks <= $(nproc))) || over=(--oversubscribe)
[[ $(id -u) != 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-gl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {  # control steps -> each rank's instructions over the whole run, one line per rank
  rm -f "$tmp"/out.*
  # One callgrind file per rank, named by the rank the launcher gives (Open MPI's or MPICH's variable).
  mpiexec "${over[@]}" -n "$ranks" sh -c \
    'exec valgrind --tool=callgrind --callgrind-out-file="$0/out.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"' \
    "$tmp" "$bench" --steps "$2" --control "$1" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log" >&2; die "herald-alloc-bench failed under valgrind"; }
  for ((r = 0; r < ranks; r++)); do
    [[ -f $tmp/out.$r ]] || { cat "$tmp/log" >&2; die "no callgrind output of rank $r"; }
    # The whole run's count, then Head::submit()'s with all it calls: the planning a rank does for every
    # task of the graph, which no waiting loop inflates.
    printf '%s %s\n' "$(awk '/^summary:/ {print $2}' "$tmp/out.$r")" \
      "$(callgrind_annotate --inclusive=yes "$tmp/out.$r" 2>/dev/null |
        awk '/herald::runtime::Head::submit\(/ {gsub(",", "", $1); print $1; exit}')"
  done
}
echo "# bench/runtime/instructions.sh --build $build --steps $steps --controls $controls --ranks $ranks"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(valgrind --version), $(mpiexec --version 2>&1 | head -n 1)"
echo "control,ranks,rank,steps_a,instructions_a,steps_b,instructions_b,tasks_between,instructions_per_task,instructions_per_task_run,submit_per_task"
IFS=, read -r -a control_list <<<"$controls"
for control in "${control_list[@]}"; do
  mapfile -t ia < <(count "$control" "$a")
  mapfile -t ib < <(count "$control" "$b")
  ((${#ia[@]} == ranks && ${#ib[@]} == ranks)) || die "expected $ranks counts per run"
  # One point per worker, a task per point and step; the head is no worker where there are two ranks or more.
  workers=$ranks
  [[ $control != head || $ranks -eq 1 ]] || workers=$((ranks - 1))
  # herald-alloc-bench runs a warm-up of steps/4 + 1 before the measured steps: 1.25 x steps in all.
  steps_between=$(( (b + b / 4 + 1) - (a + a / 4 + 1) ))
  tasks=$((steps_between * workers))
  for ((r = 0; r < ranks; r++)); do
    run=$steps_between  # the tasks rank r runs: its own point's
    [[ $control != head || $ranks -eq 1 || $r -gt 0 ]] || run=0
    read -r xa sa <<<"${ia[r]}"
    read -r xb sb <<<"${ib[r]}"
    echo "$control,$ranks,$r,$a,$xa,$b,$xb,$tasks,$(awk -v x="$xa" -v y="$xb" -v t="$tasks" -v n="$run" -v sa="${sa:-0}" \
      -v sb="${sb:-0}" 'BEGIN {printf "%.0f,%s,%.0f", (y - x) / t, (n > 0 ? sprintf("%.0f", (y - x) / n) : "-"), (sb - sa) / t}')"
  done
done
