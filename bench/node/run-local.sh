#!/usr/bin/env bash
# The node path on this machine: node_shared (its stage within the node through node memory) against the
# installed MPI_Bcast, interleaved in one launch (herald-bcast-bench: median of the repetitions, ratio to
# MPI_Bcast), 64 KiB to 64 MiB, blocking calls, every rank on one node. Also auto, to show what it runs.
# Writes <out>/node_local_<mpi>_p<P>.{txt,csv} and prints the ratios and their geometric mean. A second
# launch times one broadcast per sample (51 samples, each after a barrier), so that no call overlaps the
# next: <out>/node_local_single_<mpi>_p<P>.{txt,csv}; a third, nonblocking calls (ibcast + wait against
# MPI_Ibcast + MPI_Wait): <out>/node_local_nonblocking_<mpi>_p<P>.{txt,csv}.
#
#   bench/node/run-local.sh [--ranks "2 4"] [--sizes LIST] [--repetitions N] [--build DIR] [--out DIR]
#
# --sizes (default 64K to 64M in powers of two) and --repetitions (default 9, and 51 single broadcasts) are
# herald-bcast-bench's; a short run such as --sizes 64K,1M --repetitions 3 checks the script in seconds.
#
# The MPI is the build's: a build configured with -DMPI_EXECUTABLE_SUFFIX=.mpich measures MPICH. More
# ranks than cores are oversubscribed: those figures are reported without a target.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ranks="2 4" sizes=64K,128K,256K,512K,1M,2M,4M,8M,16M,32M,64M repetitions="" build=$repo/build
out=$repo/bench/node/results
die() { echo "run-local.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "ranks sizes repetitions build out" "$@"
[[ -z $repetitions ]] || [[ $repetitions =~ ^[1-9][0-9]*$ ]] || die "--repetitions takes a positive count, not '$repetitions'"

cmake --build "$build" --target herald-bcast-bench -j2 >/dev/null
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
mkdir -p "$out"
report() {
  python3 - "$1" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{sys.argv[1]}: bytes, MPI_Bcast us, node_shared us, node_shared / MPI_Bcast, auto / MPI_Bcast (auto's pick)")
ratios = []
for b in sorted({int(r["bytes"]) for r in rows}):
    at = {r["algorithm"]: r for r in rows if int(r["bytes"]) == b}
    ratio = float(at["node_shared"]["ratio_to_native"])
    ratios.append(ratio)
    print(f"  {b:>9}  {float(at['native']['median_us']):10.2f}  {float(at['node_shared']['median_us']):10.2f}"
          f"  {ratio:.3f}  {float(at['auto']['ratio_to_native']):.3f} ({at['auto']['resolved']})")
print(f"  geometric mean of node_shared / MPI_Bcast: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
PY
}
for p in $ranks; do
  launch_flags "$p"
  for mode in back-to-back single nonblocking; do
    name=node_local_${mpi}_p$p timing=(--repetitions "${repetitions:-9}")
    if [[ $mode == single ]]; then
      name=node_local_single_${mpi}_p$p
      timing=(--repetitions "${repetitions:-51}" --iterations 1 --min-iterations 1 --time-budget 0 --warmup 5)
    elif [[ $mode == nonblocking ]]; then
      name=node_local_nonblocking_${mpi}_p$p
      timing=(--repetitions "${repetitions:-9}" --nonblocking)
    fi
    {
      echo "# bench/node/run-local.sh --ranks $p --sizes $sizes${repetitions:+ --repetitions $repetitions}, $mode (commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
      timeout 1800 "$mpiexec" "${flags[@]}" "$build/apps/herald-bcast-bench/herald-bcast-bench" \
        --algorithms node_shared,auto,native --sizes "$sizes" "${timing[@]}" --csv "$out/$name.csv"
    } >"$out/$name.txt"
    report "$out/$name.csv"
  done
done
