#!/usr/bin/env bash
# auto with no tuning file, as the drop-in runs it first: for each rank count, herald-bcast-bench runs every
# herald algorithm, auto and the installed MPI_Bcast (native), interleaved in one launch on this one node,
# its default sweep (1 B to 16 MiB), 7 repetitions, without HERALD_TUNING_FILE. Writes
# <out>/untuned_<mpi>_p<P>.{txt,csv} and prints the summary (bench/tune/summary.py): auto against native,
# and against herald's fastest where that beats native. HERALD_* settings in the environment (such as
# HERALD_AUTO_NATIVE_BELOW) reach the benchmark and are named in each output's first line.
#
#   bench/tune/run-untuned.sh [--ranks "2 4"] [--sizes LIST] [--repetitions N] [--build DIR] [--out DIR]
#
# --sizes and --repetitions are herald-bcast-bench's (default: its sweep, 7 repetitions); a short run such as
# --sizes 1K,64K --repetitions 1 checks the script end to end in seconds.
#
# The MPI is the build's: a build configured with -DMPI_EXECUTABLE_SUFFIX=.mpich measures MPICH.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ranks="2 4" sizes="" repetitions=7 build=$repo/build out=$repo/bench/tune/results
die() { echo "run-untuned.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "ranks sizes repetitions build out" "$@"
[[ $repetitions =~ ^[1-9][0-9]*$ ]] || die "--repetitions takes a positive count, not '$repetitions'"

cmake --build "$build" --target herald-bcast-bench -j2 >/dev/null
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
unset HERALD_TUNING_FILE
mkdir -p "$out"
for p in $ranks; do
  launch_flags "$p"
  {
    echo "# bench/tune/run-untuned.sh --ranks $p${sizes:+ --sizes $sizes} --repetitions $repetitions (commit $(git -C "$repo" rev-parse --short HEAD)); $("$mpiexec" --version 2>&1 | head -1); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores; $(env | grep '^HERALD_' | paste -sd ' ' -)"
    timeout 3600 "$mpiexec" "${flags[@]}" "$build/apps/herald-bcast-bench/herald-bcast-bench" --algorithms all \
      ${sizes:+--sizes "$sizes"} --repetitions "$repetitions" --csv "$out/untuned_${mpi}_p$p.csv"
  } >"$out/untuned_${mpi}_p$p.txt"
done
for p in $ranks; do python3 "$repo/bench/tune/summary.py" "$out/untuned_${mpi}_p$p.csv"; done
