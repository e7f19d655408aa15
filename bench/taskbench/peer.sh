#!/usr/bin/env bash
# Builds Task Bench's own programs beside herald, never into it: its core library and MPI implementation
# (mpi/nonblock, mpi/bulk_synchronous), and with --starpu its StarPU implementation against Debian's
# libstarpu-dev. Prints the directory it built in.
#
#   bench/taskbench/peer.sh [--dir DIR] [--starpu]
#
# DIR defaults to $HERALD_TASK_BENCH_DIR, else ~/.cache/herald/task-bench. The sources come from
# $HERALD_TASK_BENCH_SOURCE (a path or URL to clone), else GitHub, at the pinned commit below; Task Bench's
# own Makefiles build them, with AVX2 and FMA where the CPU has them, as its users build it.
set -euo pipefail
die() { echo "peer.sh: $*" >&2; exit 1; }

commit=bf4ad1982d4b748bf3fd54e8239e798114e6ade8
dir=${HERALD_TASK_BENCH_DIR:-$HOME/.cache/herald/task-bench}
source=${HERALD_TASK_BENCH_SOURCE:-https://github.com/StanfordLegion/task-bench.git}
starpu=0
source "$(dirname "${BASH_SOURCE[0]}")/../options.sh"
while (($#)); do
  case $1 in
    -h | --help) show_usage; exit 0 ;;
    --dir) [[ $# -ge 2 && -n $2 ]] || refuse "--dir needs a directory"; dir=$2; shift 2 ;;
    --starpu) starpu=1; shift ;;
    *) refuse "unknown option '$1' (see --help)" ;;
  esac
done

if [[ ! -d $dir/.git ]]; then
  mkdir -p "$(dirname "$dir")"
  git clone -q "$source" "$dir" || die "could not clone Task Bench from $source"
fi
git -C "$dir" checkout -q "$commit" 2>/dev/null ||
  { git -C "$dir" fetch -q origin && git -C "$dir" checkout -q "$commit"; } ||
  die "commit $commit is not in $dir"

make -s -C "$dir/core" -j2 >/dev/null
make -s -C "$dir/mpi" -j2 nonblock bulk_synchronous >/dev/null
if ((starpu)); then
  pkg-config --exists starpu-1.3 ||
    die "StarPU 1.3 is not installed: HERALD_STARPU=1 scripts/setup.sh installs Debian's libstarpu-dev"
  # Task Bench's Makefile expects a StarPU install prefix; Debian's files are spread over the system paths.
  libdir=$(pkg-config --variable=libdir starpu-1.3)
  make -s -C "$dir/starpu" -j2 main STARPU_DIR=/usr INC="$(pkg-config --cflags starpu-1.3) -I../core" \
    LIB="$libdir/libstarpu-1.3.so $libdir/libstarpumpi-1.3.so -L../core -lcore_s" >/dev/null
fi
echo "$dir"
