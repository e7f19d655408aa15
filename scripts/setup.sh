#!/usr/bin/env bash
# Installs herald's system dependencies on Debian 12 with apt-get, only those missing. Safe to rerun: when
# everything is present it installs nothing and prints nothing.
#
#   scripts/setup.sh                     Open MPI (Debian's default MPI)
#   HERALD_MPI=mpich scripts/setup.sh    MPICH instead; HERALD_MPI=both for the two side by side
#   HERALD_SIMGRID=1 scripts/setup.sh    also SimGrid, for the simulated cluster (bench/smpi)
#   HERALD_STARPU=1 scripts/setup.sh     also StarPU, for Task Bench's StarPU build (bench/taskbench/peer.sh)
#
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail

die() { echo "setup.sh: $*" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/../bench/options.sh"
parse_options "" "$@"  # --help; it takes no options, only the environment above

mpi=${HERALD_MPI:-openmpi}
packages=(
  cmake g++ make ninja-build pkg-config      # build (make or Ninja)
  libgtest-dev libgmock-dev                  # tests
  libbenchmark-dev                           # unit benchmarks (the cost of choosing an algorithm)
  nlohmann-json3-dev libcli11-dev            # JSON output and command lines of the programs
  libhwloc-dev clang libomp-dev              # thread balancer: topology, OpenMP (LLVM's runtime has OMPT)
  libclang-rt-14-dev                         # clang's libFuzzer and sanitizer runtimes: the fuzz target
  python3 python3-matplotlib                 # benchmark plots, herald-trace
  libotf2-trace-dev otf2-tools               # traces as OTF2 archives, and otf2-print to check them
  gfortran                                   # the Fortran drop-in tests
  libopenblas-dev liblapacke-dev             # herald-cholesky's tile kernels
)
case "$mpi" in
  # ScaLAPACK: herald-cholesky's peer. mpi4py, for the drop-in's Python test: Debian's, built against its
  # Open MPI (a binary package; building it from source took minutes of every new machine's setup).
  openmpi) packages+=(libopenmpi-dev openmpi-bin libscalapack-openmpi-dev python3-mpi4py) ;;
  mpich) packages+=(mpich libmpich-dev libscalapack-mpich-dev) ;;
  both) packages+=(libopenmpi-dev openmpi-bin mpich libmpich-dev libscalapack-openmpi-dev libscalapack-mpich-dev
                   python3-mpi4py) ;;
  *) echo "setup.sh: HERALD_MPI must be openmpi, mpich or both, not '$mpi'" >&2; exit 2 ;;
esac
[[ ${HERALD_SIMGRID:-0} == 1 ]] && packages+=(libsimgrid-dev)
[[ ${HERALD_STARPU:-0} == 1 ]] && packages+=(libstarpu-dev)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$package")
done

# as_root CMD...: runs CMD as root (directly, or through sudo).
as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    echo "setup.sh: not root and no sudo; run as root: $*" >&2
    exit 1
  fi
}
apt_install() {
  echo "setup.sh: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  # Recommends are left out: Open MPI's would pull a Fortran coarray toolchain herald never uses.
  as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [[ ${#missing[@]} -gt 0 ]]; then apt_install "${missing[@]}"; fi

