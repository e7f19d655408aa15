#!/usr/bin/env bash
# Usage: .ci/rerun-lsan-crashes.sh BUILD_DIR
# After a failed sanitizer ctest run: reruns, once, the failed tests whose only fault was LeakSanitizer's
# own stop-the-world tracer crashing at exit ("Tracer caught signal 11 ... LeakSanitizer has encountered a
# fatal error"). That crash is a known race in the sanitizer runtime with threads still alive at exit (Open
# MPI's progress threads); it reports nothing about the program. A test that failed any other way (a leak
# report, a sanitizer error, a failed assertion, a timeout) makes this script fail without rerunning
# anything, and a rerun must pass.
set -euo pipefail

build=${1:?usage: rerun-lsan-crashes.sh BUILD_DIR}
failed_list=$build/Testing/Temporary/LastTestsFailed.log
log=$build/Testing/Temporary/LastTest.log
[[ -s $failed_list && -s $log ]] || { echo "rerun-lsan-crashes: no failed tests recorded in $build" >&2; exit 1; }

names=()
while IFS=: read -r _ name; do
  [[ -n $name ]] || continue
  # The test's section of the log: from its "Testing: NAME" line to its "NAME" end time line.
  output=$(awk -v n="$name" '
    $0 ~ ("Testing: " n "$") { on = 1 }
    on { print }
    on && index($0, "\"" n "\" end time:") == 1 { exit }' "$log")
  if ! grep -q 'Tracer caught signal' <<<"$output" ||
     grep -qE 'ERROR: (LeakSanitizer|AddressSanitizer)|runtime error:|\[  FAILED  \]|Timeout|\*\*\*Exception' <<<"$output"; then
    echo "rerun-lsan-crashes: $name failed for a reason other than the tracer crash" >&2
    exit 1
  fi
  names+=("$name")
done <"$failed_list"

# As scripts/test.sh sets them for ctest.
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}

regex="^($(IFS='|'; echo "${names[*]}"))\$"
echo "rerun-lsan-crashes: rerunning ${#names[@]} test(s) whose only failure was LeakSanitizer's tracer crash at exit: ${names[*]}"
ctest --test-dir "$build" --output-on-failure --no-tests=error -R "$regex"
