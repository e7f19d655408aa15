#!/usr/bin/python3
"""Checks that files follow Chrome's trace event format (JSON object form) as herald writes it.

    validate_chrome_trace.py TRACE.json...

Every event needs "ph"; complete events ("X") a name, category, pid, tid, a numeric ts and a non-negative
dur; instants ("i") a scope; flow events ("s", "f") an id, and every flow start its finish; metadata ("M")
process_name or thread_name with args.name. Exits 1 naming the first problem, else prints what it checked.
"""
import json
import sys

ALLOWED_PHASES = {"X", "i", "s", "f", "M"}


def fail(path, message):
    print("%s: %s" % (path, message))
    sys.exit(1)


def check(path):
    with open(path) as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail(path, "not the JSON object form: no traceEvents list")
    if trace.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail(path, "displayTimeUnit must be ms or ns")
    flows = {}
    counts = {}
    for n, e in enumerate(trace["traceEvents"]):
        where = "event %d (%s)" % (n, json.dumps(e)[:120])
        ph = e.get("ph")
        if ph not in ALLOWED_PHASES:
            fail(path, "%s: phase %r is not one herald writes" % (where, ph))
        counts[ph] = counts.get(ph, 0) + 1
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail(path, "%s: pid and tid must be integers" % where)
        if ph == "M":
            if e.get("name") not in ("process_name", "thread_name") or not isinstance(e.get("args", {}).get("name"), str):
                fail(path, "%s: metadata needs process_name or thread_name and args.name" % where)
            continue
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            fail(path, "%s: ts must be a non-negative number of microseconds" % where)
        if not isinstance(e.get("name"), str) or not isinstance(e.get("cat"), str):
            fail(path, "%s: name and cat must be strings" % where)
        if ph == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
            fail(path, "%s: a complete event needs a non-negative dur" % where)
        if ph == "i" and e.get("s") not in ("g", "p", "t"):
            fail(path, "%s: an instant needs a scope s of g, p or t" % where)
        if ph in ("s", "f"):
            if "id" not in e:
                fail(path, "%s: a flow event needs an id" % where)
            flows.setdefault(e["id"], []).append(ph)
    for flow, phases in flows.items():
        if sorted(phases) != ["f", "s"]:
            fail(path, "flow %s has %s, not one start and one finish" % (flow, phases))
    print("%s: %s" % (path, ", ".join("%d %s" % (c, p) for p, c in sorted(counts.items()))))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    for path in sys.argv[1:]:
        check(path)
