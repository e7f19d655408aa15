# Installs headers, libraries, a CMake package (find_package(herald), one component per library) and a
# pkg-config file per library.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/herald DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The libraries of every layer this build has, each a component of the package (its EXPORT_NAME).
set(HERALD_INSTALL_TARGETS herald_schedule)
foreach(target herald herald_dyn_core herald_dyn herald_runtime_core herald_runtime herald_pmpi herald_balance)
  if(TARGET ${target})
    list(APPEND HERALD_INSTALL_TARGETS ${target})
  endif()
endforeach()
set(HERALD_COMPONENTS)
foreach(target IN LISTS HERALD_INSTALL_TARGETS)
  get_target_property(name ${target} EXPORT_NAME)
  list(APPEND HERALD_COMPONENTS ${name})
endforeach()
install(TARGETS ${HERALD_INSTALL_TARGETS} EXPORT heraldTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The C++ runtime a C linker leaves out (libstdc++ and libm with GCC): C programs linking herald's static
# archives need it named, in pkg-config's Libs.private and in the CMake package.
set(HERALD_CXX_RUNTIME_LIBS ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM HERALD_CXX_RUNTIME_LIBS ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
list(REMOVE_DUPLICATES HERALD_CXX_RUNTIME_LIBS)

set(HERALD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/herald)
install(EXPORT heraldTargets NAMESPACE herald:: DESTINATION ${HERALD_CMAKE_DIR})
# The build tree is a package too (herald_DIR=<build>): its targets, beside the config written there. The
# balancer is left out: in the build tree it links its logic as a separate archive, which only the installed
# library carries inside itself.
set(HERALD_BUILD_TREE_TARGETS ${HERALD_INSTALL_TARGETS})
list(REMOVE_ITEM HERALD_BUILD_TREE_TARGETS herald_balance)
export(TARGETS ${HERALD_BUILD_TREE_TARGETS} NAMESPACE herald:: FILE ${PROJECT_BINARY_DIR}/heraldTargets.cmake)
# The task runtime's worker threads: the package finds Threads for herald::runtime's users.
set(HERALD_HAS_RUNTIME OFF)
if(TARGET herald_runtime)
  set(HERALD_HAS_RUNTIME ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/heraldConfig.cmake.in
  ${PROJECT_BINARY_DIR}/heraldConfig.cmake INSTALL_DESTINATION ${HERALD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/heraldConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/heraldConfig.cmake ${PROJECT_BINARY_DIR}/heraldConfigVersion.cmake
  DESTINATION ${HERALD_CMAKE_DIR})

# pkg-config: paths relative to the .pc file (${pcfiledir}) so `cmake --install --prefix` anywhere works.
set(HERALD_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(HERALD_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(HERALD_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(HERALD_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _herald_pc_up "/${HERALD_PC_DIR}" "/")
  string(REGEX REPLACE "/$" "" _herald_pc_up "${_herald_pc_up}")
  set(HERALD_PC_PREFIX "\${pcfiledir}/${_herald_pc_up}")
  set(HERALD_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(HERALD_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

set(HERALD_PC_RUNTIME "")
foreach(lib IN LISTS HERALD_CXX_RUNTIME_LIBS)
  string(APPEND HERALD_PC_RUNTIME " -l${lib}")
endforeach()
string(STRIP "${HERALD_PC_RUNTIME}" HERALD_PC_RUNTIME)

# herald.pc: herald (MPI) and herald_schedule, or herald_schedule alone in a build without MPI. MPI comes
# from the implementation's own C module (Debian: ompi-c for Open MPI, mpich for MPICH), as herald uses
# MPI's C API only; any other MPI has its flags spelled out. Static archives list the dependent one first.
set(PC_NAME herald)
set(PC_DESCRIPTION "Fast broadcast for MPI programs and task runtimes")
set(PC_REQUIRES "")
set(PC_CFLAGS "-I\${includedir}")
set(PC_LIBS "-L\${libdir} -lherald_schedule")
set(HERALD_PC_MPI_FLAVOR none)
if(TARGET herald)
  set(PC_LIBS "-L\${libdir} -lherald -lherald_schedule")
  string(APPEND PC_CFLAGS " -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1")
  set(HERALD_PC_MPI_FLAVOR ${HERALD_MPI_FLAVOR})
  if(HERALD_MPI_FLAVOR STREQUAL "openmpi")
    set(PC_REQUIRES ompi-c)
  elseif(HERALD_MPI_FLAVOR STREQUAL "mpich")
    set(PC_REQUIRES mpich)
  else()
    foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
      string(APPEND PC_CFLAGS " -I${dir}")
    endforeach()
    foreach(lib IN LISTS MPI_C_LIBRARIES)
      string(APPEND PC_LIBS " ${lib}")
    endforeach()
  endif()
endif()
# A static link needs libotf2 (traces' archives) and the C++ runtime after herald's archives. When herald
# has static archives only, a link without --static picks them too, so then Libs names them as well.
set(HERALD_PC_STATIC_DEPS "${HERALD_PC_RUNTIME}")
if(TARGET herald AND OTF2_FOUND)
  string(JOIN " " HERALD_PC_STATIC_DEPS ${OTF2_LDFLAGS} ${HERALD_PC_RUNTIME})
endif()
if(BUILD_SHARED_LIBS)
  set(PC_LIBS_PRIVATE "${HERALD_PC_STATIC_DEPS}")
else()
  string(APPEND PC_LIBS " ${HERALD_PC_STATIC_DEPS}")
  set(PC_LIBS_PRIVATE "")
endif()
# Writes <name>.pc from herald.pc.in and adds it to HERALD_PC_FILES.
function(herald_pkg_config name description requires cflags libs libs_private)
  set(PC_NAME ${name})
  set(PC_DESCRIPTION "${description}")
  set(PC_REQUIRES "${requires}")
  set(PC_CFLAGS "${cflags}")
  set(PC_LIBS "${libs}")
  set(PC_LIBS_PRIVATE "${libs_private}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/herald.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc @ONLY)
  set(HERALD_PC_FILES ${HERALD_PC_FILES} ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc PARENT_SCOPE)
endfunction()

set(HERALD_PC_FILES)
herald_pkg_config(herald "${PC_DESCRIPTION}" "${PC_REQUIRES}" "${PC_CFLAGS}" "${PC_LIBS}" "${PC_LIBS_PRIVATE}")

# herald-dyn.pc: the dynamic broadcast (herald_dyn and herald_dyn_core) on top of herald.pc, whose
# Libs.private come after.
if(TARGET herald_dyn_core)
  set(libs "-L\${libdir} -lherald_dyn_core")
  if(TARGET herald_dyn)
    set(libs "-L\${libdir} -lherald_dyn -lherald_dyn_core")
  endif()
  herald_pkg_config(herald-dyn "herald's dynamic broadcast: active messages for task runtimes" herald
                    "-I\${includedir}" "${libs}" "")
endif()

# herald-runtime.pc: the task runtime (herald_runtime and its MPI-free core) on top of herald-dyn.pc.
if(TARGET herald_runtime)
  herald_pkg_config(herald-runtime "herald's distributed task runtime" herald-dyn "-I\${includedir} -pthread"
                    "-L\${libdir} -lherald_runtime -lherald_runtime_core -pthread" "")
endif()

# herald-balance.pc: libherald_balance, always shared and self-contained (its MPI, hwloc and herald code
# are its own dependencies); HERALD_BALANCE_LINKED makes herald_balanced() call it directly.
if(TARGET herald_balance)
  herald_pkg_config(herald-balance "herald's balancer of OpenMP threads between the MPI processes of a node" ""
                    "-I\${includedir} -DHERALD_BALANCE_LINKED=1" "-L\${libdir} -lherald_balance" "")
endif()
install(FILES ${HERALD_PC_FILES} DESTINATION ${HERALD_PC_DIR})
