#!/usr/bin/env bash
# Installs herald's system dependencies on Debian 12 with apt-get, only those missing. Safe to rerun: when
# everything is present it installs nothing and prints nothing.
#
#   scripts/setup.sh                     Open MPI (Debian's default MPI)
#   HERALD_MPI=mpich scripts/setup.sh    MPICH instead; HERALD_MPI=both for the two side by side
#   HERALD_SIMGRID=1 scripts/setup.sh    also SimGrid, for the simulated cluster (bench/smpi)
#
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail

mpi=${HERALD_MPI:-openmpi}
packages=(
  cmake g++ make pkg-config                  # build
  libgtest-dev libgmock-dev                  # tests
  libbenchmark-dev                           # unit benchmarks (the cost of choosing an algorithm)
  nlohmann-json3-dev libcli11-dev            # JSON output and command lines of the programs
  libhwloc-dev clang libomp-dev              # thread balancer: topology, OpenMP (LLVM's runtime has OMPT)
  libclang-rt-14-dev                         # clang's libFuzzer and sanitizer runtimes: the fuzz target
  python3 python3-matplotlib                 # benchmark plots
  gfortran                                   # the Fortran drop-in tests
  python3-venv python3-dev                   # mpi4py from the registry, built against the system MPI
)
case "$mpi" in
  openmpi) packages+=(libopenmpi-dev openmpi-bin) ;;
  mpich) packages+=(mpich libmpich-dev) ;;
  both) packages+=(libopenmpi-dev openmpi-bin mpich libmpich-dev) ;;
  *) echo "setup.sh: HERALD_MPI must be openmpi, mpich or both, not '$mpi'" >&2; exit 2 ;;
esac
[[ ${HERALD_SIMGRID:-0} == 1 ]] && packages+=(libsimgrid-dev)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "setup.sh: not root and no sudo; install these as root: ${missing[*]}" >&2
  exit 1
fi

echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
# Recommends are left out: Open MPI's would pull a Fortran coarray toolchain herald never uses.
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
