#!/usr/bin/env python3
"""Counts the test cases of a configured and built tree, per ctest label.

    bench/ci/count_tests.py [--build-dir build] [--json]

A ctest entry counts once; an entry that runs a GoogleTest program counts the cases that program runs (its
--gtest_list_tests under the entry's own --gtest_filter), so that merging entries or programs never hides
a case that stopped running. Entries under a launcher (mpiexec -n P program ...) are counted through the
program they launch. One line per label: "label: N entries, M cases"; an entry with several labels counts
under each. Compare the output before and after a change to the tests: no label's cases may drop.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402


def gtest_cases(program, args, env, cache):
    """The number of cases `program args` runs, or None when it is not a GoogleTest program."""
    filters = [a for a in args if a.startswith("--gtest_filter=")]
    # One case named exactly, as gtest_discover_tests writes each entry: no need to ask the program.
    if len(filters) == 1 and not any(c in filters[0].split("=", 1)[1] for c in "*?:-"):
        return 1
    key = (program, tuple(filters))
    if key in cache:
        return cache[key]
    count = None
    try:
        with open(program, "rb") as f:
            is_gtest = b"gtest_list_tests" in f.read()
    except OSError:
        is_gtest = False
    if is_gtest:
        run = subprocess.run([program, "--gtest_list_tests", *filters], capture_output=True, text=True,
                             env=env, timeout=120)
        if run.returncode == 0:
            count = sum(1 for line in run.stdout.splitlines() if line.startswith("  ") and line.strip())
    cache[key] = count
    return count


def launched_program(command):
    """(program, its arguments) of a command, looking through mpiexec and wrapper scripts."""
    launchers = ("sh", "bash", "env", "python3", "mpiexec", "mpirun")
    for i, word in enumerate(command):
        name = os.path.basename(word)
        if os.path.isfile(word) and os.access(word, os.X_OK) and not name.endswith(".sh") \
                and not name.startswith(launchers):
            return word, command[i + 1:]
    return None, []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default="build", help="a configured and built herald build tree (build)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    options = parse_args(parser)
    listing = subprocess.run(["ctest", "--test-dir", options.build_dir, "--show-only=json-v1"],
                             capture_output=True, text=True, check=True)
    tests = json.loads(listing.stdout)["tests"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               HWLOC_COMPONENTS="-gl")
    entries = collections.Counter()
    cases = collections.Counter()
    cache = {}
    for test in tests:
        labels = ["(none)"]
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels = prop["value"]
        program, args = launched_program(test.get("command", []))
        n = gtest_cases(program, args, env, cache) if program else None
        for label in labels:
            entries[label] += 1
            cases[label] += 1 if n is None else n
    if options.json:
        print(json.dumps({label: {"entries": entries[label], "cases": cases[label]} for label in sorted(entries)},
                         indent=1))
    else:
        for label in sorted(entries):
            print(f"{label}: {entries[label]} entries, {cases[label]} cases")
        print(f"total: {len(tests)} entries")


if __name__ == "__main__":
    sys.exit(main())
