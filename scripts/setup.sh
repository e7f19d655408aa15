#!/usr/bin/env bash
# Installs herald's system dependencies on Debian 12 with apt-get, only those missing, and mpi4py from the
# registry into a virtual environment. Safe to rerun: when everything is present it installs nothing and
# prints nothing.
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
  cmake g++ make pkg-config                  # build
  libgtest-dev libgmock-dev                  # tests
  libbenchmark-dev                           # unit benchmarks (the cost of choosing an algorithm)
  nlohmann-json3-dev libcli11-dev            # JSON output and command lines of the programs
  libhwloc-dev clang libomp-dev              # thread balancer: topology, OpenMP (LLVM's runtime has OMPT)
  libclang-rt-14-dev                         # clang's libFuzzer and sanitizer runtimes: the fuzz target
  python3 python3-matplotlib                 # benchmark plots, herald-trace
  libotf2-trace-dev otf2-tools               # traces as OTF2 archives, and otf2-print to check them
  gfortran                                   # the Fortran drop-in tests
  libopenblas-dev liblapacke-dev             # herald-cholesky's tile kernels
  python3-venv python3-dev                   # mpi4py from the registry, built against the system MPI
)
case "$mpi" in
  openmpi) packages+=(libopenmpi-dev openmpi-bin libscalapack-openmpi-dev) ;;  # ScaLAPACK: herald-cholesky's peer
  mpich) packages+=(mpich libmpich-dev libscalapack-mpich-dev) ;;
  both) packages+=(libopenmpi-dev openmpi-bin mpich libmpich-dev libscalapack-openmpi-dev libscalapack-mpich-dev) ;;
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

# mpi4py for the drop-in's Python test: from the registry, built against the system's Open MPI, in a
# virtual environment of its own (CMake looks there first, HERALD_MPI4PY_VENV). Where the registry cannot
# be reached, Debian's python3-mpi4py, built against the same Open MPI, instead.
if [[ $mpi != mpich ]]; then
  venv=${HERALD_MPI4PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/herald/mpi4py-venv}
  if ! "$venv/bin/python" -c 'import mpi4py' 2>/dev/null && ! /usr/bin/python3 -c 'import mpi4py' 2>/dev/null; then
    echo "setup.sh: building mpi4py against Open MPI in $venv"
    /usr/bin/python3 -m venv "$venv"  # Debian's Python, which the packages above installed
    if ! MPICC=mpicc "$venv/bin/pip" install --quiet --no-cache-dir --no-binary=mpi4py 'mpi4py>=3.1,<5'; then
      echo "setup.sh: the registry could not be used; Debian's python3-mpi4py instead" >&2
      rm -rf "$venv"
      apt_install python3-mpi4py
    fi
  fi
fi
