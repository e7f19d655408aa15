#!/usr/bin/env bash
# HERALD_AUTO_LEARN under a plain MPI program: bench/tune/learn_loop.c (every iteration 3 ints, then a payload,
# from rank 0; the slowest rank's time for the loop) run plainly (native: the installed MPI_Bcast), under the
# drop-in with auto as it comes (no tuning file), and under the drop-in with HERALD_AUTO_LEARN=1, interleaved:
# --runs rounds of the three in turn, per rank count. Prints each run's time, then per rank count the median of
# each and its ratio to native, and whether the min-max ranges overlap.
#
#   bench/tune/run-learn.sh [--ranks "2 3"] [--runs 5] [--iterations 2000] [--payload 262144] [--build DIR]
#       [--out DIR]
#
# Writes <out>/learn_<mpi>.txt (default out: bench/tune/results).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ranks="2 3" runs=5 iterations=2000 payload=262144 build=$repo/build out=$repo/bench/tune/results
die() { echo "run-learn.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "ranks runs iterations payload build out" "$@"

cmake --build "$build" --target herald_pmpi -j2 >/dev/null
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
pmpi=$(ls "$build"/src/pmpi/libherald_pmpi.so)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/learn_loop" "$repo/bench/tune/learn_loop.c"
mkdir -p "$out"
report=$out/learn_$mpi.txt
{
  echo "# bench/tune/run-learn.sh --ranks \"$ranks\" --runs $runs --iterations $iterations --payload $payload" \
    "(commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1);" \
    "$(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
  echo "ranks,run,mode,seconds"
  for p in $ranks; do
    launch_flags "$p"
    for ((run = 1; run <= runs; ++run)); do
      for mode in native auto learn; do
        case $mode in
          native) env=() ;;
          auto) env=(LD_PRELOAD="$pmpi") ;;
          learn) env=(LD_PRELOAD="$pmpi" HERALD_AUTO_LEARN=1) ;;
        esac
        seconds=$(env "${env[@]}" timeout 600 "$mpiexec" "${flags[@]}" \
          "$work/learn_loop" "$iterations" "$payload" 2>/dev/null | tail -1)
        echo "$p,$run,$mode,$seconds"
      done
    done
  done
} | tee "$report.csv.tmp"
python3 - "$report.csv.tmp" <<'PY' | tee -a "$report.csv.tmp"
import csv, statistics, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
print("# per rank count: median seconds (min-max), ratio of medians to native, ranges overlapping native's?")
for p in sorted({r["ranks"] for r in rows}):
    by = {m: sorted(float(r["seconds"]) for r in rows if r["ranks"] == p and r["mode"] == m) for m in ("native", "auto", "learn")}
    n = by["native"]
    for m, t in by.items():
        overlap = not (t[-1] < n[0] or t[0] > n[-1])
        print(f"# {p} ranks {m}: {statistics.median(t):.4f} ({t[0]:.4f}-{t[-1]:.4f}), {statistics.median(t) / statistics.median(n):.3f}x native"
              + ("" if m == "native" else f", ranges {'overlap' if overlap else 'apart'}"))
PY
mv "$report.csv.tmp" "$report"
