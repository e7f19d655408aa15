#!/usr/bin/env bash
# Runs the `mpi` and `install` labels RUNS times in a row under load: `ctest -j3` on this machine's cores
# with a CPU-bound process beside them, as a busy workstation or a shared CI runner would. Stops at the first
# failing run and prints which tests failed; prints each run's time. A test that passes here only when the
# machine is idle depends on speed, which no test may.
#
# Usage: tests/loaded.sh BUILD_DIR [RUNS] [CTEST_ARGS...]    (default 5 runs; e.g. -LE large)
set -euo pipefail

build=${1:?usage: tests/loaded.sh BUILD_DIR [RUNS] [CTEST_ARGS...]}
runs=${2:-5}
shift $(($# >= 2 ? 2 : 1))
[[ -f "$build/CTestTestfile.cmake" ]] || { echo "loaded.sh: $build is not a configured build directory" >&2; exit 2; }

if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}

# The load: one process that never sleeps.
bash -c 'while :; do :; done' &
load=$!
trap 'kill $load 2>/dev/null' EXIT

for ((run = 1; run <= runs; ++run)); do
  started=$SECONDS
  if ctest --test-dir "$build" -L "mpi|install" -j3 --output-on-failure "$@" >"$build/loaded-run-$run.log" 2>&1; then
    echo "run $run of $runs: passed, $(grep -Eo '[0-9]+ tests passed|out of [0-9]+' "$build/loaded-run-$run.log" |
      tail -1), $((SECONDS - started)) s"
  else
    echo "run $run of $runs: FAILED after $((SECONDS - started)) s; log $build/loaded-run-$run.log"
    grep -E "^\s+[0-9]+ - " "$build/loaded-run-$run.log" || true
    exit 1
  fi
done
echo "loaded.sh: $runs runs in a row passed"
