#!/usr/bin/env bash
# The runtime's broadcast strategies with real processes on this machine: the experiment of
# run-broadcast-smpi.sh (Task Bench stencil_1d, width = workers, a broadcast buffer every task reads) at a
# few ranks, every strategy in turn within each repetition, so that all of them see the same machine.
#
#   bench/runtime/run-broadcast-local.sh [--ranks 2,3,4] [--sizes 64K,1M,8M]
#       [--strategies nobcast,p2p,mpibcast,mpibcast:herald,dynbcast,auto] [--steps 4] [--reps 5]
#       [--out DIR] [--build DIR] [-- herald-task-bench options]
#
# Ranks are the head and its workers (2 ranks: one worker, so no broadcast at all: a floor). Writes into
# <out> (default bench/runtime/results/local): broadcast-local.csv (every run), broadcast-local.md (medians
# per ranks and size, speedup over nobcast) and broadcast-local.png. Timings with more ranks than cores
# measure the scheduler as much as the runtime.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
die() {
  echo "run-broadcast-local.sh: $*" >&2
  exit 2
}

source "$repo/bench/options.sh"
ranks=2,3,4 sizes=64K,1M,8M strategies=nobcast,p2p,mpibcast,mpibcast:herald,dynbcast,auto steps=4 reps=5
out=$repo/bench/runtime/results/local build=$repo/build
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    -h | --help) show_usage; exit 0 ;;
    --ranks | --sizes | --strategies | --steps | --reps | --out | --build)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    *) die "unknown option '$1' (options for herald-task-bench go after --)" ;;
  esac
done
source "$repo/bench/runtime/common.sh"
IFS=, read -r -a rank_list <<<"$ranks"
split_lists
for r in "${rank_list[@]}"; do [[ $r =~ ^[0-9]+$ && $r -ge 2 ]] || die "--ranks takes counts of at least 2, not '$r'"; done
[[ $reps =~ ^[0-9]+$ && $reps -ge 1 ]] || die "--reps must be a positive count"
bench=$build/apps/herald-task-bench/herald-task-bench
[[ -x $bench ]] || die "$bench not found: build it (cmake --build $build --target herald-task-bench)"
command -v mpiexec >/dev/null || die "mpiexec not found"
launch=(mpiexec --oversubscribe)
if mpiexec --version 2>&1 | grep -q "Open MPI"; then
  launch+=(--mca mpi_yield_when_idle 1)
  [[ $(id -u) != 0 ]] || launch+=(--allow-run-as-root)
fi
mkdir -p "$out"

csv=$out/broadcast-local.csv
echo "workers,bytes,strategy,status,elapsed_s,wall_s" >"$csv"
failed=0
for ((rep = 1; rep <= reps; ++rep)); do
  for r in "${rank_list[@]}"; do
    for s in "${size_list[@]}"; do
      n=$(bytes_of "$s")
      for strategy in "${strategy_list[@]}"; do
        started=$(date +%s)
        status=ok
        text=$(timeout 300 "${launch[@]}" -n "$r" "$bench" -steps "$steps" -width $((r - 1)) -type stencil_1d \
          -broadcast "$n" -strategy "$strategy" "$@" 2>&1) || status=failed
        elapsed=$(awk '/^Elapsed Time/ { print $3 }' <<<"$text")
        [[ -n $elapsed ]] || status=failed
        if [[ $status != ok ]]; then
          failed=1
          echo "$text" >&2
        fi
        echo "$((r - 1)),$n,$strategy,$status,$elapsed,$(($(date +%s) - started))" >>"$csv"
      done
    done
  done
  echo "repetition $rep of $reps done"
done
"$(command -v /usr/bin/python3 || command -v python3)" "$repo/bench/runtime/broadcast_report.py" "$csv" --out "$out" \
  --name broadcast-local \
  --command "bench/runtime/run-broadcast-local.sh --ranks $ranks --sizes $sizes --strategies $strategies --steps $steps --reps $reps${*:+ -- $*}" \
  --platform "$(nproc) cores of this machine, $(mpiexec --version 2>&1 | head -n 1), $(date -u '+%Y-%m-%d %H:%M UTC'); medians over $reps repetitions"
echo "wrote $csv, $out/broadcast-local.md and .png"
exit "$failed"
