#!/bin/sh
# with-session-dir.sh COMMAND...: runs an MPI launch with a session directory of its own, made when the test
# starts and removed when it ends, so that launches run at once (ctest -j) never race in one directory and
# a build leaves nothing behind in TMPDIR. Open MPI is told to use it; other MPIs ignore the variable. A
# launch that ctest kills at its timeout (SIGKILL) leaves its folder: only a failed test does.
base=${TMPDIR:-/tmp}
# Open MPI puts Unix sockets inside (<base>/herald-mpi.XXXXXX/ompi.<host>.<uid>/...), whose paths must stay
# under 108 bytes: a long TMPDIR falls back to /tmp.
[ "${#base}" -le 32 ] || base=/tmp
dir=$(mktemp -d "$base/herald-mpi.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
# When a process exits non-zero (a refused command line exits 2 after MPI_Finalize) Open MPI's launcher
# ends the job, giving each process still there a second between SIGTERM and SIGKILL, and took 2.4 s
# where a clean run takes 0.5: a test that is one refusal paid that per launch. The tests need no grace
# period (a test's own checks are on what the processes printed before exiting).
# Open MPI's MPI_Init opens every point-to-point layer it has and keeps the best; on one node that is ob1
# (shared memory), but opening cm and ucx (libfabric's and UCX's probes) took 0.23 s of a 0.36 s launch,
# and the MPI tests are hundreds of launches (the mpi label: 182 s, 121 s without them). A user's
# OMPI_MCA_pml wins.
OMPI_MCA_pml=${OMPI_MCA_pml:-^cm,ucx} OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-0} \
  OMPI_MCA_orte_tmpdir_base=$dir "$@"
