#!/bin/sh
# Runs a program and prints how it exited, then exits 0: run under mpiexec, every rank's exit status shows
# in the output (mpiexec itself reports only the first non-zero one).
"$@"
echo "exit status $?"
