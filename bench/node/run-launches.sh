#!/usr/bin/env bash
# node_shared's launches at 2 ranks: herald-bcast-bench --algorithms node_shared --sizes 1M --repetitions 7,
# launch after launch, --launches times each bound to cores (Open MPI's default, a rank per core), unbound
# (--bind-to none), and bound with the address space's randomisation off (setarch -R: the ring lands at the
# same addresses every launch). Then the same ring without MPI or herald (bench/node/shm_ring.cpp --launch: two
# processes, 16 slots of 64 KiB, 2,000 messages of 1 MiB), bound to the two cores and unbound, the five
# modes in turn for each launch: where
# its launches are slow as often, the cause lies in the machine. Prints one line per launch (mode, launch,
# native's, node_shared's and the bare ring's medians in us) and per mode how many launches took over
# --slow us.
#
#   bench/node/run-launches.sh [--launches 20] [--slow 150] [--build DIR] [--out DIR]
#
# Writes <out>/node_shared_launches_<mpi>_p2-<commit>.csv (default out: bench/node/results). Open MPI only
# (--bind-to).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
launches=20 slow=150 build=$repo/build out=$repo/bench/node/results
die() { echo "run-launches.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "launches slow build out" "$@"
[[ $launches =~ ^[1-9][0-9]*$ ]] || die "--launches takes a positive count, not '$launches'"

cmake --build "$build" --target herald-bcast-bench -j2 >/dev/null
ring=$(mktemp -d)/shm_ring
trap 'rm -rf "$(dirname "$ring")"' EXIT
g++ -O2 -std=c++20 -o "$ring" "$repo/bench/node/shm_ring.cpp"
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
bench=$build/apps/herald-bcast-bench/herald-bcast-bench
mkdir -p "$out"
file=$out/node_shared_launches_${mpi}_p2-$(git -C "$repo" rev-parse --short HEAD).csv
root=()
[[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
{
  echo "# bench/node/run-launches.sh --launches $launches (commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
  echo "mode,launch,native_median_us,node_shared_median_us,ring_median_us"
  # Launch i of every mode, then launch i + 1: a slow spell of the machine falls on all modes alike.
  for ((i = 1; i <= launches; ++i)); do
    for mode in bound unbound bound_no_aslr ring_bound ring_unbound; do
      case $mode in
        bound) launch=("$mpiexec" "${root[@]}" --bind-to core -n 2) ;;
        unbound) launch=("$mpiexec" "${root[@]}" --bind-to none -n 2) ;;
        bound_no_aslr) launch=(setarch -R "$mpiexec" "${root[@]}" --bind-to core -n 2) ;;
        ring_bound) echo "$mode,$i,,,$(timeout 300 "$ring" --launch)"; continue ;;
        ring_unbound) echo "$mode,$i,,,$(timeout 300 "$ring" --launch --unbound)"; continue ;;
      esac
      timeout 300 "${launch[@]}" "$bench" --algorithms node_shared --sizes 1M --repetitions 7 2>/dev/null |
        awk -v mode="$mode" -v i="$i" '$1 == 1048576 && $2 == "native" {n = $4} $1 == 1048576 && $2 == "node_shared" {s = $4}
          END {print mode "," i "," n "," s ","}'
    done
  done
} | tee "$file"
/usr/bin/python3 - "$file" "$slow" <<'PY' | tee -a "$file"
import csv, statistics, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
for mode in ("bound", "unbound", "bound_no_aslr", "ring_bound", "ring_unbound"):
    column = "ring_median_us" if mode.startswith("ring") else "node_shared_median_us"
    s = [float(r[column]) for r in rows if r["mode"] == mode and r[column]]
    n = [float(r["native_median_us"]) for r in rows if r["mode"] == mode and r["native_median_us"]]
    slow = [x for x in s if x > float(sys.argv[2])]
    native = f", native median {statistics.median(n):.1f} us" if n else ""
    print(f"# {mode}: {len(slow)} of {len(s)} launches over {sys.argv[2]} us ({', '.join(f'{x:.0f}' for x in slow) or 'none'});"
          f" {column.removesuffix('_median_us')} median {statistics.median(s):.1f} us{native}")
PY
