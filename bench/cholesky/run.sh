#!/usr/bin/env bash
# herald-cholesky against ScaLAPACK on this machine, in the same run, interleaved: for every rank count and
# matrix order, each block size is first tuned per solver (the fastest of --tiles, one run each), then every
# repetition runs herald with HEFT, herald with the 2D block-cyclic mapping and ScaLAPACK's pdpotrf one
# after the other. Medians of --reps, ratios to ScaLAPACK; the first repetition of each checks its residual.
#
#   bench/cholesky/run.sh [--ranks 2,4] [--sizes 4096,8192] [--reps 5] [--tiles 128,256,384,512]
#       [--scalapack-tiles 64,128,256] [--precision double] [--out DIR] [--build DIR]
#
# Processes are not bound to cores (Open MPI binds each to one core when there are at most two, which
# would leave a worker's kernel threads one core): every process may use every core. A herald worker runs
# max(1, cores / workers) kernel threads (rank 0 is the head and computes nothing); ScaLAPACK runs one
# process per rank, one BLAS thread each. Writes into <out> (default bench/cholesky/results):
# cholesky.csv (every run), cholesky.md (tuning, medians, ratios) and cholesky.png.
set -euo pipefail
shopt -s inherit_errexit  # a failed run inside $(...) stops the script too

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
die() {
  echo "run.sh: $*" >&2
  exit 2
}
ranks=2,4 sizes=4096,8192 reps=5 tiles=128,256,384,512 scalapack_tiles=64,128,256 precision=double
out=$repo/bench/cholesky/results build=$repo/build
source "$repo/bench/options.sh"
parse_options "ranks sizes reps tiles scalapack-tiles precision out build" "$@"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive count, not '$reps'"
[[ $precision =~ ^(double|single)$ ]] || die "--precision takes double or single, not '$precision'"
counts_list "$ranks" --ranks
counts_list "$sizes" --sizes
counts_list "$tiles" --tiles
counts_list "$scalapack_tiles" --scalapack-tiles

bin=$build/apps/herald-cholesky/herald-cholesky
if [[ ! -x $bin ]]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"$(nproc)" --target herald-cholesky >/dev/null
fi
launcher=(mpiexec)
mpi_version=$(mpiexec --version 2>&1 || true)
if [[ $mpi_version == *OpenRTE* || $mpi_version == *"Open MPI"* ]]; then
  launcher+=(--bind-to none --oversubscribe)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cores=$(nproc)
mkdir -p "$out"
csv=$out/cholesky.csv
header="solver,precision,n,tile,tiles,ranks,threads,mapping,grid,strategy,seconds,gflops,residual"
echo "phase,rep,$header" >"$csv"

# run PHASE REP RANKS ARGS...: one herald-cholesky run, its CSV row appended; a failure stops the script.
run() {
  local phase=$1 rep=$2 np=$3
  shift 3
  local row
  row=$("${launcher[@]}" -n "$np" "$bin" --csv --precision "$precision" "$@" | tail -1) ||
    die "failed: ${launcher[*]} -n $np $bin $*"
  echo "$phase,$rep,$row" >>"$csv"
  echo "$row" | cut -d, -f11-12
}
best_tile() {  # best_tile RANKS N TILES ARGS...: the tile of the highest GFlop/s, one run each
  local np=$1 n=$2 list=$3 best=0 best_rate=0 t rate
  shift 3
  for t in ${list//,/ }; do
    ((t <= n)) || continue
    rate=$(run tune 0 "$np" -n "$n" --tile "$t" --no-check "$@" | cut -d, -f2)
    if awk -v a="$rate" -v b="$best_rate" 'BEGIN { exit !(a > b) }'; then best=$t best_rate=$rate; fi
  done
  ((best > 0)) || die "no tile of '$list' fits N $n"
  echo "$best"
}

for np in ${ranks//,/ }; do
  workers=$((np > 1 ? np - 1 : 1))
  threads=$((cores / workers > 0 ? cores / workers : 1))
  for n in ${sizes//,/ }; do
    echo "== $np ranks, N $n: tuning the block sizes" >&2
    herald=(--threads "$threads")
    th=$(best_tile "$np" "$n" "$tiles" "${herald[@]}")
    tc=$(best_tile "$np" "$n" "$tiles" "${herald[@]}" --mapping cyclic)
    ts=$(best_tile "$np" "$n" "$scalapack_tiles" --solver scalapack)
    echo "   herald heft tile $th, herald cyclic tile $tc, ScaLAPACK block $ts; $threads kernel thread(s) per worker" >&2
    for ((rep = 1; rep <= reps; ++rep)); do
      check=--no-check
      ((rep == 1)) && check=
      run measure "$rep" "$np" -n "$n" --tile "$th" "${herald[@]}" $check >/dev/null
      run measure "$rep" "$np" -n "$n" --tile "$tc" "${herald[@]}" --mapping cyclic $check >/dev/null
      run measure "$rep" "$np" -n "$n" --tile "$ts" --solver scalapack $check >/dev/null
    done
  done
done

python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
"$python" "$repo/bench/cholesky/report.py" "$csv" "$out" "${mpi_version%%$'\n'*}" "$cores"
