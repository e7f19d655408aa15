#!/usr/bin/env bash
# auto after herald-tune against the installed MPI_Bcast: for each rank count, herald-tune --exhaustive (1 B
# to 64 MiB) writes <out>/tuning_p<P>.json, then herald-bcast-bench runs auto and native interleaved, 1 B to
# 64 MiB in powers of two, 7 repetitions, with that file. Writes <out>/tuning_p<P>.{json,txt},
# <out>/auto_p<P>.{txt,csv} and prints the summary (geometric mean of auto / native, sizes where auto is
# distinguishably slower or faster).
#
#   bench/tune/run-auto.sh [--ranks "2 4"] [--build DIR] [--out DIR]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ranks="2 4" build=$repo/build out=$repo/bench/tune/results
die() { echo "run-auto.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "ranks build out" "$@"

cmake --build "$build" --target herald-tune herald-bcast-bench -j2 >/dev/null
mkdir -p "$out"
sizes=$(python3 -c "print(','.join(str(2**i) for i in range(27)))")
for p in $ranks; do
  flags=(-n "$p")
  if mpiexec --version 2>&1 | grep -q "Open MPI"; then
    [[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
    ((p > $(nproc))) && flags+=(--oversubscribe)
  fi
  timeout 3600 mpiexec "${flags[@]}" "$build/apps/herald-tune/herald-tune" --exhaustive --max-bytes 64M --ranks "$p" \
    -o "$out/tuning_p$p.json" >"$out/tuning_p$p.txt"
  HERALD_TUNING_FILE="$out/tuning_p$p.json" timeout 3600 mpiexec "${flags[@]}" \
    "$build/apps/herald-bcast-bench/herald-bcast-bench" --algorithms auto,native --sizes "$sizes" --repetitions 7 \
    --csv "$out/auto_p$p.csv" >"$out/auto_p$p.txt"
done
python3 "$repo/bench/tune/summary.py" "$out"/auto_p*.csv
