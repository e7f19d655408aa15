#!/usr/bin/env bash
# MPICH's own test of many nonblocking collectives in flight at once (test/mpi/coll/nonblocking3.c: 100,000
# operations on four communicators, MPI_Ibcast among them, completed by every wait and test form), built
# from an MPICH source tree beside herald, never into it, and run under the drop-in: plainly (the MPI's own
# collectives), with HERALD_AUTO_LEARN=1 (auto learning from the blocking calls, the nonblocking ones using
# what they learned; with HERALD_AUTO_NATIVE_BELOW=0, since the test's broadcasts are short and on one node
# auto would otherwise leave them all to MPI_Bcast), and with each --algorithms entry forced
# (HERALD_ALGORITHM). Each herald run's HERALD_STATS line follows its own. Prints one line per run
# (mode, ranks, result, seconds) and exits non-zero if any run failed or passed --timeout.
#
#   bench/dropin/run-peer-nonblocking3.sh --mpich DIR [--ranks "1 4 5"] [--algorithms "circulant binomial"]
#       [--timeout 900] [--build DIR] [--out DIR]
#
# --mpich is an MPICH source tree: a checkout, or a git directory (such as a bare clone; its HEAD is read).
# The MPI is the build's (a build configured with -DMPI_EXECUTABLE_SUFFIX=.mpich runs MPICH; MPICH's test
# list runs nonblocking3 at 1, 4, 5 and 10 ranks). Writes <out>/nonblocking3_<mpi>.txt (default out:
# bench/dropin/results).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mpich='' ranks="1 4 5" algorithms="circulant binomial" timeout=900 build=$repo/build out=$repo/bench/dropin/results
die() { echo "run-peer-nonblocking3.sh: $*" >&2; exit 2; }
source "$repo/bench/options.sh"
parse_options "mpich ranks algorithms timeout build out" "$@"
[[ -n $mpich ]] || die "--mpich names an MPICH source tree (a checkout or its git directory)"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout takes seconds, not '$timeout'"
for p in $ranks; do [[ $p =~ ^[1-9][0-9]*$ ]] || die "--ranks takes positive counts, not '$p'"; done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The test and MPICH's test harness (mtest), from the tree as it is.
files=(coll/nonblocking3.c util/mtest.c util/mtest_common.c util/mtest_single.c include/mpitest.h include/mpithreadtest.h
  include/mtest_common.h include/dtypes.h include/mpicolltest.h)
for f in "${files[@]}"; do
  if [[ -f $mpich/test/mpi/$f ]]; then
    cp "$mpich/test/mpi/$f" "$work/"
  elif git --git-dir="$mpich" cat-file -e "HEAD:test/mpi/$f" 2>/dev/null; then
    git --git-dir="$mpich" show "HEAD:test/mpi/$f" >"$work/$(basename "$f")"
  elif git -C "$mpich" cat-file -e "HEAD:test/mpi/$f" 2>/dev/null; then
    git -C "$mpich" show "HEAD:test/mpi/$f" >"$work/$(basename "$f")"
  else
    die "$mpich has no test/mpi/$f: not an MPICH source tree"
  fi
done
version=$( (git --git-dir="$mpich" rev-parse --short HEAD || git -C "$mpich" rev-parse --short HEAD) 2>/dev/null || echo "a checkout")
# What MPICH's configure would write for this system: a POSIX host, no thread package for the harness.
cat >"$work/mpitestconf.h" <<'EOF'
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
EOF
: >"$work/mtest_mpix.h"

cmake --build "$build" --target herald_pmpi -j2 >/dev/null
source "$repo/bench/local-mpi.sh"
local_mpi "$build"
mpicc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
[[ -n $mpicc ]] || mpicc=$([[ $mpi == mpich ]] && echo mpicc.mpich || echo mpicc)
"$mpicc" -O1 -w -I"$work" -o "$work/nonblocking3" "$work/nonblocking3.c" "$work/mtest.c" "$work/mtest_common.c" \
  "$work/mtest_single.c"
library=$build/src/pmpi/libherald_pmpi.so
mkdir -p "$out"
file=$out/nonblocking3_$mpi.txt
failed=0
{
  echo "# bench/dropin/run-peer-nonblocking3.sh --ranks \"$ranks\" --algorithms \"$algorithms\" (herald commit $(git -C "$repo" rev-parse --short HEAD), MPICH tree $version); $("$mpiexec" --version 2>&1 | grep -m1 -E "Version|Open MPI|OpenRTE" | tr -s " "); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
  echo "# mode ranks result seconds"
  for mode in plain learn $algorithms; do
    for p in $ranks; do
      launch_flags "$p"
      environment=()
      case $mode in
        plain) ;;
        learn) environment=(LD_PRELOAD="$library" HERALD_STATS=1 HERALD_AUTO_LEARN=1 HERALD_AUTO_NATIVE_BELOW=0) ;;
        *) environment=(LD_PRELOAD="$library" HERALD_STATS=1 HERALD_ALGORITHM="$mode") ;;
      esac
      # To the ranks only, not to the launcher: Open MPI's -x, Hydra's -genv.
      passed=()
      for assignment in "${environment[@]}"; do
        if [[ $mpi == openmpi ]]; then passed+=(-x "$assignment"); else passed+=(-genv "${assignment%%=*}" "${assignment#*=}"); fi
      done
      started=$SECONDS
      if output=$(timeout "$timeout" "$mpiexec" "${flags[@]}" "${passed[@]}" "$work/nonblocking3" 2>&1) &&
        grep -q "No Errors" <<<"$output"; then
        result=passed
      else
        result=FAILED
        failed=$((failed + 1))
        grep -v "^$" <<<"$output" | tail -5 | sed 's/^/#   /'
      fi
      echo "$mode $p $result $((SECONDS - started))"
      grep "^herald stats:" <<<"$output" | sed 's/^/#   /' || true
    done
  done
  echo "# $failed failed"
} | tee "$file"
grep -q "^# 0 failed" "$file"
