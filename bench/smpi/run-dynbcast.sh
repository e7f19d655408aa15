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
die() {
  echo "run-dynbcast.sh: $*" >&2
  exit 2
}

ranks=8 sizes=1K,8M bandwidth=10Gbps latency=1us overhead=0 poll=1e-7 cpu=0 reps=3
out=$repo/bench/dyn/results build=$repo/build-smpi
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    --cpu) cpu=1; shift ;;
    --ranks | --sizes | --bandwidth | --latency | --overhead | --poll | --reps | --out | --build)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    *) die "unknown option '$1' (options for the benchmark go after --)" ;;
  esac
done
command -v smpirun >/dev/null && command -v smpicxx >/dev/null ||
  die "SimGrid's smpirun and smpicxx are missing: run HERALD_SIMGRID=1 scripts/setup.sh"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=smpicc -DCMAKE_CXX_COMPILER=smpicxx \
  -DMPI_C_COMPILER=smpicc -DMPI_CXX_COMPILER=smpicxx >/dev/null
cmake --build "$build" -j2 --target herald-dynbcast-bench >/dev/null
bench=$build/apps/herald-dynbcast-bench/herald-dynbcast-bench
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# SMPI's settings, each for a reason:
#  - the link latency and bandwidth as given, not scaled by SMPI's default correction factors (which fit one
#    particular TCP cluster);
#  - messages up to 64 KiB travel eagerly, as in Open MPI over TCP: the sender does not wait for the
#    receive, and the data moves whether or not the receive is posted yet;
#  - a test or probe costs --poll, always the same (SMPI would otherwise charge 100 us, growing, to stop a
#    polling loop from stalling the simulation).
options=(
  --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
  --cfg=smpi/async-small-thresh:65536 --cfg=smpi/send-is-detached-thresh:65536
  --cfg=smpi/test:"$poll" --cfg=smpi/iprobe:"$poll" --cfg=smpi/grow-injected-times:no
  --cfg=smpi/os:0:"$overhead":0 --cfg=smpi/ois:0:"$overhead":0 --cfg=smpi/or:0:"$overhead":0
  --cfg=smpi/coll-selector:ompi
)
if [[ $cpu == 1 ]]; then
  # One second of this machine's time is one second of the simulated hosts' (speed 1 Gf both), and even the
  # shortest stretch between MPI calls counts.
  options+=(--cfg=smpi/host-speed:1Gf --cfg=smpi/cpu-threshold:-1)
else
  options+=(--cfg=smpi/simulate-computation:no)
fi

csvs=()
IFS=, read -r -a counts <<<"$ranks"
for p in "${counts[@]}"; do
  [[ $p =~ ^[0-9]+$ && $p -ge 2 ]] || die "--ranks takes counts of at least 2, not '$p'"
  cat >"$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="host-" suffix="" radical="0-$((p - 1))" speed="1Gf"
           bw="$bandwidth" lat="$latency" sharing_policy="SPLITDUPLEX" bb_bw="1000Tbps" bb_lat="0us"/>
</platform>
XML
  seq -f 'host-%g' 0 $((p - 1)) >"$work/hosts"
  name=smpi-p$p
  {
    echo "# herald-dynbcast-bench on a simulated cluster (SimGrid SMPI)"
    echo
    echo "$p hosts, one rank each; links $bandwidth, $latency each way (two per message), full duplex," \
      "non-blocking switch; MPI overhead $overhead s per send and receive; a test costs $poll s;" \
      "$([[ $cpu == 1 ]] && echo "herald's own CPU time measured and added" || echo "communication only")."
    echo "SimGrid $(smpirun -version 2>&1 | grep -o -m1 '[0-9][0-9.]*' || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    echo "Command: bench/smpi/run-dynbcast.sh --ranks $p --sizes $sizes --bandwidth $bandwidth --latency $latency" \
      "--overhead $overhead --poll $poll$([[ $cpu == 1 ]] && echo ' --cpu') --reps $reps${*:+ -- $*}"
    echo
  } >"$out/$name.md"
  # SMPI logs its configuration on stderr; the table is on stdout.
  smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" "${options[@]}" \
    "$bench" --clock root --sizes "$sizes" --reps "$reps" --warmup 1 --iterations 20 --large-iterations 2 \
    --csv "$out/$name.csv" "$@" 2>"$work/log" | tee -a "$out/$name.md" ||
    { cat "$work/log" >&2; die "the simulation of $p ranks failed"; }
  csvs+=("$out/$name.csv")
done
python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3  # Debian's python3-matplotlib lives there
"$python" "$repo/bench/dyn/plot_dynbcast.py" "${csvs[@]}" -o "$out/smpi-dynbcast.png" \
  --summary "$out/smpi-summary.csv" --setting "simulated cluster, $bandwidth links"
echo "wrote ${csvs[*]}, the .md beside each, $out/smpi-dynbcast.png and $out/smpi-summary.csv"
