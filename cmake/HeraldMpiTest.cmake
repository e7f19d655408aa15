# MPI tests: which MPI this build uses, and how a test runs under its launcher.
#
# Included right after find_package(MPI). Sets, for tests and install files:
#   HERALD_MPI_FLAVOR          openmpi | mpich | other   (cache; detected from mpi.h, may be given with -D)
#   HERALD_MPI_TEST_MAX_RANKS  largest P the MPI tests should launch (8; 3 for MPICH, which busy-polls
#                              when ranks outnumber cores)
#   HERALD_MPIEXEC_FLAGS       launcher flags every MPI test passes (Open MPI: oversubscribe, allow root)
# and defines
#   herald_add_mpi_test(NAME name COMMAND target|/absolute/program [args...] RANKS n TIMEOUT seconds
#                       [LABELS label...] [ENVIRONMENT VAR=value...])
#
# Selecting the MPI: FindMPI follows the compiler wrappers. On Debian with both MPIs installed, Open MPI is
# the default and MPICH is chosen with -DMPI_EXECUTABLE_SUFFIX=.mpich (mpicc.mpich, mpicxx.mpich and
# mpiexec.mpich), or by naming them: -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich
# -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich. Use a fresh build directory per MPI.
include_guard(GLOBAL)
include(CheckSymbolExists)

# The library's flavour, from the macros its mpi.h defines (MPICH derivatives define MPICH_VERSION too).
function(_herald_detect_mpi_flavor out)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
  set(CMAKE_REQUIRED_QUIET ON)
  check_symbol_exists(OPEN_MPI mpi.h HERALD_MPI_H_IS_OPEN_MPI)
  check_symbol_exists(MPICH_VERSION mpi.h HERALD_MPI_H_IS_MPICH)
  if(HERALD_MPI_H_IS_OPEN_MPI)
    set(${out} openmpi PARENT_SCOPE)
  elseif(HERALD_MPI_H_IS_MPICH)
    set(${out} mpich PARENT_SCOPE)
  else()
    set(${out} other PARENT_SCOPE)
  endif()
endfunction()

# The launcher's flavour, from `mpiexec --version` (Open MPI's says "Open MPI" or "OpenRTE", MPICH's Hydra
# says "HYDRA").
function(_herald_detect_mpiexec_flavor out)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
    OUTPUT_VARIABLE text ERROR_VARIABLE text RESULT_VARIABLE status TIMEOUT 30)
  if(text MATCHES "Open MPI|OpenRTE")
    set(${out} openmpi PARENT_SCOPE)
  elseif(text MATCHES "HYDRA")
    set(${out} mpich PARENT_SCOPE)
  else()
    set(${out} other PARENT_SCOPE)
  endif()
endfunction()

if(NOT DEFINED HERALD_MPI_FLAVOR)
  _herald_detect_mpi_flavor(_herald_flavor)
  set(HERALD_MPI_FLAVOR ${_herald_flavor} CACHE STRING "MPI implementation: openmpi, mpich or other")
  set_property(CACHE HERALD_MPI_FLAVOR PROPERTY STRINGS openmpi mpich other)
endif()

# A launcher from the other MPI starts P singletons instead of one job of P ranks: refuse that up front.
_herald_detect_mpiexec_flavor(_herald_launcher_flavor)
if(NOT HERALD_MPI_FLAVOR STREQUAL "other" AND NOT _herald_launcher_flavor STREQUAL "other"
   AND NOT HERALD_MPI_FLAVOR STREQUAL _herald_launcher_flavor)
  message(FATAL_ERROR
    "herald: the MPI library is ${HERALD_MPI_FLAVOR} (${MPI_C_COMPILER}) but the launcher "
    "${MPIEXEC_EXECUTABLE} is ${_herald_launcher_flavor}. Configure a fresh build directory with "
    "-DMPI_EXECUTABLE_SUFFIX=.mpich (or .openmpi), or set MPIEXEC_EXECUTABLE to the matching mpiexec.")
endif()
message(STATUS "herald: MPI flavour ${HERALD_MPI_FLAVOR}, launcher ${MPIEXEC_EXECUTABLE}")

if(HERALD_MPI_FLAVOR STREQUAL "mpich")
  set(_herald_max_ranks 3)
else()
  set(_herald_max_ranks 8)
endif()
set(HERALD_MPI_TEST_MAX_RANKS ${_herald_max_ranks} CACHE STRING "Largest number of ranks an MPI test launches")

# Open MPI refuses more ranks than cores without --oversubscribe, and refuses root without
# --allow-run-as-root (CI runs as root). MPICH's Hydra needs neither and rejects both.
set(HERALD_MPIEXEC_FLAGS "")
if(HERALD_MPI_FLAVOR STREQUAL "openmpi")
  set(HERALD_MPIEXEC_FLAGS --oversubscribe --allow-run-as-root)
endif()

# Under HERALD_SANITIZE with GCC, the sanitizer runtime is a shared library that must be the first one
# loaded: a test that preloads libraries gets it put in front of them, and the preload is handed to the
# ranks through the launcher rather than the environment, so the (uninstrumented) launcher does not run
# the sanitizer itself.
set(HERALD_ASAN_RUNTIME "")
if(HERALD_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
    OUTPUT_VARIABLE HERALD_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

set(HERALD_WITH_SESSION_DIR ${CMAKE_CURRENT_LIST_DIR}/with-session-dir.sh)

function(herald_add_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;RANKS;TIMEOUT" "COMMAND;LABELS;ENVIRONMENT;CONTROLS")
  foreach(required NAME COMMAND RANKS TIMEOUT)
    if(NOT DEFINED arg_${required})
      message(FATAL_ERROR "herald_add_mpi_test: ${required} is required")
    endif()
  endforeach()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "herald_add_mpi_test(${arg_NAME}): unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  list(POP_FRONT arg_COMMAND target)
  if(TARGET ${target})
    set(program $<TARGET_FILE:${target}>)
  elseif(IS_ABSOLUTE "${target}" AND EXISTS "${target}")
    set(program ${target})  # a program built elsewhere, such as an interpreter
  else()
    message(FATAL_ERROR "herald_add_mpi_test(${arg_NAME}): COMMAND must start with a target or an absolute path, got ${target}")
  endif()
  if(NOT arg_RANKS MATCHES "^[1-9][0-9]*$" OR NOT arg_TIMEOUT MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "herald_add_mpi_test(${arg_NAME}): RANKS and TIMEOUT must be positive integers")
  endif()

  set(rank_env "")
  if(HERALD_ASAN_RUNTIME AND HERALD_MPI_FLAVOR MATCHES "^(openmpi|mpich)$")
    set(environment "")
    foreach(entry IN LISTS arg_ENVIRONMENT)
      if(entry MATCHES "^LD_PRELOAD=(.*)$")
        if(HERALD_MPI_FLAVOR STREQUAL "openmpi")
          list(APPEND rank_env -x "LD_PRELOAD=${HERALD_ASAN_RUNTIME}:${CMAKE_MATCH_1}")
        else()
          list(APPEND rank_env -genv LD_PRELOAD "${HERALD_ASAN_RUNTIME}:${CMAKE_MATCH_1}")
        endif()
      else()
        list(APPEND environment "${entry}")
      endif()
    endforeach()
    set(arg_ENVIRONMENT "${environment}")
  elseif(HERALD_ASAN_RUNTIME)
    list(TRANSFORM arg_ENVIRONMENT REPLACE "^LD_PRELOAD=" "LD_PRELOAD=${HERALD_ASAN_RUNTIME}:")
  endif()

  # Open MPI's launcher loads hwloc's "gl" plugin, which probes X displays over TCP on "localhost": where
  # /etc/hosts does not name localhost (a new chroot) each launch can wait on DNS timeouts (scripts/test.sh).
  list(APPEND arg_ENVIRONMENT "HWLOC_COMPONENTS=-gl")

  # CONTROLS replicated: the same test again as <NAME>_replicated, with the runtime under replicated control
  # (HERALD_RUNTIME_CONTROL); herald_test_properties sets both tests' properties.
  set(variants ${arg_NAME})
  if("replicated" IN_LIST arg_CONTROLS)
    list(APPEND variants ${arg_NAME}_replicated)
  endif()
  foreach(name IN LISTS variants)
    set(environment ${arg_ENVIRONMENT})
    set(labels mpi ${arg_LABELS})
    if(NOT name STREQUAL arg_NAME)
      list(APPEND environment "HERALD_RUNTIME_CONTROL=replicated")
      list(APPEND labels replicated twin)
      # The twin may run at the same time as its original (ctest -j): a trace directory of its own.
      list(TRANSFORM environment REPLACE "^(HERALD_TEST_TRACE_DIR=.+)$" "\\1-replicated")
    endif()
    # Open MPI's launchers of tests run at once (ctest -j) create their session directories under one
    # /tmp/ompi.<host>.<uid> and race there ("mkdir ... File exists", orte_init failed): each launch gets a
    # base of its own, made when it starts and removed when it ends (with-session-dir.sh).
    add_test(NAME ${name}
      COMMAND /bin/sh ${HERALD_WITH_SESSION_DIR} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${arg_RANKS} ${HERALD_MPIEXEC_FLAGS} ${rank_env}
              ${MPIEXEC_PREFLAGS} ${program} ${MPIEXEC_POSTFLAGS} ${arg_COMMAND})
    # PROCESSORS keeps `ctest -j` from stacking several oversubscribed launches on the same cores.
    set_tests_properties(${name} PROPERTIES
      TIMEOUT ${arg_TIMEOUT}
      LABELS "${labels}"
      PROCESSORS ${arg_RANKS}
      ENVIRONMENT "${environment}")
  endforeach()
endfunction()

# set_tests_properties for a test and, where herald_add_mpi_test made one, its replicated twin.
function(herald_test_properties name)
  set_tests_properties(${name} ${ARGN})
  if(TEST ${name}_replicated)
    set_tests_properties(${name}_replicated ${ARGN})
  endif()
endfunction()
