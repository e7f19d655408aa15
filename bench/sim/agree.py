#!/usr/bin/env python3
"""herald-sim against SimGrid's SMPI: each algorithm SMPI ran, simulated by herald-sim on the same platform.

Reads the manifest bench/smpi/run-hierarchical.sh wrote (one SMPI run per setting and size, each CSV row an
algorithm with the parameters it ran with), asks herald-sim for the same schedule (algorithm, segment,
fanout, radix, leader stage, ranks, nodes and placement) under the platform's figures alone, as a user
gives them: the fair-sharing network, alpha two link latencies, beta one over the link bandwidth, the
node's latency and bandwidth, SMPI's configured overhead and eager size. Nothing is fitted.

  bench/sim/agree.py --manifest DIR/hierarchical-runs.csv [--manifest ...] [--latency 1us] [--node-latency 0.2us]
      [--node-bandwidth 800Gbps] [--overhead 4e-8] [--eager 65535] [--tolerance 0.10] [--out DIR] [--sim PATH]

Writes agree.csv (a row per setting, size and algorithm: SMPI's median, herald-sim's prediction, their
ratio) and agree.md (the same as a table, the rows outside the tolerance marked, and a summary line) into
--out. Exits 0 whatever the ratios, or with --check 1 when a row is outside the tolerance (the ctest
sim_agrees_with_smpi runs it so over the committed SMPI runs, with the herald-sim just built).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "smpi"))
import bcast_report as units  # noqa: E402


def smpi_poll(csv_path):
    """What SMPI charged for an MPI_Test in that run (its log beside the CSV records the setting), or "?"."""
    log = os.path.splitext(csv_path)[0] + ".log"
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            for line in f:
                if "Set 'smpi/test' to '" in line:
                    return line.split("Set 'smpi/test' to '", 1)[1].split("'", 1)[0]
    return "?"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", action="append", required=True,
                    help="a manifest of SMPI runs, or a folder: every hierarchical-runs.csv under it; give several")
    ap.add_argument("--check", action="store_true", help="exit 1 naming every row outside the tolerance")
    ap.add_argument("--latency", default="1us")
    ap.add_argument("--node-latency", default="0.2us")
    ap.add_argument("--node-bandwidth", default="800Gbps")
    ap.add_argument("--overhead", default="4e-8")
    ap.add_argument("--eager", default="65535")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--out", default=os.path.join(here, "results", "agree"))
    ap.add_argument("--sim", default=os.path.join(here, "..", "..", "build", "apps", "herald-sim", "herald-sim"))
    a = parse_args(ap)
    os.makedirs(a.out, exist_ok=True)
    alpha = 2 * units.seconds(a.latency)
    node_alpha = units.seconds(a.node_latency)
    node_beta = 8 / units.bits_per_second(a.node_bandwidth)

    rows = []
    runs = []
    manifests = []
    for given in a.manifest:
        if os.path.isdir(given):
            manifests += sorted(os.path.join(d, "hierarchical-runs.csv") for d, _, files in os.walk(given)
                                if "hierarchical-runs.csv" in files)
        else:
            manifests.append(given)
    for manifest in manifests:
        with open(manifest) as f:
            for r in csv.DictReader(f):
                # "fattree:L,U" unquoted (as manifests before the quoting wrote it) spills its U into a
                # column of its own.
                r["topology"] = ",".join([r.get("topology") or "flat"] + (r.pop(None, None) or []))
                if r["status"] == "ok":
                    runs.append(dict(r, manifest=manifest))
    for run in runs:
        beta = 8 / units.bits_per_second(run["bandwidth"])
        nodes, per_node = int(run["nodes"]), int(run["ranks_per_node"])
        # Beside the manifest (where run-hierarchical.sh writes them), else where the manifest says.
        path = os.path.join(os.path.dirname(run["manifest"]), "runs", os.path.basename(run["csv"]))
        if not os.path.exists(path):
            path = run["csv"]
        with open(path) as f:
            measured = [r for r in csv.DictReader(f) if r["algorithm"] not in ("native", "herald_native")]
        poll = smpi_poll(path)
        for m in measured:
            cmd = [a.sim, "--json", "--network", "fair", "--algorithm", m["resolved"], "--ranks", m["ranks"],
                   "--root", m["root"], "--bytes", m["bytes"], "--alpha", repr(alpha), "--beta", repr(beta),
                   "--overhead", a.overhead, "--eager", a.eager, "--node-alpha", repr(node_alpha),
                   "--node-beta", repr(node_beta)]
            # The nodes as herald finds them from SMPI's hosts: one rank each on a flat cluster.
            cmd += ["--node-size", str(per_node), "--placement", run["placement"] if per_node > 1 else "blocks"]
            topology = run["topology"]
            if topology.startswith("fattree:"):
                cmd += ["--fat-tree", topology.split(":", 1)[1]]
            for field, option in (("segment", "--segment"), ("fanout", "--fanout"), ("radix", "--radix")):
                if m.get(field) and m[field] != "0":
                    cmd += [option, m[field]]
            if m.get("leaders"):
                cmd += ["--leaders", m["leaders"]]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"agree.py: {' '.join(cmd)} failed: {r.stderr.strip()}")
            sim = json.loads(r.stdout)
            smpi_us = float(m["median_us"])
            rows.append({"topology": run["topology"], "bandwidth": run["bandwidth"], "nodes": nodes, "ranks_per_node": per_node,
                         "placement": run["placement"] if per_node > 1 else "-", "bytes": int(m["bytes"]),
                         "algorithm": m["algorithm"], "resolved": m["resolved"], "segment": m.get("segment", "0"),
                         "leaders": m.get("leaders", ""), "smpi_us": smpi_us, "sim_us": sim["predicted_us"],
                         "sim_over_smpi": sim["predicted_us"] / smpi_us, "smpi_poll_s": poll})
    if not rows:
        sys.exit(f"agree.py: no finished runs in {', '.join(a.manifest)}")
    with open(os.path.join(a.out, "agree.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    outside = [r for r in rows if abs(r["sim_over_smpi"] - 1) > a.tolerance]
    polls = sorted({r["smpi_poll_s"] for r in rows})
    ratios = sorted(r["sim_over_smpi"] for r in rows)
    lines = [f"herald-sim against SMPI: links shared fairly, alpha {alpha:g} s (two {a.latency} links), beta one "
             f"over the bandwidth, node {a.node_latency} and {a.node_bandwidth}, overhead {a.overhead} s, eager "
             f"below {a.eager} bytes; every algorithm SMPI ran, at the parameters it ran with. SMPI charged "
             f"{' or '.join(polls)} s per MPI_Test (herald-sim: nothing).", "",
             f"{len(rows)} rows, herald-sim / SMPI from {ratios[0]:.3f} to {ratios[-1]:.3f} (median "
             f"{ratios[len(ratios) // 2]:.3f}); {len(outside)} outside {a.tolerance:.0%}.", "",
             "| network | bandwidth | nodes x ranks | placement | size | algorithm (ran) | segment | SMPI us | "
             "herald-sim us | sim / SMPI | |",
             "|---|---|---|---|---:|---|---:|---:|---:|---:|---|"]
    for r in rows:
        ran = r["resolved"] + (f", {r['leaders']}" if r["leaders"] else "")
        name = r["algorithm"] if r["algorithm"] == r["resolved"] else f"{r['algorithm']} ({ran})"
        if r["algorithm"] == r["resolved"] and r["leaders"]:
            name += f" ({r['leaders']})"
        mark = "outside" if abs(r["sim_over_smpi"] - 1) > a.tolerance else ""
        lines.append(f"| {r['topology']} | {r['bandwidth']} | {r['nodes']} x {r['ranks_per_node']} | {r['placement']} | "
                     f"{units.human_bytes(r['bytes'])} | {name} | {r['segment']} | {r['smpi_us']:.2f} | {r['sim_us']:.2f} | "
                     f"{r['sim_over_smpi']:.3f} | {mark} |")
    open(os.path.join(a.out, "agree.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[:3]))
    if a.check and outside:
        for r in outside:
            print(f"agree.py: {r['topology']}, {r['bandwidth']}, {r['nodes']} x {r['ranks_per_node']} {r['placement']}, {units.human_bytes(r['bytes'])}, "
                  f"{r['algorithm']} ({r['resolved']}): herald-sim {r['sim_us']:.2f} us, SMPI {r['smpi_us']:.2f} us, "
                  f"ratio {r['sim_over_smpi']:.3f}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
