# cmake -DSETTINGS=<install_settings.cmake> -DSTEP=<step> -P install_check.cmake
# One step of the install tests; each prints "install <step>: passed" when all went well.
#   install      `cmake --install` of herald's build into a scratch prefix (the other steps use it)
#   cxx-cmake    examples/consumer (C++) with find_package(herald)
#   cxx-pkgconfig  the same program compiled by a plain compiler command with pkg-config's flags
#   c-cmake      examples/c-client, a C-only CMake project, with find_package(herald)
#   c-pkgconfig  the same C program with nothing but the MPI C compiler wrapper and pkg-config
#   balance-cmake, balance-pkgconfig   examples/balance-client with herald::balance, with herald-balance.pc
#   runtime-cmake, runtime-pkgconfig   examples/runtime-client (the task runtime) with herald::runtime, with
#                herald-runtime.pc
#   build-tree   examples/consumer with find_package(herald) pointed at herald's build directory (herald_DIR)
#   static-install  herald built with BUILD_SHARED_LIBS=OFF (libraries only, unoptimised) and installed
#   static       the C program linked against it with `pkg-config --static` and as a C-only CMake project
# Every program built runs under mpiexec and must report success from rank 0.
cmake_minimum_required(VERSION 3.25)
include(${SETTINGS})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " line "${ARGN}")
    message(FATAL_ERROR "install ${STEP}: ${what} failed (${status}): ${line}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

# Runs program on `ranks` ranks; rank 0 must print `expected`.
function(run_program program ranks expected)
  run("running ${program}" ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS}
      ${program} ${MPIEXEC_POSTFLAGS})
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "install ${STEP}: ${program} did not print '${expected}'")
  endif()
endfunction()

# Configures and builds examples/<example> against <prefix> with find_package(herald).
function(build_with_cmake example prefix build)
  string(REPLACE ";" " " flags "${CONSUMER_FLAGS}")
  file(REMOVE_RECURSE ${build})
  run("configuring ${example}" ${CMAKE_COMMAND} --no-warn-unused-cli -S ${EXAMPLES_DIR}/${example} -B ${build}
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
  run("building ${example}" ${CMAKE_COMMAND} --build ${build})
endfunction()

# pkg-config's answer for the modules of <prefix>, as a list of arguments.
function(pkg_config prefix)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${INSTALL_LIBDIR}/pkgconfig)
  run("pkg-config ${ARGN}" ${PKG_CONFIG} ${ARGN})
  separate_arguments(flags UNIX_COMMAND "${output}")
  set(pc_flags ${flags} PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(work ${WORK_DIR}/${STEP})
# The static herald's prefix, written by the static-install step and read by the static step.
set(static_prefix ${WORK_DIR}/static-install/prefix)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})
# The programs find herald's shared libraries in the scratch prefix as a user's would: by their RPATH.
set(rpath -Wl,-rpath,${prefix}/${INSTALL_LIBDIR})

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${prefix})
  run("cmake --install" ${CMAKE_COMMAND} --install ${HERALD_BUILD_DIR} --prefix ${prefix})
  set(expected include/herald/bcast.hpp include/herald/herald.h ${INSTALL_LIBDIR}/cmake/herald/heraldConfig.cmake
      ${INSTALL_LIBDIR}/pkgconfig/herald.pc ${INSTALL_LIBDIR}/pkgconfig/herald-dyn.pc
      ${INSTALL_LIBDIR}/pkgconfig/herald-runtime.pc include/herald/runtime/runtime.hpp)
  if(HAVE_BALANCE)
    list(APPEND expected ${INSTALL_LIBDIR}/pkgconfig/herald-balance.pc)
  endif()
  foreach(file IN LISTS expected)
    if(NOT EXISTS ${prefix}/${file})
      message(FATAL_ERROR "install ${STEP}: ${file} was not installed")
    endif()
  endforeach()
  pkg_config(${prefix} --modversion herald)
  if(NOT pc_flags STREQUAL HERALD_VERSION)
    message(FATAL_ERROR "install ${STEP}: pkg-config reports version '${pc_flags}', expected ${HERALD_VERSION}")
  endif()
  # Installed libraries and programs find herald's shared libraries in the prefix by themselves: the PMPI
  # library, preloaded into programs built without herald, and the programs in bin/.
  file(GLOB pmpi ${prefix}/${INSTALL_LIBDIR}/libherald_pmpi.so)
  file(GLOB herald_so ${prefix}/${INSTALL_LIBDIR}/libherald.so)
  if(pmpi AND herald_so)
    run("ldd libherald_pmpi.so" ldd ${pmpi})
    string(FIND "${output}" "libherald.so.0 => ${prefix}/" found)
    if(found EQUAL -1)
      message(FATAL_ERROR "install ${STEP}: the installed libherald_pmpi.so does not find the installed libherald.so.0")
    endif()
  endif()
  if(EXISTS ${prefix}/bin/herald-sim)
    run("the installed herald-sim" ${prefix}/bin/herald-sim --help)
  endif()
  # herald-info runs without mpiexec, and its --json is JSON that lists the settings.
  if(HAVE_INFO)
    execute_process(COMMAND ${prefix}/bin/herald-info --json RESULT_VARIABLE status OUTPUT_VARIABLE json
                    ERROR_VARIABLE err)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "install ${STEP}: the installed bin/herald-info --json failed (${status}): ${err}")
    endif()
    string(JSON settings ERROR_VARIABLE problem LENGTH "${json}" settings)
    if(problem OR NOT settings GREATER 0)
      message(FATAL_ERROR "install ${STEP}: the installed herald-info --json does not list settings: ${problem}")
    endif()
  endif()
  # herald-dyn.pc resolves (it requires herald.pc) and names both dyn libraries.
  pkg_config(${prefix} --libs herald-dyn)
  if(NOT "-lherald_dyn" IN_LIST pc_flags OR NOT "-lherald_dyn_core" IN_LIST pc_flags)
    message(FATAL_ERROR "install ${STEP}: pkg-config --libs herald-dyn gives '${pc_flags}'")
  endif()

elseif(STEP STREQUAL "cxx-cmake")
  build_with_cmake(consumer ${prefix} ${work}/build)
  run_program(${work}/build/herald-consumer 3 "herald-consumer: ok ranks=3")

elseif(STEP STREQUAL "cxx-pkgconfig")
  # A plain compiler command line, as a Makefile would write it.
  pkg_config(${prefix} --cflags --libs herald)
  run("compiling with pkg-config flags" ${CXX_COMPILER} -std=c++20 ${CONSUMER_FLAGS}
      ${EXAMPLES_DIR}/consumer/main.cpp ${pc_flags} ${rpath} -o ${work}/herald-consumer)
  run_program(${work}/herald-consumer 3 "herald-consumer: ok ranks=3")

elseif(STEP STREQUAL "c-cmake")
  build_with_cmake(c-client ${prefix} ${work}/build)
  run_program(${work}/build/herald-c-client 3 "herald-c-client: ok ranks=3")

elseif(STEP STREQUAL "c-pkgconfig")
  pkg_config(${prefix} --cflags --libs herald)
  run("compiling with mpicc and pkg-config" ${MPI_C_COMPILER} ${CONSUMER_FLAGS}
      ${EXAMPLES_DIR}/c-client/client.c ${pc_flags} ${rpath} -o ${work}/herald-c-client)
  run_program(${work}/herald-c-client 3 "herald-c-client: ok ranks=3")

elseif(STEP STREQUAL "balance-cmake")
  build_with_cmake(balance-client ${prefix} ${work}/build)
  run_program(${work}/build/herald-balance-client 2 "herald-balance-client: ok ranks=2")

elseif(STEP STREQUAL "balance-pkgconfig")
  pkg_config(${prefix} --cflags --libs herald-balance)
  run("compiling with mpicc and pkg-config" ${MPI_C_COMPILER} ${CONSUMER_FLAGS}
      ${EXAMPLES_DIR}/balance-client/main.c ${pc_flags} ${rpath} -o ${work}/herald-balance-client)
  run_program(${work}/herald-balance-client 2 "herald-balance-client: ok ranks=2")

elseif(STEP STREQUAL "runtime-cmake")
  build_with_cmake(runtime-client ${prefix} ${work}/build)
  run_program(${work}/build/herald-runtime-client 3 "herald-runtime-client: ok ranks=3")

elseif(STEP STREQUAL "runtime-pkgconfig")
  pkg_config(${prefix} --cflags --libs herald-runtime)
  run("compiling with pkg-config flags" ${CXX_COMPILER} -std=c++20 ${CONSUMER_FLAGS}
      ${EXAMPLES_DIR}/runtime-client/main.cpp ${pc_flags} ${rpath} -o ${work}/herald-runtime-client)
  run_program(${work}/herald-runtime-client 3 "herald-runtime-client: ok ranks=3")

elseif(STEP STREQUAL "build-tree")
  # No install: the build directory's own package, as `-Dherald_DIR=<build>` finds it.
  string(REPLACE ";" " " flags "${CONSUMER_FLAGS}")
  run("configuring consumer against the build tree" ${CMAKE_COMMAND} --no-warn-unused-cli
      -S ${EXAMPLES_DIR}/consumer -B ${work}/build -Dherald_DIR=${HERALD_BUILD_DIR}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
  run("building consumer against the build tree" ${CMAKE_COMMAND} --build ${work}/build)
  run_program(${work}/build/herald-consumer 3 "herald-consumer: ok ranks=3")

elseif(STEP STREQUAL "static-install")
  # Only the libraries the C program links, with this build's compilers and MPI. Build type None (no
  # optimisation, no debug information): the step checks how static archives are built, installed and
  # linked, not their speed, and unoptimised they compile in about a third of the time.
  run("configuring a static herald" ${CMAKE_COMMAND} -S ${HERALD_SOURCE_DIR} -B ${work}/herald
      -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=OFF -DHERALD_BUILD_TESTS=OFF -DHERALD_BUILD_APPS=OFF
      -DHERALD_WITH_BALANCE=OFF -DHERALD_WITH_RUNTIME=OFF -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      -DMPI_C_COMPILER=${MPI_C_COMPILER} -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER} -DMPIEXEC_EXECUTABLE=${MPIEXEC})
  run("building a static herald" ${CMAKE_COMMAND} --build ${work}/herald --parallel ${BUILD_JOBS})
  run("installing a static herald" ${CMAKE_COMMAND} --install ${work}/herald --prefix ${static_prefix})
  file(GLOB shared ${static_prefix}/${INSTALL_LIBDIR}/libherald.so*)
  if(shared)
    message(FATAL_ERROR "install ${STEP}: BUILD_SHARED_LIBS=OFF installed ${shared}")
  endif()

elseif(STEP STREQUAL "static")
  # The static herald that the static-install step installed.
  # The instrumented archives would need the sanitizer runtimes: this step builds without them.
  pkg_config(${static_prefix} --static --cflags --libs herald)
  run("compiling with mpicc and pkg-config --static" ${MPI_C_COMPILER}
      ${EXAMPLES_DIR}/c-client/client.c ${pc_flags} -o ${work}/herald-c-client)
  run_program(${work}/herald-c-client 2 "herald-c-client: ok ranks=2")
  set(CONSUMER_FLAGS "")
  build_with_cmake(c-client ${static_prefix} ${work}/c-cmake)
  run_program(${work}/c-cmake/herald-c-client 2 "herald-c-client: ok ranks=2")

else()
  message(FATAL_ERROR "install_check.cmake: unknown STEP '${STEP}'")
endif()
message("install ${STEP}: passed")
