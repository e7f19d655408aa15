#!/usr/bin/env bash
# HERALD_AUTO_LEARN under a plain MPI program: bench/tune/learn_loop.c (every iteration 3 ints, then a payload,
# from rank 0; the slowest rank's time for the loop, and for the iterations after the first 200) run plainly
# (native: the installed MPI_Bcast), under the drop-in with auto as it comes (no tuning file), under the
# drop-in with HERALD_AUTO_LEARN=1, and under the drop-in with each --algorithms entry forced
# (HERALD_ALGORITHM), interleaved: --runs rounds of them all in turn, per rank count. Prints each run's
# times, then per rank count and mode the medians, their ratios to native's and whether the min-max ranges
# overlap, and learn's median after 200 calls against the fastest of native and the forced algorithms there;
# learn runs with HERALD_VERBOSE=1, and each of its runs lists what it kept per size (the `kept` column).
#
#   bench/tune/run-learn.sh [--ranks "2 3"] [--runs 5] [--iterations 2000] [--payload 262144]
#       [--algorithms "node_shared binomial"] [--build DIR] [--out DIR]
#
# Writes <out>/learn_<mpi>.txt (default out: bench/tune/results).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ranks="2 3" runs=5 iterations=2000 payload=262144 algorithms="node_shared binomial" build=$repo/build
out=$repo/bench/tune/results
die() { echo "run-learn.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "ranks runs iterations payload algorithms build out" "$@"

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
    "--algorithms \"$algorithms\"" \
    "(commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1);" \
    "$(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
  echo "ranks,run,mode,seconds,after_200_seconds,kept"
  for p in $ranks; do
    launch_flags "$p"
    for ((run = 1; run <= runs; ++run)); do
      for mode in native auto learn $algorithms; do
        case $mode in
          native) env=() ;;
          auto) env=(LD_PRELOAD="$pmpi") ;;
          learn) env=(LD_PRELOAD="$pmpi" HERALD_AUTO_LEARN=1 HERALD_VERBOSE=1) ;;
          *) env=(LD_PRELOAD="$pmpi" HERALD_ALGORITHM="$mode") ;;
        esac
        seconds=$(env "${env[@]}" timeout 600 "$mpiexec" "${flags[@]}" \
          "$work/learn_loop" "$iterations" "$payload" 2>"$work/stderr" | tail -1)
        # What learning kept per size, with what its trial measured ("herald learned: 2 ranks, N bytes: a T1 us,
        # b T2 us; keeps X"), as N:X[a T1 us/b T2 us], sizes apart by spaces.
        kept=$(sed -n 's/^herald learned: .* \([0-9]*\) bytes: *\(.*\); keeps \(.*\)$/\1:\3[\2]/p' "$work/stderr" |
          sed 's/, /\//g' | paste -sd' ')
        echo "$p,$run,$mode,${seconds/ /,},$kept"
      done
    done
  done
} | tee "$report.csv.tmp"
python3 - "$report.csv.tmp" <<'PY' | tee -a "$report.csv.tmp"
import csv, statistics, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
modes = list(dict.fromkeys(r["mode"] for r in rows))
print("# per rank count and mode: median seconds (min-max) for the whole loop and after each size's first 200")
print("# calls; ratios of medians to native's, whether the min-max ranges overlap native's; then learn after 200")
print("# calls against the fastest of native and the forced algorithms there")
for p in sorted({r["ranks"] for r in rows}):
    median = {}
    for column in ("seconds", "after_200_seconds"):
        by = {m: sorted(float(r[column]) for r in rows if r["ranks"] == p and r["mode"] == m and r[column]) for m in modes}
        n = by["native"]
        for m, t in by.items():
            if not t:
                continue
            median[(m, column)] = statistics.median(t)
            overlap = not (t[-1] < n[0] or t[0] > n[-1])
            print(f"# {p} ranks {m}, {'whole loop' if column == 'seconds' else 'after 200'}: {statistics.median(t):.4f} ({t[0]:.4f}-{t[-1]:.4f}),"
                  f" {statistics.median(t) / statistics.median(n):.3f}x native" + ("" if m == "native" else f", ranges {'overlap' if overlap else 'apart'}"))
    fastest = min((m for m in modes if m not in ("auto", "learn") and (m, "after_200_seconds") in median),
                  key=lambda m: median[(m, "after_200_seconds")])
    for r in rows:
        if r["ranks"] == p and r["mode"] == "learn":
            print(f"# {p} ranks learn, run {r['run']}: after 200 {float(r['after_200_seconds']):.4f}, kept {r.get('kept') or '?'}")
    if ("learn", "after_200_seconds") in median:
        print(f"# {p} ranks: learn after 200 calls {median[('learn', 'after_200_seconds')] / median[(fastest, 'after_200_seconds')]:.3f}x"
              f" the fastest there ({fastest})")
PY
mv "$report.csv.tmp" "$report"
