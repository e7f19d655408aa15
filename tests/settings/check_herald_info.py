#!/usr/bin/python3
"""herald-info --json tells every setting of the registry, with the value and source the environment gives.

    check_herald_info.py HERALD_INFO SETTINGS_CPP

SETTINGS_CPP is the registry's table (src/core/settings.cpp), read here on its own so that a setting the
program leaves out is noticed. herald-info runs with the caller's HERALD_* variables removed and, case by
case, some set: a setting's own name gives "environment", a former name "former name" and a problem naming
the deprecation, a misspelt name a problem with "did you mean", HERALD_PRESET the model's values. Prints one
line per check and exits 1 if any failed.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

FIELDS = ["name", "value", "source", "from", "type", "allowed", "default", "component", "doc", "former_name"]
SOURCES = {"environment", "former name", "program default", "tuning file", "preset", "default"}
TYPES = {"switch", "count", "bytes", "seconds", "choice", "path", "list", "text"}
COMPONENTS = {"coll", "dyn", "runtime", "trace", "balance", "pmpi", "tests", "scripts"}
COST_MODEL = ["HERALD_ALPHA", "HERALD_BETA", "HERALD_GAP", "HERALD_NODE_ALPHA", "HERALD_NODE_BETA",
              "HERALD_NETWORK", "HERALD_OVERHEAD", "HERALD_EAGER_BYTES"]

failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        failures.append(what)


def registered(path):
    with open(path, encoding="utf-8") as f:
        return re.findall(r'\bSetting\{\s*"(HERALD_[A-Z0-9_]+)"', f.read())


def info(program, extra=None, args=()):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env.update(extra or {})
    done = subprocess.run([program, "--json", *args], env=env, capture_output=True, text=True, timeout=60)
    shown = " ".join("%s=%s" % kv for kv in (extra or {}).items()) or "(no HERALD_ variable)"
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as e:
        check(False, "%s: herald-info --json prints JSON (%s; exit %d: %s)" % (shown, e, done.returncode,
                                                                             done.stderr.strip()))
        return None
    # 0 for an environment without problems, 1 with any: a script can stop on it before it launches a job.
    expected = 1 if report.get("problems") else 0
    check(done.returncode == expected, "%s: herald-info exits %d (got %d)" % (shown, expected, done.returncode))
    return report


def setting(report, name):
    return next((s for s in report["settings"] if s["name"] == name), None) if report else None


def main(program, settings_cpp):
    names = registered(settings_cpp)
    check(len(names) > 40, "the registry's table in %s names %d settings" % (settings_cpp, len(names)))

    report = info(program)
    # The MPI library as a tuning file records it: the first line's text up to its first comma.
    library = (report or {}).get("build", {}).get("mpi_library", "").split(",")[0].rstrip()
    if report:
        check(isinstance(report.get("version"), str) and report["version"], "a version")
        build = report.get("build", {})
        check(isinstance(build.get("mpi_library"), str) and build["mpi_library"], "the MPI library (%r)"
              % build.get("mpi_library"))
        check(re.fullmatch(r"\d+\.\d+", str(build.get("mpi_version"))) is not None, "the MPI version")
        check(all(isinstance(build.get(k), bool) for k in ("otf2", "ompt_balancer", "simgrid_smpi")),
              "the optional parts built, each true or false")
        check(report.get("problems") == [], "no problems without HERALD_ variables (%r)" % report.get("problems"))
        listed = [s.get("name") for s in report["settings"]]
        check(listed == names, "every registered setting once, in the registry's order%s" %
              "".join("; %s listed %d times" % (n, listed.count(n)) for n in names if listed.count(n) != 1))
        incomplete = [s.get("name") for s in report["settings"] if sorted(s) != sorted(FIELDS)]
        check(not incomplete, "every setting has the fields %s (not %s)" % (", ".join(FIELDS), incomplete))
        wrong = [s["name"] for s in report["settings"] if s.get("type") not in TYPES
                 or s.get("component") not in COMPONENTS or s.get("source") not in SOURCES
                 or not isinstance(s.get("doc"), str) or not s["doc"]]
        check(not wrong, "every setting has a known type, component and source, and a doc (not %s)" % wrong)
        unset = [s["name"] for s in report["settings"] if s["name"] not in COST_MODEL
                 and (s["source"] != "default" or s["value"] is not None)]
        check(not unset, "without HERALD_ variables every setting is unset, default (not %s)" % unset)
        model = [s["name"] for s in report["settings"] if s["name"] in COST_MODEL and s["source"] != "default"]
        check(not model, "the cost model is herald's own (not %s)" % model)

    report = info(program, {"HERALD_ALGORITHM": "chain"})
    s = setting(report, "HERALD_ALGORITHM")
    check(s is not None and s["source"] == "environment" and s["value"] == "chain",
          "HERALD_ALGORITHM=chain: value chain from the environment (%r)" % s)

    report = info(program, {"HERALD_RT_LOG": "1"})
    s = setting(report, "HERALD_RUNTIME_LOG")
    check(s is not None and s["source"] == "former name" and s["value"] == "1" and s["from"] == "HERALD_RT_LOG",
          "HERALD_RT_LOG=1: HERALD_RUNTIME_LOG is 1 from its former name (%r)" % s)
    problems = report["problems"] if report else []
    check(any("HERALD_RT_LOG" in p and "deprecated" in p and "HERALD_RUNTIME_LOG" in p for p in problems),
          "HERALD_RT_LOG=1: the problems name the deprecation (%r)" % problems)

    report = info(program, {"HERALD_ALGORITM": "chain"})
    problems = report["problems"] if report else []
    check(any("HERALD_ALGORITM" in p and "did you mean HERALD_ALGORITHM?" in p for p in problems),
          "HERALD_ALGORITM=chain: the problems ask 'did you mean HERALD_ALGORITHM?' (%r)" % problems)
    s = setting(report, "HERALD_ALGORITHM")
    check(s is not None and s["source"] == "default", "HERALD_ALGORITM=chain: HERALD_ALGORITHM stays unset")

    report = info(program, {"HERALD_PRESET": "ethernet-10g", "HERALD_BETA": "2e-9"})
    alpha, beta = setting(report, "HERALD_ALPHA"), setting(report, "HERALD_BETA")
    check(alpha is not None and alpha["source"] == "preset" and alpha["from"] == "ethernet-10g"
          and float(alpha["value"]) == 25e-6, "HERALD_PRESET=ethernet-10g: HERALD_ALPHA is the preset's (%r)" % alpha)
    check(beta is not None and beta["source"] == "environment" and beta["value"] == "2e-9",
          "HERALD_BETA=2e-9 wins over the preset (%r)" % beta)

    # A tuning file wins over a preset (as in coll): its intra-node model is what auto starts from. A file
    # of another MPI library is refused, as a job refuses it.
    with tempfile.TemporaryDirectory() as scratch:
        def tuning_file(name, library):
            path = os.path.join(scratch, name)
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"tuning_version": 1, "cells": [],
                           "layout": {"mpi_library": library, "ranks": 2, "ranks_per_node": 2},
                           "model": {"inter_node": None,
                                     "intra_node": {"alpha": 3e-7, "beta": 2e-10, "gap": 1e-7}}}, f)
            return path

        path = tuning_file("tuning.json", library)
        report = info(program, {"HERALD_TUNING_FILE": path, "HERALD_PRESET": "slingshot"})
        got = {n: setting(report, n) for n in ("HERALD_ALPHA", "HERALD_BETA", "HERALD_GAP")}
        check(all(s is not None and s["source"] == "tuning file" and s["from"] == path for s in got.values())
              and [float(s["value"]) for s in got.values()] == [3e-7, 2e-10, 1e-7],
              "HERALD_TUNING_FILE: alpha, beta and gap are the file's, over the preset (%r)" % got)
        other = tuning_file("other.json", "Another MPI 1.0")
        report = info(program, {"HERALD_TUNING_FILE": other})
        alpha = setting(report, "HERALD_ALPHA")
        problems = report["problems"] if report else []
        check(alpha is not None and alpha["source"] == "default" and any("Another MPI 1.0" in p for p in problems),
              "a tuning file of another MPI library is a problem, not the model (%r, %r)" % (alpha, problems))
        report = info(program, {"HERALD_TUNING_FILE": os.path.join(scratch, "missing.json")})
        problems = report["problems"] if report else []
        check(any("missing.json" in p for p in problems), "an unreadable tuning file is a problem (%r)" % problems)

    report = info(program, {"HERALD_PRESET": "token-ring"})
    problems = report["problems"] if report else []
    check(any("token-ring" in p for p in problems), "HERALD_PRESET=token-ring is a problem (%r)" % problems)

    # A value its setting refuses is a problem naming the variable, as the job's first call would refuse it.
    for name, value, expected in [
            ("HERALD_SEGMENT_SIZE", "10Q", "HERALD_SEGMENT_SIZE '10Q' has an unknown unit (use K, M or G)"),
            ("HERALD_VERBOSE", "maybe", "HERALD_VERBOSE 'maybe' is not a switch"),
            ("HERALD_RUNTIME_BCAST", "dyn", "HERALD_RUNTIME_BCAST 'dyn' is not one of nobcast, p2p, mpibcast, "
                                            "mpibcast:herald, dynbcast, auto; did you mean dynbcast?"),
            ("HERALD_ALGORITHM", "binomal", "HERALD_ALGORITHM 'binomal' is not one of auto, native, linear, "
                                            "binomial"),
            ("HERALD_ALGORITHM", "binomal", "did you mean binomial?"),
            ("HERALD_KNOMIAL_RADIX", "1", "HERALD_KNOMIAL_RADIX '1' is outside 2.."),
            ("HERALD_ALPHA", "-1", "HERALD_ALPHA '-1' is not a non-negative number"),
            ("HERALD_TRACE", "/proc/nope", "HERALD_TRACE '/proc/nope' cannot be made"),
            ("HERALD_TUNING_LEARN", "/proc/nope/x.json", "HERALD_TUNING_LEARN '/proc/nope/x.json' cannot be made")]:
        report = info(program, {name: value})
        problems = report["problems"] if report else []
        check(any(expected in p for p in problems), "%s=%s: a problem saying %r (%r)" % (name, value, expected, problems))
    for name, value in [("HERALD_ALGORITHM", "native"), ("HERALD_SEGMENT_SIZE", "64K"), ("HERALD_VERBOSE", "On"),
                        ("HERALD_KNOMIAL_RADIX", "2"), ("HERALD_RUNTIME_BCAST", "mpibcast:herald")]:
        report = info(program, {name: value})
        check(report is not None and report["problems"] == [], "%s=%s: no problem (%r)" % (name, value, report and report["problems"]))

    report = info(program, args=["--component", "dyn"])
    check(report is not None and report["settings"] and all(s["component"] == "dyn" for s in report["settings"]),
          "--component dyn lists the dyn settings only")

    print("check_herald_info.py: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
