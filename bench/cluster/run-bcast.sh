#!/bin/sh
# Runs herald-bcast-bench (every herald algorithm against MPI_Bcast) on an emulated cluster, one rank per host
# over shaped TCP links, then plots.
#
#   run-bcast.sh <build dir> [out dir] [--hosts 8] [--rate 1gbit] [--delay 50us]
#                [-- herald-bcast-bench options; default --sizes 1K,64K,1M,8M --repetitions 5 --min-iterations 3
#                 --time-budget 0.2]
#
# Writes into <out> (default bench/cluster/results): cluster-bcast-p<hosts>.txt (the printed table, with how
# and when it was measured), .csv, .json, the plots bcast_latency_p<hosts>.png and bcast_ratio_p<hosts>.png,
# and cluster-bcast-tables.md. The cluster is taken down on exit, also on failure. --delay defaults to 50us
# where the kernel has netem, else 0us. At 1 Gbit/s the defaults take about 2 minutes on a
# 2-core machine.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

build="" out=""
hosts=8 rate=1gbit delay=""
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -h | --help) show_usage; exit 0 ;;
    --hosts | --rate | --delay)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in --hosts) hosts=$2 ;; --rate) rate=$2 ;; --delay) delay=$2 ;; esac
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
[ -n "$out" ] || out="$here/results"
# Large messages over 1 Gbit/s links take tenths of seconds each: few sizes, few iterations.
[ $# -gt 0 ] || set -- --sizes 1K,64K,1M,8M --repetitions 5 --min-iterations 3 --time-budget 0.2
bench=$(bench_app "$build" herald-bcast-bench)
python=$(plot_python)
[ -n "$delay" ] || delay=$(default_delay)
mkdir -p "$out"
name="cluster-bcast-p$hosts"

started=$(date +%s)
start_cluster "$hosts" "$rate" "$delay"
{
  echo "# herald-bcast-bench on an emulated cluster"
  echo
  describe_run
  echo "Command: bench/cluster/run-bcast.sh --hosts $hosts --rate $rate --delay $delay -- $*"
  echo
} >"$out/$name.txt"
run_logged "$out/$name.txt" "$here/mpirun.sh" -- "$bench" --csv "$out/$name.csv" --json "$out/$name.json" "$@" ||
  die "herald-bcast-bench failed (status $?)"
report_total "$out/$name.txt" "$started"
"$python" "$here/../plot_bcast.py" "$out/$name.csv" -o "$out" --markdown "$out/cluster-bcast-tables.md"
echo "wrote $out/$name.txt, .csv, .json, $out/bcast_latency_p$hosts.png, $out/bcast_ratio_p$hosts.png," \
  "$out/cluster-bcast-tables.md"
