# Installs headers, libraries, a CMake package (find_package(herald)) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/herald DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(HERALD_INSTALL_TARGETS herald_schedule)
if(TARGET herald)
  list(APPEND HERALD_INSTALL_TARGETS herald)
endif()
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

configure_file(${PROJECT_SOURCE_DIR}/cmake/herald.pc.in ${PROJECT_BINARY_DIR}/herald.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/herald.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
