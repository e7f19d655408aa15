#!/usr/bin/env bash
# Instructions per empty task (valgrind's callgrind), on one rank: herald-alloc-bench's stencil of one point,
# whose kernel does next to nothing, so no byte crosses a network and no loop waits for another rank.
# Each control runs at two step counts; the difference of their instruction counts over the difference of
# their tasks leaves out MPI's start-up and the runtime's set-up.
#
#   bench/runtime/instructions.sh [--build DIR] [--steps A,B] [--controls LIST]
#
# DIR (default build) holds herald-alloc-bench; an earlier commit's build gives the "before" figures.
set -euo pipefail
die() { echo "instructions.sh: $*" >&2; exit 1; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$repo/build steps=2000,6000 controls=replicated,head
source "$repo/bench/options.sh"
parse_options "build steps controls" "$@"
bench=$build/apps/herald-alloc-bench/herald-alloc-bench
[[ -x $bench ]] || die "no herald-alloc-bench in $build"
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
IFS=, read -r a b <<<"$steps"
[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $b -gt $a ]] || refuse "--steps takes A,B with B > A, not '$steps'"
[[ $(id -u) != 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-gl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {  # control steps -> instructions of the whole run
  mpiexec -n 1 valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bench" --steps "$2" --control "$1" \
    >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "herald-alloc-bench failed under valgrind"; }
  awk '/^summary:/ {print $2}' "$tmp/out"
}
echo "# bench/runtime/instructions.sh --build $build --steps $steps --controls $controls"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(valgrind --version)"
echo "control,steps_a,instructions_a,steps_b,instructions_b,tasks_between,instructions_per_task"
IFS=, read -r -a control_list <<<"$controls"
for control in "${control_list[@]}"; do
  ia=$(count "$control" "$a")
  ib=$(count "$control" "$b")
  # herald-alloc-bench runs a warm-up of steps/4 + 1 before the measured steps: 1.25 x steps in all.
  tasks=$(( (b + b / 4 + 1) - (a + a / 4 + 1) ))
  echo "$control,$a,$ia,$b,$ib,$tasks,$(awk -v x="$ia" -v y="$ib" -v t="$tasks" 'BEGIN {printf "%.0f", (y - x) / t}')"
done
