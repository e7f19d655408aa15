#!/usr/bin/env bash
# Runs the nonblocking-collective mix (nbc_mix.c) under the drop-in for every algorithm, rank count and seed,
# and prints one line per run and a total; exits non-zero if any run failed or passed its time limit.
#
#   tests/mpi/dropin/nbc_mix.sh BUILD_DIR [--ranks "2 3 4 5 6 7 8"] [--seeds 20] [--operations 300]
#                               [--algorithms "auto linear ..."] [--timeout 120]
#
# BUILD_DIR is a configured and built herald tree (its MPI is the one tested: a build with
# -DMPI_EXECUTABLE_SUFFIX=.mpich tests MPICH). Runs with more ranks than cores are oversubscribed.
set -euo pipefail

build=${1:?usage: nbc_mix.sh BUILD_DIR [options]}
shift
ranks="2 3 4 5 6 7 8"
seeds=20
operations=300
timeout=120
algorithms="auto linear binomial balanced_binomial binary split_binary chain knomial scatter_ring scatter_ring_tuned scatter_rdb two_tree hierarchical node_pipeline"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks=$2 ;;
    --seeds) seeds=$2 ;;
    --operations) operations=$2 ;;
    --algorithms) algorithms=$2 ;;
    --timeout) timeout=$2 ;;
    *) echo "nbc_mix.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done

program="$build/tests/mpi/herald_dropin_nbc_mix"
library=$(ls "$build"/src/pmpi/libherald_pmpi.so 2>/dev/null || true)
[[ -x "$program" && -n "$library" ]] || { echo "nbc_mix.sh: build herald_dropin_nbc_mix and herald_pmpi in $build first" >&2; exit 2; }
mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")
# launch RANKS ALGORITHM COMMAND...
if "$mpiexec" --version 2>&1 | grep -q -E "Open MPI|OpenRTE"; then
  launch() { timeout "$timeout" "$mpiexec" -n "$1" --oversubscribe --allow-run-as-root -x LD_PRELOAD="$library" \
    -x HERALD_EXPECT_PMPI=1 -x HERALD_ALGORITHM="$2" -x HWLOC_COMPONENTS=-gl "${@:3}"; }
else
  launch() { timeout "$timeout" "$mpiexec" -n "$1" -genv LD_PRELOAD "$library" -genv HERALD_EXPECT_PMPI 1 \
    -genv HERALD_ALGORITHM "$2" "${@:3}"; }
fi

echo "# nbc_mix under the drop-in: $("$mpiexec" --version 2>&1 | head -1); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
echo "# algorithm ranks seed result seconds"
runs=0 failed=0
for algorithm in $algorithms; do
  for p in $ranks; do
    for ((seed = 1; seed <= seeds; ++seed)); do
      started=$(date +%s.%N)
      if output=$(launch "$p" "$algorithm" "$program" "$seed" "$operations" 2>&1) && grep -q ": passed" <<<"$output"; then
        result=passed
      else
        result=FAILED
        failed=$((failed + 1))
        grep -v "^$" <<<"$output" | tail -5 | sed 's/^/#   /'
      fi
      runs=$((runs + 1))
      printf '%s %d %d %s %.1f\n' "$algorithm" "$p" "$seed" "$result" "$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
    done
  done
done
echo "$((runs - failed)) passed, $failed failed"
[[ $failed -eq 0 ]]
