#!/usr/bin/env bash
# Runs herald-stencil with and without herald's balancer, interleaved in one go (off, on, off, on...),
# and prints each run's time, the median/min/max of both, and the decisions the balancer took.
#
#   bench/balance/run.sh [build-dir]        (default: build)
#
# Two scenarios (SCENARIO=real|emulated|both, default both):
#   real      the machine as it is: RANKS processes x 1 thread on all its cores. With as many processes as
#             cores, every process already has the minimum of one thread: nothing can move, and the
#             figure is the balancer's overhead.
#   emulated  a pretended node (HERALD_BALANCE_CORES=EMU_CORES) of RANKS x EMU_THREADS threads time-sharing
#             the real cores. A process with more threads gets a larger share of the CPUs, which stands in
#             for more cores; binding is off (pretended cores are not real ones) and loads are read on the
#             CPU clock. It shows the mechanism, not the gain of a real node.
# Both modes run with KMP_BLOCKTIME=0 and Open MPI's mpi_yield_when_idle=1, so threads and processes that
# wait give their core away rather than spin on it.
# Environment: REPS (5), RANKS (2), EMU_THREADS (2), EMU_CORES (4), PHASES (40), SIZE (128), SWEEPS (2),
# FACTOR (3), FLIP_AT (21), MPIEXEC (mpiexec), OUT (results/balance). Raw outputs go to OUT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../options.sh"
check_positionals 1 "$@"

build=${1:-build}
app=$build/apps/herald-stencil/herald-stencil
[[ -x $app ]] || { echo "run.sh: $app not found; build the herald-stencil target first" >&2; exit 2; }

scenario=${SCENARIO:-both}
reps=${REPS:-5}
ranks=${RANKS:-2}
emu_threads=${EMU_THREADS:-2}
emu_cores=${EMU_CORES:-4}
out=${OUT:-results/balance}
mpiexec=${MPIEXEC:-mpiexec}
app_args=(--phases "${PHASES:-40}" --size "${SIZE:-128}" --sweeps "${SWEEPS:-2}" --factor "${FACTOR:-3}"
          --flip-at "${FLIP_AT:-21}")
case $scenario in real|emulated|both) ;; *) echo "run.sh: SCENARIO must be real, emulated or both" >&2; exit 2;; esac
for n in "$reps" "$ranks" "$emu_threads" "$emu_cores"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: REPS, RANKS, EMU_THREADS, EMU_CORES must be positive integers" >&2; exit 2; }
done
mkdir -p "$out"

launcher=("$mpiexec" -n "$ranks")
if "$mpiexec" --version 2>&1 | grep -qE 'Open MPI|OpenRTE'; then
  launcher+=(--oversubscribe --bind-to none)
  [[ $(id -u) -eq 0 ]] && launcher+=(--allow-run-as-root)
fi

# median min max of numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {m = NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.4f %.4f %.4f\n", m, v[1], v[NR]}'; }

# run <scenario> <off|on> <rep>: prints total_seconds, keeps the raw output
run() {
  local name=$1 mode=$2 rep=$3 file="$out/$1-$2-$3.txt"
  local -a env=(KMP_BLOCKTIME=0 OMPI_MCA_mpi_yield_when_idle=1)
  if [[ $name == real ]]; then env+=(OMP_NUM_THREADS=1); else env+=(OMP_NUM_THREADS=$emu_threads); fi
  if [[ $mode == off ]]; then
    env+=(OMP_TOOL=disabled)
  else
    env+=(HERALD_BALANCE_LOG=1)
    [[ $name == emulated ]] && env+=(HERALD_BALANCE_CORES=$emu_cores HERALD_BALANCE_CLOCK=cpu HERALD_BALANCE_BIND=0)
  fi
  env "${env[@]}" "${launcher[@]}" "$app" "${app_args[@]}" >"$file" 2>&1
  sed -n 's/^total_seconds=\([0-9.]*\).*/\1/p' "$file"
}

echo "# herald balance benchmark: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores," \
     "$("$mpiexec" --version 2>&1 | head -1)"
echo "# herald-stencil ${app_args[*]}, $ranks ranks, $reps repetitions after a warm-up, interleaved off/on"
echo "scenario,mode,rep,total_seconds"
scenarios=(real emulated)
[[ $scenario != both ]] && scenarios=("$scenario")
for name in "${scenarios[@]}"; do
  run "$name" off 0 >/dev/null  # warm-up
  run "$name" on 0 >/dev/null
  : >"$out/$name-off.csv"; : >"$out/$name-on.csv"
  for rep in $(seq 1 "$reps"); do
    for mode in off on; do
      t=$(run "$name" "$mode" "$rep")
      echo "$name,$mode,$rep,$t"
      echo "$t" >>"$out/$name-$mode.csv"
    done
  done
done

echo
for name in "${scenarios[@]}"; do
  read -r off_med off_min off_max < <(stats <"$out/$name-off.csv")
  read -r on_med on_min on_max < <(stats <"$out/$name-on.csv")
  verdict=$(awk -v a="$off_med" -v b="$on_med" -v lo1="$off_min" -v hi1="$off_max" -v lo2="$on_min" -v hi2="$on_max" \
    'BEGIN { gain = 1 - b / a; spread = (hi1 - lo1 > hi2 - lo2 ? hi1 - lo1 : hi2 - lo2) / a;
             if (spread > (gain < 0 ? -gain : gain)) print "not distinguishable (spread " int(spread*100) "% of the plain median)";
             else printf "gain %.1f%%\n", 100 * gain }')
  faster=$(paste -d' ' "$out/$name-off.csv" "$out/$name-on.csv" | awk '$2 < $1 {n++} END {print n+0}')
  echo "$name: without balancer median ${off_med}s [${off_min}, ${off_max}]; with balancer median ${on_med}s [${on_min}, ${on_max}]: $verdict"
  echo "  with balancer faster in $faster of $reps interleaved pairs"
  echo "  decisions in $out/$name-on-1.txt:"
  grep '^herald balance:' "$out/$name-on-1.txt" | grep -E 'node of|acted' | sed 's/^/    /' || true
  kept=$(grep -c 'kept' "$out/$name-on-1.txt" || true)
  echo "    ($kept more decisions kept the thread counts)"
done
