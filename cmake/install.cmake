# Installs headers, libraries, a CMake package (find_package(herald)) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/herald DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The libraries of every layer this build has (herald_balance, the OMPT tool, has an install rule of its own).
set(HERALD_INSTALL_TARGETS herald_schedule)
foreach(target herald herald_dyn_core herald_dyn herald_pmpi)
  if(TARGET ${target})
    list(APPEND HERALD_INSTALL_TARGETS ${target})
  endif()
endforeach()
install(TARGETS ${HERALD_INSTALL_TARGETS} EXPORT heraldTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(HERALD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/herald)
install(EXPORT heraldTargets NAMESPACE herald:: DESTINATION ${HERALD_CMAKE_DIR})
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
# Static archives list the dependent one last. MPI comes from the implementation's own .pc file: Open MPI
# ships ompi-cxx (herald links MPI's C++ target), MPICH ships mpich. Any other MPI: its flags spelled out.
set(HERALD_PC_REQUIRES "")
set(HERALD_PC_EXTRA_CFLAGS "")
set(HERALD_PC_LIBS " -lherald_schedule")
set(HERALD_PC_MPI_FLAVOR none)
if(TARGET herald)
  set(HERALD_PC_LIBS " -lherald -lherald_schedule")
  set(HERALD_PC_MPI_FLAVOR ${HERALD_MPI_FLAVOR})
  if(HERALD_MPI_FLAVOR STREQUAL "openmpi")
    set(HERALD_PC_REQUIRES ompi-cxx)
  elseif(HERALD_MPI_FLAVOR STREQUAL "mpich")
    set(HERALD_PC_REQUIRES mpich)
  else()
    foreach(dir IN LISTS MPI_CXX_INCLUDE_DIRS)
      string(APPEND HERALD_PC_EXTRA_CFLAGS " -I${dir}")
    endforeach()
    foreach(lib IN LISTS MPI_CXX_LIBRARIES)
      string(APPEND HERALD_PC_LIBS " ${lib}")
    endforeach()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/herald.pc.in ${PROJECT_BINARY_DIR}/herald.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/herald.pc DESTINATION ${HERALD_PC_DIR})
