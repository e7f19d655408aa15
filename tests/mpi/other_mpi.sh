#!/usr/bin/env bash
# libherald_pmpi.so preloaded into a program of the other MPI (an Open MPI build into MPICH programs, or an
# MPICH build into Open MPI programs) must stop it before herald passes a handle of its own MPI to the other
# one, with a non-zero exit and a message on stderr naming both libraries. Three programs of the other MPI:
#   c        linked with its mpicc: both MPIs are loaded with the program (the check at load time);
#   fortran  linked with its mpif90, where mpif90 exists: its C library is reached only through its Fortran
#            one, behind the preloaded library's own MPI (the check at load time, which alone can see it);
#   dlopen   built without MPI, opening the other MPI at run time as mpi4py does (the check at MPI_Init).
# Each runs first without herald, where it must pass and name its MPI. Skipped (exit 77) where the other
# MPI's mpicc or launcher is missing (HERALD_MPI=both scripts/setup.sh installs MPICH beside Open MPI).
#
#   tests/mpi/other_mpi.sh LIBHERALD_PMPI BUILT_FLAVOR(openmpi|mpich) SOURCE_DIR WORK_DIR [ASAN_RUNTIME]
set -uo pipefail

library=${1:?usage: other_mpi.sh LIBHERALD_PMPI openmpi|mpich SOURCE_DIR WORK_DIR [ASAN_RUNTIME]}
flavor=${2:?}
sources=${3:?}
work=${4:?}
asan=${5:-}

fail() {
  echo "other_mpi: FAILED: $*"
  exit 1
}

case "$flavor" in
  openmpi) other=mpich built="Open MPI v" ;;
  mpich) other=openmpi built="MPICH " ;;
  *) fail "the build's MPI is '$flavor'; only openmpi and mpich have another to test against" ;;
esac
launcher=mpiexec.$other
for tool in "mpicc.$other" "$launcher"; do
  if ! command -v "$tool" >/dev/null; then
    echo "other_mpi: skipped: no $tool here (HERALD_MPI=both scripts/setup.sh installs MPICH beside Open MPI)"
    exit 77
  fi
done
mkdir -p "$work"
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}

# launch PRELOAD PROGRAM [ARGS...]: two ranks under the other MPI's launcher, which hands PRELOAD (if any) to
# the ranks only. stdout to $work/stdout, stderr to $work/stderr; returns the launcher's status (124: timed out after 30 s).
launch() {
  local preload=$1 environment=()
  shift
  if [[ $other == mpich ]]; then
    [[ -n $preload ]] && environment=(-genv LD_PRELOAD "$preload")
    timeout 30 "$launcher" -n 2 "${environment[@]}" "$@" >"$work/stdout" 2>"$work/stderr"
  else
    [[ -n $preload ]] && environment=(-x "LD_PRELOAD=$preload")
    timeout 30 "$launcher" -n 2 --oversubscribe --allow-run-as-root "${environment[@]}" "$@" >"$work/stdout" 2>"$work/stderr"
  fi
}

preload=$library
[[ -n $asan ]] && preload=$asan:$library  # the sanitizer runtime must be loaded first

# check NAME PROGRAM [ARGS...]
check() {
  local name=$1 status running
  shift
  # Without herald the program runs on its MPI, whose name (the first line of its version text up to the
  # first comma, blanks joined) the refusal must quote.
  launch "" "$@" || fail "$name: the program fails without herald too: $(cat "$work/stdout" "$work/stderr")"
  grep -q "passed" "$work/stdout" || fail "$name: the program did not pass without herald: $(cat "$work/stdout")"
  running=$(sed -n 's/^other_mpi: runs //p' "$work/stdout" | head -n 1 | tr -s ' \t' '  ' | sed 's/,.*//; s/ *$//')
  [[ -n $running ]] || fail "$name: the program did not name its MPI: $(cat "$work/stdout")"

  launch "$preload" "$@"
  status=$?
  echo "--- $name, with $library preloaded, under $launcher: exit status $status; stderr:"
  cat "$work/stderr"
  echo "---"
  [[ $status -ne 0 ]] || fail "$name: the program exited 0 on the wrong MPI"
  [[ $status -ne 124 ]] || fail "$name: the program did not stop within 30 s"
  grep -q "passed" "$work/stdout" && fail "$name: the program ran past MPI_Init: $(cat "$work/stdout")"
  grep -qF "herald: libherald_pmpi.so was built for $built" "$work/stderr" ||
    fail "$name: stderr does not name the library herald was built for ($built...)"
  grep -qF "but this program runs $running," "$work/stderr" || fail "$name: stderr does not name the running MPI ($running)"
  echo "other_mpi: $name passed (built for $flavor, refused on $running)"
}

"mpicc.$other" "$sources/other_mpi_program.c" -o "$work/program_c" || fail "mpicc.$other could not build other_mpi_program.c"
check c "$work/program_c"

if command -v "mpif90.$other" >/dev/null; then
  "mpif90.$other" "$sources/other_mpi_program.f90" -o "$work/program_fortran" ||
    fail "mpif90.$other could not build other_mpi_program.f90"
  check fortran "$work/program_fortran"
else
  echo "other_mpi: no mpif90.$other: the Fortran program is left out"
fi

# The other MPI's C library, as its linked program loads it.
libmpi=$(ldd "$work/program_c" | awk '$1 ~ /^lib(mpich|mpi)\.so/ { print $3; exit }')
[[ -f $libmpi ]] || fail "no MPI library in ldd $work/program_c"
cc "$sources/other_mpi_dlopen.c" -o "$work/program_dlopen" -ldl || fail "cc could not build other_mpi_dlopen.c"
check dlopen "$work/program_dlopen" "$libmpi"
echo "other_mpi: passed"
