#!/usr/bin/env bash
# The traces docs/tracing.md shows, made on this machine, and what tracing costs:
#   - a Task Bench stencil on the task runtime (4 processes: the head and 3 workers, a 1 MiB buffer every
#     task reads sent with the dynamic broadcast): <out>/stencil-dynbcast/;
#   - coll broadcasts of 1 MiB (scatter_ring, chain) on 4 ranks from herald-bcast-bench: <out>/bcast-1M/;
#   - herald-trace-bench at 2 ranks: <out>/trace-bench.txt.
# Each trace directory holds trace.json, trace.otf2 (with its trace/ folder and trace.def), herald-trace's
# pictures and summary.txt, and otf2-print's first lines (otf2-print.txt).
#
#   bench/trace/run.sh [--build build] [--out bench/trace/results]
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
die() { echo "run.sh: $*" >&2; exit 2; }
build=$repo/build out=$repo/bench/trace/results
source "$repo/bench/options.sh"
parse_options "build out" "$@"

cmake --build "$build" -j2 --target herald-task-bench herald-bcast-bench herald-trace-bench >/dev/null
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}
launch=(mpiexec --oversubscribe)
[[ $(id -u) -eq 0 ]] && launch+=(--allow-run-as-root)
trace_tool=(/usr/bin/python3 "$repo/apps/herald-trace/herald-trace")
mkdir -p "$out"

# traced NAME COMMAND...: runs COMMAND with HERALD_TRACE=<out>/NAME, keeping its output in run.txt.
traced() {
  local dir=$out/$1
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "HERALD_TRACE=$dir $*" > "$dir/command.txt"
  HERALD_TRACE=$dir "$@" > "$dir/run.txt"
  (otf2-print "$dir/trace.otf2" 2>&1 || true) | head -40 > "$dir/otf2-print.txt"
}

traced stencil-dynbcast env HERALD_RUNTIME_BCAST=dynbcast "${launch[@]}" -n 4 \
  "$build/apps/herald-task-bench/herald-task-bench" -steps 8 -width 6 -type stencil_1d -kernel compute_bound \
  -iter 20000 -broadcast 1048576
"${trace_tool[@]}" "$out/stencil-dynbcast" --title "Task Bench stencil_1d, 3 workers, dynbcast"

traced bcast-1M "${launch[@]}" -n 4 "$build/apps/herald-bcast-bench/herald-bcast-bench" --sizes 1M \
  --algorithms scatter_ring,chain --repetitions 1 --iterations 5 --min-iterations 5 --warmup 1
"${trace_tool[@]}" "$out/bcast-1M" --bcast 0 --bcast 1

"${launch[@]}" -n 2 "$build/apps/herald-trace-bench/herald-trace-bench" --sizes 1,1K,64K,1M --calls 2000 \
  --repetitions 7 | tee "$out/trace-bench.txt"
