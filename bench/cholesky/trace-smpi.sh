#!/usr/bin/env bash
# One point of bench/cholesky/run-smpi.sh, traced: for each strategy, run-smpi.sh runs herald-cholesky
# under SimGrid SMPI with HERALD_TRACE set (smpirun runs every simulated rank inside its own process, so
# they all see the variable), then apps/herald-trace draws and summarises the trace.
#
#   bench/cholesky/trace-smpi.sh [--nodes 16] [--size 32768] [--bandwidth 10Gbps] [--latency 1us]
#       [--strategies nobcast,dynbcast] [--tile 512] [--cores 16] [--kernel-times FILE] [--timeout 3600]
#       [--jobs 1] [--out DIR] [--build DIR]
#
# The settings are run-smpi.sh's (same platform, SMPI options, modelled kernels and shared replicas);
# --kernel-times defaults to bench/cholesky/results/kernel-times-<tile>.json, as measured for that table,
# so the traced runs can be compared with its untraced ones. --jobs runs that many strategies at once (one
# simulation per core). The build in --build (build-smpi) is brought up to date once, before any run.
#
# Writes, for each strategy, <out>/<nodes>-<bandwidth>-n<size>-<strategy>/ (default out:
# bench/cholesky/results/traces): trace.json (as trace.json.xz when over 5 MB), gantt.png and summary.txt
# from herald-trace, run.txt and run.log (the program's output and errors), run.csv (run-smpi.sh's row:
# status, simulated seconds, wall seconds). Prints each run's simulated time next to the untraced one's in
# bench/cholesky/results/cholesky-smpi.csv when that file has the point.
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=trace-smpi.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

nodes=16 size=32768 bandwidth=10Gbps latency=1us strategies=nobcast,dynbcast tile=512 cores=16
kernel_times="" timeout=3600 jobs=1 out=$repo/bench/cholesky/results/traces build=$repo/build-smpi
source "$repo/bench/options.sh"
parse_options "nodes size bandwidth latency strategies tile cores kernel-times timeout jobs out build" "$@"
counts_list "$nodes" --nodes
counts_list "$size" --size
[[ $nodes != *,* && $size != *,* && $bandwidth != *,* ]] || die "--nodes, --size and --bandwidth take one value each"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive count, not '$jobs'"
[[ -n $kernel_times ]] || kernel_times=$repo/bench/cholesky/results/kernel-times-$tile.json
[[ -r $kernel_times ]] || die "--kernel-times: cannot read '$kernel_times'"
kernel_times=$(cd "$(dirname "$kernel_times")" && pwd)/$(basename "$kernel_times")

smpi_require
mkdir -p "$out"
out=$(cd "$out" && pwd)
# run-smpi.sh brings the build up to date too; doing it once here means the runs started together do not
# configure the same build directory at once (each one's own step then finds nothing to do).
smpi_build "$repo" "$build" herald-cholesky
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

untraced=$repo/bench/cholesky/results/cholesky-smpi.csv
python=$(smpi_python)

# trace_one STRATEGY: the traced run and its charts, into <out>/<point>-STRATEGY.
trace_one() {
  local strategy=$1 dir=$out/$nodes-$bandwidth-n$size-${1//:/_} run=$work/${1//:/_} status=0
  local name=p$nodes-$bandwidth-n$size-${1//:/_}
  rm -rf "$dir"
  mkdir -p "$dir" "$run"
  HERALD_TRACE=$run/trace "$repo/bench/cholesky/run-smpi.sh" --nodes "$nodes" --sizes "$size" \
    --bandwidths "$bandwidth" --latency "$latency" --strategies "$strategy" --tile "$tile" --cores "$cores" \
    --kernel-times "$kernel_times" --timeout "$timeout" --out "$run/out" --build "$build" \
    >"$run/run-smpi.out" 2>&1 || status=$?
  cp "$run/out/runs/$name.txt" "$dir/run.txt"
  cp "$run/out/runs/$name.log" "$dir/run.log"
  tail -1 "$run/out/cholesky-smpi.csv" | sed '1i nodes,bandwidth,n,tile,strategy,status,seconds,gflops,wall_s' \
    >"$dir/run.csv"
  grep " simulated) in " "$run/run-smpi.out" || true
  [[ $status == 0 ]] || {
    echo "$script: $strategy: run-smpi.sh failed (status $status); see $dir/run.log" >&2
    return 1
  }
  [[ -s $run/trace/trace.json ]] || {
    echo "$script: $strategy: the run wrote no $run/trace/trace.json" >&2
    return 1
  }
  mv "$run/trace/trace.json" "$dir/trace.json"
  "$python" "$repo/apps/herald-trace/herald-trace" "$dir" --title "$nodes nodes, $bandwidth, N $size, $strategy" \
    >/dev/null
  if (($(stat -c %s "$dir/trace.json") > 5 * 1024 * 1024)); then
    xz -T1 "$dir/trace.json"
  fi
  local traced plain
  traced=$(tail -1 "$dir/run.csv" | cut -d, -f7)
  plain=$( (grep "^$nodes,$bandwidth,$size,$tile,$strategy,ok," "$untraced" 2>/dev/null || true) | tail -1 | cut -d, -f7)
  if [[ -n $plain ]]; then
    "$python" -c "import sys; t, u = map(float, sys.argv[1:]); print('%s: traced %.6f s, untraced %.6f s simulated (%+.2f%%)' % ('$strategy', t, u, 100 * (t / u - 1)))" \
      "$traced" "$plain"
  fi
  echo "$script: $strategy: wrote $dir"
}

# started STRATEGY PID: waits until that run is past run-smpi.sh's build step (its program's output file
# exists) or over, so that the next run's build step does not configure the build directory beside it.
started() {
  local log=$work/${1//:/_}/out/runs/p$nodes-$bandwidth-n$size-${1//:/_}.log
  while [[ ! -e $log ]] && kill -0 "$2" 2>/dev/null; do sleep 1; done
}

failed=0
pids=()
IFS=, read -r -a strategy_list <<<"$strategies"
for strategy in "${strategy_list[@]}"; do
  if ((${#pids[@]} >= jobs)); then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
  trace_one "$strategy" &
  pids+=($!)
  started "$strategy" $!
done
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
exit "$failed"
