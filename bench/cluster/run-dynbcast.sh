#!/bin/sh
# Runs herald-dynbcast-bench on an emulated cluster (one rank per host, TCP over shaped links), then plots.
#
#   run-dynbcast.sh <build dir> [out dir] [--hosts 8] [--rate 1gbit] [--delay 50us] [--reps 9]
#                   [--iterations 100] [--large-iterations 4] [-- more herald-dynbcast-bench options]
#
# Writes <out>/cluster-p<hosts>.csv (raw), .md (the printed table, with how and when it was measured),
# cluster-dynbcast.png and cluster-summary.csv; <out> defaults to bench/dyn/results. The cluster is taken
# down on exit, also on failure. --delay defaults to 50us where the kernel has netem, else 0us. HERALD_*
# variables in the environment reach every rank (for example HERALD_DYN_ALGORITHM=binomial).
# At 1 Gbit/s the defaults take about 4 minutes on a 2-core machine.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

build="" out=""
hosts=8 rate=1gbit delay="" reps=9 iterations=100 large=4
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -h | --help) show_usage; exit 0 ;;
    --hosts | --rate | --delay | --reps | --iterations | --large-iterations)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --hosts) hosts=$2 ;; --rate) rate=$2 ;; --delay) delay=$2 ;; --reps) reps=$2 ;;
        --iterations) iterations=$2 ;; --large-iterations) large=$2 ;;
      esac
      shift 2
      ;;
    -*) refuse "unknown option '$1' (see --help; options for the benchmark go after --)" ;;
    *)
      if [ -z "$build" ]; then build=$1; elif [ -z "$out" ]; then out=$1; else refuse "one argument too many: '$1' (see --help)"; fi
      shift
      ;;
  esac
done
[ -n "$build" ] || refuse "no build directory (see --help)"
[ -n "$out" ] || out="$(cd "$here/../dyn" && pwd)/results"
bench=$(bench_app "$build" herald-dynbcast-bench)
python=$(plot_python)
[ -n "$delay" ] || delay=$(default_delay)
mkdir -p "$out"
name="cluster-p$hosts"

started=$(date +%s)
start_cluster "$hosts" "$rate" "$delay"
{
  echo "# herald-dynbcast-bench on an emulated cluster"
  echo
  describe_run
  echo "Command: bench/cluster/run-dynbcast.sh --hosts $hosts --rate $rate --delay $delay --reps $reps" \
    "--iterations $iterations --large-iterations $large${*:+ -- $*}"
  echo
} >"$out/$name.md"
run_logged "$out/$name.md" "$here/mpirun.sh" -- "$bench" --sizes 1K,8M --reps "$reps" \
  --iterations "$iterations" --large-iterations "$large" --csv "$out/$name.csv" "$@" ||
  die "herald-dynbcast-bench failed (status $?)"
report_total "$out/$name.md" "$started"
"$python" "$here/../dyn/plot_dynbcast.py" "$out/$name.csv" -o "$out/cluster-dynbcast.png" \
  --summary "$out/cluster-summary.csv" --setting "emulated cluster, $rate links"
echo "wrote $out/$name.csv, $out/$name.md, $out/cluster-dynbcast.png, $out/cluster-summary.csv"
