#!/usr/bin/env bash
# One point of bench/smpi/run-bcast.sh, traced: herald-bcast-bench under SimGrid SMPI with HERALD_TRACE set
# (smpirun runs every simulated rank inside its own process, so they all see the variable), one warm-up and
# --iterations timed broadcasts of one herald algorithm, then apps/herald-trace's space-time diagrams and
# bench/smpi/trace_bcast_analysis.py's figures (do the segments overlap?).
#
#   bench/smpi/trace-bcast.sh [--hosts 16] [--size 16M] [--bandwidth 10Gbps] [--latency 1us]
#       [--algorithm chain] [--iterations 1] [--timeout 1800] [--out DIR] [--build DIR]
#
# The settings are run-bcast.sh's for the flat platform (every host on its own full-duplex link into a
# non-blocking switch), with no SMPI built-in algorithm. herald-bcast-bench also times MPI_Bcast (native),
# which the trace does not show: only herald's broadcasts are recorded.
#
# Writes into <out> (default bench/smpi/results/traces/<algorithm>-<hosts>x<size>-<bandwidth>): trace.json
# (as trace.json.xz when over 5 MB), spacetime-*.png and summary.txt from herald-trace --all-bcasts,
# analysis.txt, run.txt and run.log (the benchmark's table and SMPI's log), and README.md with the commands.
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=trace-bcast.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

hosts=16 size=16M bandwidth=10Gbps latency=1us algorithm=chain iterations=1 timeout=1800 out="" build=$repo/build-smpi
source "$repo/bench/options.sh"
parse_options "hosts size bandwidth latency algorithm iterations timeout out build" "$@"
counts_list "$hosts" --hosts
counts_list "$iterations" --iterations
[[ $size =~ ^[0-9]+[KMG]?$ ]] || die "--size takes one byte count like 16M, not '$size'"
[[ $algorithm =~ ^[A-Za-z0-9_]+$ ]] || die "--algorithm takes one herald algorithm, not '$algorithm'"
[[ -n $out ]] || out=$repo/bench/smpi/results/traces/$algorithm-${hosts}x$size-$bandwidth
smpi_require
python=$(smpi_python)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command=(bench/smpi/run-bcast.sh --hosts "$hosts" --sizes "$size" --topologies flat --bandwidths "$bandwidth"
  --latency "$latency" --algorithms "$algorithm" --smpi-algorithms none --iterations "$iterations"
  --timeout "$timeout" --build "$build")
started=$SECONDS
status=0
(cd "$repo" && HERALD_TRACE=$work/trace "${command[@]}" --out "$work/out") >"$work/run-bcast.out" 2>&1 || status=$?
wall=$((SECONDS - started))
[[ $status == 0 ]] || {
  tail -20 "$work/run-bcast.out" >&2
  die "run-bcast.sh failed (status $status)"
}
[[ -s $work/trace/trace.json ]] ||
  die "herald-bcast-bench wrote no trace into $work/trace: it does not open one from HERALD_TRACE (a call to herald::trace::start_from_environment(MPI_COMM_WORLD) after its MPI_Init would)"

rm -rf "$out"
mkdir -p "$out"
cp "$work"/out/runs/*-herald.txt "$out/run.txt"
cp "$work"/out/runs/*-herald.log "$out/run.log"
cp "$work/trace/trace.json" "$out/trace.json"
"$python" "$repo/apps/herald-trace/herald-trace" "$out" --all-bcasts --no-gantt \
  --title "$algorithm, $hosts hosts, $size, $bandwidth" >/dev/null
"$python" "$repo/bench/smpi/trace_bcast_analysis.py" "$out" --algorithm "$algorithm" | tee "$out/analysis.txt"
if (($(stat -c %s "$out/trace.json") > 5 * 1024 * 1024)); then
  xz -T1 "$out/trace.json"
fi
{
  echo "# $algorithm broadcast of $size on $hosts simulated hosts, $bandwidth, traced"
  echo
  echo "SimGrid $(smpi_version) SMPI, run-bcast.sh's flat platform ($latency links); $(date -u '+%Y-%m-%d')."
  echo "The simulation took $wall s of wall time."
  echo
  echo "Made by:"
  echo
  echo '```sh'
  echo "bench/smpi/trace-bcast.sh --hosts $hosts --size $size --bandwidth $bandwidth --latency $latency \\"
  echo "  --algorithm $algorithm --iterations $iterations"
  echo '```'
  echo
  echo "which runs"
  echo
  echo '```sh'
  echo "HERALD_TRACE=<tmp>/trace ${command[*]} --out <tmp>/out"
  echo "/usr/bin/python3 apps/herald-trace/herald-trace <this directory> --all-bcasts --no-gantt"
  echo "/usr/bin/python3 bench/smpi/trace_bcast_analysis.py <this directory> --algorithm $algorithm"
  echo '```'
  echo
  echo "Files: trace.json(.xz), spacetime-*.png, summary.txt (herald-trace), analysis.txt (the figures below),"
  echo "run.txt and run.log (the benchmark's table and SMPI's log)."
  echo
  echo '```'
  cat "$out/analysis.txt"
  echo '```'
} >"$out/README.md"
echo "$script: wrote $out"
