#!/usr/bin/env bash
# The compute kernels' peak FLOP/s per core: herald-task-bench against Task Bench's own MPI build
# (bench/taskbench/peer.sh), one rank each, the same command line, runs interleaved; medians and ratios.
#
#   bench/taskbench/kernel-peak.sh [--build DIR] [--peer DIR] [--reps N] [--iter N] [--out FILE]
set -euo pipefail
die() { echo "kernel-peak.sh: $*" >&2; exit 1; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$repo/build peer= reps=7 iter=200000 out=
source "$repo/bench/options.sh"
parse_options "build peer reps iter out" "$@"
[[ -n $peer ]] || peer=$("$repo/bench/taskbench/peer.sh")
herald=$build/apps/herald-task-bench/herald-task-bench
[[ -x $herald ]] || die "$herald not found: build it first"
[[ -x $peer/mpi/nonblock ]] || die "$peer/mpi/nonblock not found: run bench/taskbench/peer.sh"
[[ $(id -u) != 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec=${MPIEXEC:-mpiexec}

flops() { "$mpiexec" -n 1 "$@" 2>&1 | awk '/^FLOP\/s/ {print $2}'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

{
  echo "# herald-task-bench vs Task Bench's mpi/nonblock ($(git -C "$peer" rev-parse --short HEAD)), 1 rank,"
  echo "# -steps 100 -width 1 -type trivial -iter $iter, $reps runs each, interleaved; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  printf '%-16s %14s %14s %7s\n' kernel herald_GFLOPs taskbench_GFLOPs ratio
  for kernel in compute_bound compute_bound2; do
    args=(-steps 100 -width 1 -type trivial -kernel "$kernel" -iter "$iter")
    h=() t=()
    for ((r = 0; r < reps; r++)); do
      h+=("$(flops "$herald" "${args[@]}")")
      t+=("$(flops "$peer/mpi/nonblock" "${args[@]}")")
    done
    echo "# $kernel herald runs: ${h[*]}"
    echo "# $kernel taskbench runs: ${t[*]}"
    hm=$(printf '%s\n' "${h[@]}" | median) tm=$(printf '%s\n' "${t[@]}" | median)
    awk -v k="$kernel" -v h="$hm" -v t="$tm" 'BEGIN {printf "%-16s %14.1f %14.1f %7.3f\n", k, h / 1e9, t / 1e9, h / t}'
  done
} | tee ${out:+"$out"}
