#!/usr/bin/env bash
# The runtime's broadcast strategies on a simulated cluster: Task Bench's stencil_1d with a broadcast buffer
# that every task reads (herald-task-bench -broadcast), the graph as wide as the workers, so that every
# worker needs the buffer. One rank per simulated host (SimGrid SMPI runs herald's real code over a modelled
# network, every host on its own full-duplex link into a non-blocking switch); the head writes the buffer.
#
#   bench/runtime/run-broadcast-smpi.sh [--workers 4,8,16,32,64] [--sizes 256K,1M,4M,16M,64M]
#       [--strategies nobcast,p2p,mpibcast,mpibcast:herald,dynbcast,auto] [--steps 4]
#       [--bandwidth 100Gbps] [--latency 1us] [--timeout 1800] [--control head|replicated] [--out DIR]
#       [--build DIR]
#       [-- herald-task-bench options]
#
# For W workers the job has W+1 ranks (--control replicated: W, every one a worker, rank 0 the buffer's
# owner, with no head). Communication only: the processes' CPU time is not simulated (the
# tasks are empty; the head's and workers' own work would add the same to every strategy). Sizes take K, M
# and G suffixes (powers of 1024). Each run is its own smpirun, --timeout seconds at most. Writes into <out>
# (default bench/runtime/results): broadcast-smpi.csv (every run: workers, bytes, strategy, status,
# elapsed_s, wall_s), broadcast-smpi.md (the settings, elapsed time and speedup over nobcast per workers and
# size) and broadcast-smpi.png, and runs/ with every run's output. Exits 1 when a run failed or timed out.
# Needs SimGrid (HERALD_SIMGRID=1 scripts/setup.sh); builds herald with smpicxx in --build (build-smpi).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-broadcast-smpi.sh
source "$repo/bench/smpi/common.sh"
# The runtime's idle loops spin here, as when these figures were first taken (they may sleep in simulated
# time otherwise, HERALD_RUNTIME_IDLE_SLEEP; bench/cholesky/run-smpi.sh lets them).
export HERALD_RUNTIME_IDLE_SLEEP=${HERALD_RUNTIME_IDLE_SLEEP:-0}
die() { smpi_die "$@"; }

source "$repo/bench/options.sh"
workers=4,8,16,32,64 sizes=256K,1M,4M,16M,64M strategies=nobcast,p2p,mpibcast,mpibcast:herald,dynbcast,auto
steps=4 bandwidth=100Gbps latency=1us timeout=1800 control=head
out=$repo/bench/runtime/results build=$repo/build-smpi
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    -h | --help) show_usage; exit 0 ;;
    --workers | --sizes | --strategies | --steps | --bandwidth | --latency | --timeout | --control | --out | --build)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    *) die "unknown option '$1' (options for herald-task-bench go after --)" ;;
  esac
done

source "$repo/bench/runtime/common.sh"
IFS=, read -r -a counts <<<"$workers"
split_lists
for w in "${counts[@]}"; do [[ $w =~ ^[0-9]+$ && $w -ge 2 ]] || die "--workers takes counts of at least 2, not '$w'"; done
[[ $steps =~ ^[0-9]+$ && $steps -ge 1 ]] || die "--steps must be a positive count, not '$steps'"
[[ $timeout =~ ^[0-9]+$ && $timeout -ge 1 ]] || die "--timeout must be a positive number of seconds"

[[ $control == head || $control == replicated ]] || die "--control takes head or replicated, not '$control'"
export HERALD_RUNTIME_CONTROL=$control
smpi_require
smpi_build "$repo" "$build" herald-task-bench
bench=$build/apps/herald-task-bench/herald-task-bench
mkdir -p "$out/runs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpi_settings 0 1e-7 0

csv=$out/broadcast-smpi.csv
echo "workers,bytes,strategy,status,elapsed_s,wall_s" >"$csv"
failed=0
for w in "${counts[@]}"; do
  p=$w
  [[ $control == replicated ]] || p=$((w + 1))  # the head on a host of its own
  smpi_flat_platform "$work/platform.xml" "$p" "$bandwidth" "$latency"
  smpi_hostfile "$work/hosts" "$p"
  for s in "${size_list[@]}"; do
    n=$(bytes_of "$s")
    for strategy in "${strategy_list[@]}"; do
      name=w$w-$n-${strategy//:/_}
      started=$(date +%s)
      status=ok
      timeout --kill-after=10 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
        "${smpi_options[@]}" "$bench" -steps "$steps" -width "$w" -type stencil_1d -broadcast "$n" \
        -strategy "$strategy" "$@" >"$out/runs/$name.txt" 2>"$out/runs/$name.log" || status=$?
      wall=$(($(date +%s) - started))
      elapsed=$(awk '/^Elapsed Time/ { print $3 }' "$out/runs/$name.txt")
      case $status in
        ok) [[ -n $elapsed ]] || status=failed ;;
        124 | 137) status=timeout ;;
        *) status=failed ;;
      esac
      [[ $status == ok ]] || failed=1
      printf '%s workers, %s bytes, %s: %s (%s s simulated) in %s s\n' "$w" "$n" "$strategy" "$status" \
        "${elapsed:--}" "$wall"
      echo "$w,$n,$strategy,$status,$elapsed,$wall" >>"$csv"
    done
  done
done

command_line="bench/runtime/run-broadcast-smpi.sh --workers $workers --sizes $sizes --strategies $strategies --control $control"
command_line+=" --steps $steps --bandwidth $bandwidth --latency $latency${*:+ -- $*}"
"$(smpi_python)" "$repo/bench/runtime/broadcast_report.py" "$csv" --out "$out" --command "$command_line" \
  --platform "$bandwidth links of $latency, full duplex, non-blocking switch; SimGrid $(smpi_version), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "wrote $csv, $out/broadcast-smpi.md and .png, $out/runs/"
exit "$failed"
