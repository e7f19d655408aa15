#!/usr/bin/env bash
# Builds herald and runs all its tests: dependencies (scripts/setup.sh), configure, build, ctest.
# Exits non-zero if anything fails.
#
# Environment (all optional):
#   HERALD_BUILD_DIR    build directory, relative to the repository or absolute (default: build)
#   HERALD_BUILD_TYPE   CMAKE_BUILD_TYPE (default: Release)
#   HERALD_MPI          openmpi | mpich: the MPI to build with (default: the system's default MPI).
#                       Use one build directory per MPI.
#   HERALD_TEST_LARGE   1: also run the tests labelled "large" (a broadcast above 2 GiB); 0: skip them;
#                       unset: run them when the machine has at least 12 GiB of memory
#   HERALD_CMAKE_ARGS   extra configure arguments, e.g. "-DHERALD_SANITIZE=ON"
#   HERALD_CTEST_ARGS   extra ctest arguments, e.g. "-L unit"; give labels to skip in HERALD_TEST_EXCLUDE,
#                       not as -LE here: ctest keeps only one -LE
#   HERALD_TEST_EXCLUDE labels to skip, separated by "|", e.g. "twin" (added to "large" when that is skipped)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "test.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "" "$@"  # --help; it takes no options, only the environment above
cd "$repo"
build=${HERALD_BUILD_DIR:-build}
jobs=$(nproc)

started=$SECONDS
"$repo/scripts/setup.sh"
setup_seconds=$((SECONDS - started))

configure=(-DCMAKE_BUILD_TYPE="${HERALD_BUILD_TYPE:-Release}")
case "${HERALD_MPI:-}" in
  "") ;;
  # Debian installs each MPI's wrappers and launcher with a suffix (mpicc.mpich, mpiexec.mpich, ...);
  # FindMPI looks for exactly those names when given the suffix.
  openmpi | mpich) configure+=(-DMPI_EXECUTABLE_SUFFIX=".$HERALD_MPI") ;;
  *) echo "test.sh: HERALD_MPI must be openmpi or mpich, not '$HERALD_MPI'" >&2; exit 2 ;;
esac
read -r -a extra_configure <<<"${HERALD_CMAKE_ARGS:-}"
read -r -a extra_ctest <<<"${HERALD_CTEST_ARGS:-}"

# Open MPI refuses to run as root unless told that is intended (CI runs as root).
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# Every Open MPI launch loads hwloc's "gl" plugin, which looks for NVIDIA X displays :0 to :9; each
# XOpenDisplay falls back to TCP on "localhost". Where /etc/hosts does not name localhost (a root made by
# mmdebstrap) that is 20 DNS queries per launch, and one lost reply costs the resolver's 5 s timeout. The
# tests need no X display in the topology.
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}
# The point-to-point layers Open MPI opens and drops on one node, left out as cmake/with-session-dir.sh
# leaves them out of every MPI test: here for the launches the docs' and programs' tests make themselves.
export OMPI_MCA_pml=${OMPI_MCA_pml:-^cm,ucx}

# A broadcast above 2 GiB needs two such buffers per rank at 2 ranks.
large=${HERALD_TEST_LARGE:-}
if [[ -z "$large" ]]; then
  mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
  large=$(( mem_kib >= 12 * 1024 * 1024 ? 1 : 0 ))
fi
# ctest honours a single -LE, so every label to skip goes into one regular expression.
exclude=${HERALD_TEST_EXCLUDE:-}
if [[ "$large" != 1 ]]; then
  exclude=${exclude:+$exclude|}large
  echo "test.sh: skipping tests labelled 'large' (set HERALD_TEST_LARGE=1 to run them)"
fi
for arg in "${extra_ctest[@]}"; do
  if [[ "$arg" == -LE || "$arg" == --label-exclude ]]; then
    echo "test.sh: give labels to skip in HERALD_TEST_EXCLUDE, not as $arg in HERALD_CTEST_ARGS (ctest keeps only one -LE)" >&2
    exit 2
  fi
done
filter=()
if [[ -n "$exclude" ]]; then
  filter=(-LE "^($exclude)\$")
fi

cmake -S "$repo" -B "$build" "${configure[@]}" "${extra_configure[@]}"
cmake --build "$build" -j "$jobs"
build_seconds=$((SECONDS - started - setup_seconds))
status=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$jobs" "${filter[@]}" "${extra_ctest[@]}" || status=$?
# Where the time went, for CI's stage times and anyone timing the README's command.
echo "test.sh: setup ${setup_seconds} s, configure and build ${build_seconds} s, ctest $((SECONDS - started - setup_seconds - build_seconds)) s"
exit $status
