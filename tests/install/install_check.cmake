# cmake -DSETTINGS=<install_settings.cmake> -P install_consumer.cmake
# Installs herald's build into a scratch prefix, builds examples/consumer against it twice (CMake package,
# pkg-config) and runs both builds under mpiexec. Prints "install_consumer: passed" when all went well.
include(${SETTINGS})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " line "${ARGN}")
    message(FATAL_ERROR "install_consumer: ${what} failed (${status}): ${line}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

# The consumer run by mpiexec on 3 ranks must report success from rank 0.
function(run_consumer program)
  run("running ${program}" ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 3 ${MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS}
      ${program} ${MPIEXEC_POSTFLAGS})
  if(NOT output MATCHES "herald-consumer: ok ranks=3")
    message(FATAL_ERROR "install_consumer: ${program} did not report success")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

run("cmake --install" ${CMAKE_COMMAND} --install ${HERALD_BUILD_DIR} --prefix ${prefix})
foreach(file include/herald/bcast.hpp include/herald/herald.h ${INSTALL_LIBDIR}/cmake/herald/heraldConfig.cmake
             ${INSTALL_LIBDIR}/pkgconfig/herald.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "install_consumer: ${file} was not installed")
  endif()
endforeach()

# 1. CMake: find_package(herald) from the installed prefix only (the package finds its own MPI).
string(REPLACE ";" " " flags "${CONSUMER_FLAGS}")
run("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/consumer-cmake
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer-cmake)
run_consumer(${WORK_DIR}/consumer-cmake/herald-consumer)

# 2. pkg-config: a plain compiler command line, as a Makefile would write it.
set(ENV{PKG_CONFIG_PATH} ${prefix}/${INSTALL_LIBDIR}/pkgconfig)
run("pkg-config --modversion" ${PKG_CONFIG} --modversion herald)
string(STRIP "${output}" version)
if(NOT version STREQUAL HERALD_VERSION)
  message(FATAL_ERROR "install_consumer: pkg-config reports version '${version}', expected ${HERALD_VERSION}")
endif()
run("pkg-config --cflags --libs" ${PKG_CONFIG} --cflags --libs herald)
separate_arguments(pc_flags UNIX_COMMAND "${output}")
run("compiling with pkg-config flags" ${CXX_COMPILER} -std=c++20 ${CONSUMER_FLAGS}
    ${CONSUMER_SOURCE_DIR}/main.cpp ${pc_flags} -o ${WORK_DIR}/herald-consumer-pkgconfig)
run_consumer(${WORK_DIR}/herald-consumer-pkgconfig)

message("install_consumer: passed")
