# herald_reuse_pch(<directory> <owner> <regex>): every C++ program defined in <directory> and below whose
# link libraries match <regex> compiles with <owner>'s precompiled header. The owner is a program, so its
# flags (-fPIE, the sanitizers, HERALD_PROGRAM_FLAGS) are those of the programs that reuse it, as GCC requires
# (-Winvalid-pch, which CMake adds, warns of a mismatch). Left out: libraries (-fPIC), programs with C
# sources (a C header would be needed) and with OpenMP (GCC refuses a header precompiled without _OPENMP).
function(herald_reuse_pch dir owner regex)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    get_target_property(type ${target} TYPE)
    get_target_property(sources ${target} SOURCES)
    if(type STREQUAL "EXECUTABLE" AND NOT target STREQUAL owner AND libraries MATCHES "${regex}"
       AND NOT libraries MATCHES "OpenMP|libomp" AND NOT sources MATCHES "\\.c(;|$)")
      target_precompile_headers(${target} REUSE_FROM ${owner})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    herald_reuse_pch(${subdir} ${owner} "${regex}")
  endforeach()
endfunction()
