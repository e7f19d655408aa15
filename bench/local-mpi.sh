# The MPI of a build, for the benchmark scripts that launch on this one machine (sourced, not run):
#
#   local_mpi BUILD   sets mpiexec (the build's launcher) and mpi (openmpi or mpich), and keeps Open MPI's
#                     launcher from probing X displays (hwloc's "gl" plugin), which can wait on DNS
#   launch_flags P    sets flags, mpiexec's options for P ranks: as root and with more ranks than cores,
#                     Open MPI must be told; MPICH's Hydra needs neither
local_mpi() {
  mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$1/CMakeCache.txt")
  [[ -n $mpiexec ]] || mpiexec=mpiexec
  if "$mpiexec" --version 2>&1 | grep -q -E "Open MPI|OpenRTE"; then mpi=openmpi; else mpi=mpich; fi
  export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}
}

launch_flags() {
  flags=(-n "$1")
  if [[ $mpi == openmpi ]]; then
    if [[ $(id -u) -eq 0 ]]; then flags+=(--allow-run-as-root); fi
    if (($1 > $(nproc))); then flags+=(--oversubscribe); fi
  fi
}
