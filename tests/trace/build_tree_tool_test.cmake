# The build tree's herald-trace run as a program (its #! line and its mode, as docs/tracing.md runs it) on
# a copy of a trace: it must exit 0 and write gantt.png (a PNG) and summary.txt beside the trace.
#
#   cmake -DTOOL=<build>/apps/herald-trace/herald-trace -DTRACE=<trace.json> -DOUT=<scratch dir> -P this file
foreach(var TOOL TRACE OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_tree_tool_test.cmake: -D${var}=... is missing")
  endif()
endforeach()
if(NOT EXISTS "${TOOL}")
  message(FATAL_ERROR "${TOOL}: no such file; the build tree does not hold herald-trace")
endif()

file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
file(COPY "${TRACE}" DESTINATION "${OUT}")
# Headless, as in a batch job: the tool chooses matplotlib's Agg backend itself.
unset(ENV{DISPLAY})
unset(ENV{MPLBACKEND})
execute_process(COMMAND "${TOOL}" "${OUT}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 100)
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "${TOOL} ${OUT}: exit status ${status}\nstdout:\n${out}\nstderr:\n${err}")
endif()

foreach(name gantt.png summary.txt)
  if(NOT EXISTS "${OUT}/${name}")
    message(FATAL_ERROR "${TOOL} ${OUT} did not write ${OUT}/${name}\nstderr:\n${err}")
  endif()
endforeach()
file(READ "${OUT}/gantt.png" signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${OUT}/gantt.png is not a PNG (it starts with ${signature})")
endif()
file(READ "${OUT}/summary.txt" summary)
foreach(pattern "^herald-trace summary: " "critical path: [0-9]+ steps" "strategy dynbcast +broadcasts +[1-9]")
  if(NOT summary MATCHES "${pattern}")
    message(FATAL_ERROR "${OUT}/summary.txt does not match '${pattern}':\n${summary}")
  endif()
endforeach()
if(NOT summary STREQUAL out)
  message(FATAL_ERROR "summary.txt differs from what ${TOOL} printed")
endif()
message(STATUS "${TOOL}: wrote ${OUT}/gantt.png and ${OUT}/summary.txt")
