#!/usr/bin/env bash
# Runs herald-dynbcast-bench on a simulated cluster: SimGrid's SMPI runs herald's real code, one rank per
# simulated host, over a modelled network (every host on its own full-duplex link into a non-blocking
# switch), so figures for 8 to hundreds of ranks are deterministic on a 2-core machine.
#
#   bench/smpi/run-dynbcast.sh [--ranks 8,16,32] [--sizes 1K,8M] [--bandwidth 10Gbps] [--latency 1us]
#       [--overhead 0] [--poll 1e-7] [--cpu] [--reps 3] [--out DIR] [--build DIR] [-- bench options]
#
# --latency is one link's, so a message crosses two (host to switch, switch to host). --overhead is the
# time an MPI send and a receive each cost their caller (seconds; LogP's o). --poll is the simulated time
# one MPI_Test or MPI_Iprobe takes. Without --cpu only the communication is simulated; with --cpu the time
# the program spends between MPI calls is measured on this machine and added. MPI_Bcast is SMPI's copy of
# Open MPI's algorithms and decision rules (smpi/coll-selector:ompi).
#
# Needs SimGrid (Debian's libsimgrid-dev: HERALD_SIMGRID=1 scripts/setup.sh). Builds herald with smpicxx in
# --build (default build-smpi) and writes <out>/smpi-p<ranks>.{csv,md}, smpi-dynbcast.png and
# smpi-summary.csv; <out> defaults to bench/dyn/results.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-dynbcast.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

source "$repo/bench/options.sh"
ranks=8 sizes=1K,8M bandwidth=10Gbps latency=1us overhead=0 poll=1e-7 cpu=0 reps=3
out=$repo/bench/dyn/results build=$repo/build-smpi
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    -h | --help) show_usage; exit 0 ;;
    --cpu) cpu=1; shift ;;
    --ranks | --sizes | --bandwidth | --latency | --overhead | --poll | --reps | --out | --build)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    *) die "unknown option '$1' (options for the benchmark go after --)" ;;
  esac
done
smpi_require
smpi_build "$repo" "$build" herald-dynbcast-bench
bench=$build/apps/herald-dynbcast-bench/herald-dynbcast-bench
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# SMPI's settings (common.sh says why each), and MPI_Bcast as SMPI's copy of Open MPI's algorithms and
# decision rules.
smpi_settings "$overhead" "$poll" "$cpu"
options=("${smpi_options[@]}" --cfg=smpi/coll-selector:ompi)
smpi_cost_model "$latency" "$bandwidth" "$overhead"

csvs=()
IFS=, read -r -a counts <<<"$ranks"
for p in "${counts[@]}"; do
  [[ $p =~ ^[0-9]+$ && $p -ge 2 ]] || die "--ranks takes counts of at least 2, not '$p'"
  smpi_flat_platform "$work/platform.xml" "$p" "$bandwidth" "$latency"
  smpi_hostfile "$work/hosts" "$p"
  name=smpi-p$p
  {
    echo "# herald-dynbcast-bench on a simulated cluster (SimGrid SMPI)"
    echo
    echo "$p hosts, one rank each; links $bandwidth, $latency each way (two per message), full duplex," \
      "non-blocking switch; MPI overhead $overhead s per send and receive; a test costs $poll s;" \
      "$([[ $cpu == 1 ]] && echo "herald's own CPU time measured and added" || echo "communication only")."
    echo "SimGrid $(smpi_version), $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    echo "Command: bench/smpi/run-dynbcast.sh --ranks $p --sizes $sizes --bandwidth $bandwidth --latency $latency" \
      "--overhead $overhead --poll $poll$([[ $cpu == 1 ]] && echo ' --cpu') --reps $reps${*:+ -- $*}"
    echo
  } >"$out/$name.md"
  # SMPI logs its configuration on stderr; the table is on stdout. dyn prices its tree shapes with the
  # cost model of this network (smpi_cost_model), as a user describes theirs.
  env "${smpi_model[@]}" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" "${options[@]}" \
    "$bench" --clock root --sizes "$sizes" --reps "$reps" --warmup 1 --iterations 20 --large-iterations 2 \
    --csv "$out/$name.csv" "$@" 2>"$work/log" | tee -a "$out/$name.md" ||
    { cat "$work/log" >&2; die "the simulation of $p ranks failed"; }
  if smpi_deadlocked "$work/log"; then
    grep -v '\[xbt_cfg/INFO\]' "$work/log" >&2
    die "the simulation of $p ranks deadlocked"
  fi
  csvs+=("$out/$name.csv")
done
"$(smpi_python)" "$repo/bench/dyn/plot_dynbcast.py" "${csvs[@]}" -o "$out/smpi-dynbcast.png" \
  --summary "$out/smpi-summary.csv" --setting "simulated cluster, $bandwidth links"
echo "wrote ${csvs[*]}, the .md beside each, $out/smpi-dynbcast.png and $out/smpi-summary.csv"
