#!/usr/bin/env bash
# herald-task-bench-metg on a simulated cluster: the runtime's METG against the plain MPI program's, with
# one rank per simulated host (SimGrid SMPI runs herald's real code over a modelled network, every host on
# its own full-duplex link into a non-blocking switch) and the kernels' CPU time measured on this machine
# and added, so a rank's work takes the same time whatever else the 2-core machine runs.
#
#   bench/runtime/run-metg-smpi.sh [--workers 16,64] [--controls head,replicated] [--steps 20] [--width W]
#       [--type stencil_1d] [--bandwidth 10Gbps] [--latency 1us] [--reps 1] [--out DIR] [--build DIR]
#       [-- metg options]
#
# For W workers the job has W+1 ranks (the runtime's head and its workers); the MPI program runs on all of
# them. --width defaults to the worker count (Task Bench's usual one point per core). Each control runs in
# a simulation of its own, beside the MPI program: two runtimes in one simulated process slowed the second
# one's smallest tasks by 13x and more (16 workers; not understood), which separate processes, as on a
# real machine, do not share. Writes
# <out>/metg-smpi-w<W>-<control>.{md,csv}; <out> defaults to bench/runtime/results. Needs SimGrid (Debian's
# libsimgrid-dev: HERALD_SIMGRID=1 scripts/setup.sh); builds herald with smpicxx in --build (build-smpi).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-metg-smpi.sh
source "$repo/bench/smpi/common.sh"
# The runtime's idle loops spin here, as when these figures were first taken (they may sleep in simulated
# time otherwise, HERALD_RUNTIME_IDLE_SLEEP; bench/cholesky/run-smpi.sh lets them).
export HERALD_RUNTIME_IDLE_SLEEP=${HERALD_RUNTIME_IDLE_SLEEP:-0}
die() { smpi_die "$@"; }

source "$repo/bench/options.sh"
workers=16,64 controls=head,replicated steps=20 width= type=stencil_1d bandwidth=10Gbps latency=1us reps=1
out=$repo/bench/runtime/results build=$repo/build-smpi
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    -h | --help) show_usage; exit 0 ;;
    --workers | --controls | --steps | --width | --type | --bandwidth | --latency | --reps | --out | --build)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    *) die "unknown option '$1' (options for herald-task-bench-metg go after --)" ;;
  esac
done
smpi_require
smpi_build "$repo" "$build" herald-task-bench-metg
bench=$build/apps/herald-task-bench/herald-task-bench-metg
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpi_settings 0 1e-7 1

IFS=, read -r -a counts <<<"$workers"
IFS=, read -r -a modes <<<"$controls"
for w in "${counts[@]}"; do
  [[ $w =~ ^[0-9]+$ && $w -ge 1 ]] || die "--workers takes counts of at least 1, not '$w'"
  p=$((w + 1))
  smpi_flat_platform "$work/platform.xml" "$p" "$bandwidth" "$latency"
  smpi_hostfile "$work/hosts" "$p"
  for control in "${modes[@]}"; do
    [[ $control == head || $control == replicated ]] || die "--controls takes head and replicated, not '$control'"
    name=metg-smpi-w$w-$control
    {
      echo "# herald-task-bench-metg on a simulated cluster (SimGrid SMPI)"
      echo
      echo "$w workers and the head: $p hosts, one rank each; links $bandwidth, $latency each way, full duplex," \
        "non-blocking switch; a test costs 1e-7 s; CPU time measured on this machine and added."
      echo "SimGrid $(smpi_version), $(date -u '+%Y-%m-%d %H:%M UTC'), herald $(git -C "$repo" rev-parse --short HEAD)."
      echo
      echo "Command: bench/runtime/run-metg-smpi.sh --workers $w --controls $control --steps $steps" \
        "--width ${width:-$w} --type $type --bandwidth $bandwidth --latency $latency --reps $reps${*:+ -- $*}"
      echo
    } >"$out/$name.md"
    smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" "${smpi_options[@]}" \
      "$bench" -steps "$steps" -width "${width:-$w}" -type "$type" -kernel busy_wait -reps "$reps" \
      -controls "$control" -csv "$out/$name.csv" "$@" 2>"$work/log" | tee -a "$out/$name.md" ||
      { cat "$work/log" >&2; die "the simulation of $w workers under $control control failed"; }
  done
done
echo "wrote $out/metg-smpi-w*-*.md and .csv"
