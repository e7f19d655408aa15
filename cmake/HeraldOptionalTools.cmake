# Optional tools that herald's scripts use beside the build, each probed with a real compile and link of a
# tiny MPI program, so that the configure step says what is available and what is skipped, and why:
#   SimGrid's smpicxx   bench/smpi (simulated clusters) and CI's SimGrid stage
#   the other MPI       HERALD_MPI=mpich|openmpi scripts/test.sh (a build and test run with that MPI)
# A compiler that works is remembered; one that fails is probed again at the next configure.
include_guard(GLOBAL)

# herald_probe_mpi_compiler(<what> <compiler> <result variable>): TRUE if <compiler> links an MPI program;
# otherwise FALSE, with the first error line in <result variable>_REASON.
function(herald_probe_mpi_compiler what compiler out)
  string(MAKE_C_IDENTIFIER "HERALD_PROBED_${what}" cached)
  if(${cached} STREQUAL compiler)
    set(${out} TRUE PARENT_SCOPE)
    return()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/probes/${what})
  file(WRITE ${dir}/probe.cpp [=[
#include <mpi.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Finalize();
  return rank;
}
]=])
  execute_process(COMMAND ${compiler} -std=c++20 ${dir}/probe.cpp -o ${dir}/probe
    RESULT_VARIABLE status OUTPUT_VARIABLE text ERROR_VARIABLE text TIMEOUT 120)
  if(status EQUAL 0)
    set(${cached} ${compiler} CACHE INTERNAL "${what} compiler that links MPI programs")
    set(${out} TRUE PARENT_SCOPE)
  else()
    string(REGEX MATCH "[^\n]*(error|cannot|No such)[^\n]*" reason "${text}")
    set(${out} FALSE PARENT_SCOPE)
    set(${out}_REASON "${reason}" PARENT_SCOPE)
  endif()
endfunction()

find_program(HERALD_SMPICXX smpicxx DOC "SimGrid's MPI compiler wrapper (bench/smpi)")
if(NOT HERALD_SMPICXX)
  message(STATUS "herald: SimGrid (smpicxx) not found, so bench/smpi cannot run; the build and tests do not "
                 "need it (HERALD_SIMGRID=1 scripts/setup.sh installs it)")
else()
  herald_probe_mpi_compiler(simgrid ${HERALD_SMPICXX} smpi_ok)
  if(smpi_ok)
    message(STATUS "herald: SimGrid ${HERALD_SMPICXX} links MPI programs: bench/smpi can run")
  else()
    message(STATUS "herald: SimGrid's ${HERALD_SMPICXX} cannot link an MPI program, so bench/smpi will not run "
                   "(reinstall libsimgrid-dev): ${smpi_ok_REASON}")
  endif()
endif()

if(HERALD_MPI_FLAVOR STREQUAL "mpich")
  set(_herald_other openmpi)
else()
  set(_herald_other mpich)
endif()
find_program(HERALD_OTHER_MPICXX mpicxx.${_herald_other} DOC "the other MPI's C++ wrapper")
if(NOT HERALD_OTHER_MPICXX)
  message(STATUS "herald: ${_herald_other} not found, so only ${HERALD_MPI_FLAVOR} can be tested here "
                 "(HERALD_MPI=both scripts/setup.sh installs both)")
else()
  herald_probe_mpi_compiler(${_herald_other} ${HERALD_OTHER_MPICXX} other_ok)
  if(other_ok)
    message(STATUS "herald: ${_herald_other} also links MPI programs: HERALD_MPI=${_herald_other} "
                   "scripts/test.sh builds and tests with it")
  else()
    message(STATUS "herald: ${HERALD_OTHER_MPICXX} cannot link an MPI program, so ${_herald_other} is not "
                   "usable here: ${other_ok_REASON}")
  endif()
endif()
