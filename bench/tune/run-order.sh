#!/usr/bin/env bash
# Whether the interleave's order moves a mode's time: herald-bcast-bench at 2 ranks, no tuning file, runs the
# installed MPI_Bcast (native) and auto (which hands these sizes to the same MPI_Bcast through herald)
# without node_shared, then with node_shared measured right before auto, then right before native, at
# --sizes (default 4M,8M,16M), 15 repetitions each. Each launch's output goes to
# <out>/order_<mpi>_<n>.{txt,csv} (n = 1, 2, 3, in that order), and the script prints auto / native per size
# and launch.
#
#   bench/tune/run-order.sh [--sizes 4M,8M,16M] [--build DIR] [--out DIR]
#
# Default out: bench/tune/results. The MPI is the build's.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sizes=4M,8M,16M build=$repo/build out=$repo/bench/tune/results
die() { echo "run-order.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "sizes build out" "$@"

cmake --build "$build" --target herald-bcast-bench -j2 >/dev/null
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
unset HERALD_TUNING_FILE
mkdir -p "$out"
launch_flags 2
n=0
for order in native,auto native,node_shared,auto auto,node_shared,native; do
  n=$((n + 1))
  {
    echo "# bench/tune/run-order.sh --sizes $sizes: launch $n, --algorithms $order (commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
    timeout 1200 "$mpiexec" "${flags[@]}" "$build/apps/herald-bcast-bench/herald-bcast-bench" --algorithms "$order" \
      --sizes "$sizes" --repetitions 15 --csv "$out/order_${mpi}_$n.csv"
  } >"$out/order_${mpi}_$n.txt"
  python3 - "$out/order_${mpi}_$n.csv" "$order" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for b in sorted({int(r["bytes"]) for r in rows}):
    at = {r["algorithm"]: r for r in rows if int(r["bytes"]) == b}
    print(f"{sys.argv[2]:>24}  {b:>9} B  auto / native {float(at['auto']['ratio_to_native']):.2f} ({at['auto']['verdict']})")
PY
done
