#!/usr/bin/env bash
# The pass-through's cost: where herald hands a broadcast to the MPI's own MPI_Bcast, what herald adds.
# For each rank count: herald-tune --exhaustive on 1 B to 256 B writes <out>/passthrough_tuning_<mpi>_p<P>.json,
# then herald-bcast-bench runs, interleaved in one launch, the installed MPI_Bcast (native), MPI_Bcast
# reached through herald::bcast with {.algorithm = "native"} (herald_native) and auto with that tuning file,
# 1 B to 256 B, 15 repetitions. Writes <out>/passthrough_<mpi>_p<P>.{txt,csv} and prints, per size, the
# ratios to native and auto's pick.
#
#   bench/tune/run-passthrough.sh [--ranks "2 4"] [--build DIR] [--out DIR]
#
# The MPI is the build's: a build configured with -DMPI_EXECUTABLE_SUFFIX=.mpich measures MPICH.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ranks="2 4" build=$repo/build out=$repo/bench/tune/results
die() { echo "run-passthrough.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "ranks build out" "$@"

cmake --build "$build" --target herald-tune herald-bcast-bench -j2 >/dev/null
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
mkdir -p "$out"
sizes=1,2,4,8,16,32,64,128,256
for p in $ranks; do
  launch_flags "$p"
  tuning=$out/passthrough_tuning_${mpi}_p$p.json
  timeout 1200 "$mpiexec" "${flags[@]}" "$build/apps/herald-tune/herald-tune" --exhaustive --max-bytes 256 --ranks "$p" \
    -o "$tuning" >/dev/null
  {
    echo "# bench/tune/run-passthrough.sh --ranks $p (commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
    HERALD_TUNING_FILE=$tuning timeout 1200 "$mpiexec" "${flags[@]}" "$build/apps/herald-bcast-bench/herald-bcast-bench" \
      --algorithms auto,herald_native,native --sizes "$sizes" --repetitions 15 --csv "$out/passthrough_${mpi}_p$p.csv"
  } >"$out/passthrough_${mpi}_p$p.txt"
  python3 - "$out/passthrough_${mpi}_p$p.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{sys.argv[1]}: bytes, native us, herald_native / native, auto / native (auto's pick)")
for b in sorted({int(r["bytes"]) for r in rows}):
    at = {r["algorithm"]: r for r in rows if int(r["bytes"]) == b}
    print(f"  {b:>4}  {float(at['native']['median_us']):.3f}  {float(at['herald_native']['ratio_to_native']):.3f}"
          f"  {float(at['auto']['ratio_to_native']):.3f} ({at['auto']['resolved']})")
EOF
done
