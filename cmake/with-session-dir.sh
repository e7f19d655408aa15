#!/bin/sh
# with-session-dir.sh COMMAND...: runs an MPI launch with a session directory of its own, made when the test
# starts and removed when it ends, so that launches run at once (ctest -j) never race in one directory and
# a build leaves nothing behind in TMPDIR. Open MPI is told to use it; other MPIs ignore the variable.
base=${TMPDIR:-/tmp}
# Open MPI puts Unix sockets inside, whose paths must stay short: a long TMPDIR falls back to /tmp.
[ "${#base}" -le 48 ] || base=/tmp
dir=$(mktemp -d "$base/herald-mpi.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
OMPI_MCA_orte_tmpdir_base=$dir "$@"
