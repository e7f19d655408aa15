#!/usr/bin/env python3
"""Gathers the runs of bench/smpi/run-hierarchical.sh into one CSV, a markdown table and a plot.

    /usr/bin/python3 bench/smpi/node_report.py --manifest results/hierarchical-runs.csv [more ...] \
        --out results --latency 1us --node-bandwidth 800Gbps --node-latency 0.2us

Each manifest has one line per smpirun: bandwidth, nodes, ranks_per_node, placement, bytes, status, wall_s
and the herald-bcast-bench CSV it wrote (herald's algorithms and auto in one run; SMPI's built-ins in runs
of their own, named ...-smpi-<name>.csv). Writes into --out:

  node-aware.csv      one row per setting and size: auto's time and pick, the best herald algorithm, the
                      best SMPI built-in (SMPI's default MPI_Bcast among them), the bound, and auto's ratio
                      to each
  hierarchical.md     the same as a table, then every run that did not end well
  node-aware.png      auto / best built-in and auto / bound per size, a line per nodes x ranks per node, a
                      panel per bandwidth and placement

The bound: every node but the root's takes the message through its one network link, so no broadcast
ends before latency + n / bandwidth. The pipelined optimum: the least a broadcast in segments of one size
takes among the nodes (bcast_report.pipelined_optimum_us, over as many hosts as nodes), plus the within-node
stage's own part, the last segment's way into the node: a loopback latency and that segment at the loopback's
bandwidth, the segment being n over the best segment count among the nodes.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bcast_report import bits_per_second, pipelined_optimum_us, seconds, short_bytes  # noqa: E402
from cli_args import parse_args  # noqa: E402

FIELDS = ["bandwidth", "nodes", "ranks_per_node", "placement", "bytes", "auto_us", "auto_pick",
          "best_herald", "best_herald_us", "best_smpi", "best_smpi_us", "bound_us", "optimum_us",
          "auto_over_best_herald", "auto_over_best_smpi", "auto_over_bound", "auto_over_optimum",
          "tuned_us", "tuned_pick", "tuned_over_optimum"]


def pick(row):
    """auto's choice as the benchmark resolved it, with its stage among leaders where it has one."""
    name = row["resolved"]
    if row.get("leaders"):
        name += f"/{row['leaders']}"
    return f"{name} {int(row['segment']) // 1024}K" if int(row["segment"] or 0) else name


def gather(manifests):
    groups, problems = defaultdict(dict), []
    for manifest in manifests:
        with open(manifest, newline="") as handle:
            for m in csv.DictReader(handle):
                key = (m["bandwidth"], int(m["nodes"]), int(m["ranks_per_node"]), m["placement"], m["bytes"])
                if m["status"] != "ok":
                    problems.append(f"{os.path.basename(m['csv'])}: {m['status']}")
                    continue
                smpi = m["csv"].rsplit("-smpi-", 1)[1][:-4] if "-smpi-" in m["csv"] else None
                tuned = m["csv"].endswith("-tuned.csv")  # auto with herald-tune's file alone
                with open(m["csv"], newline="") as runs:
                    for r in csv.DictReader(runs):
                        label = r["algorithm"]
                        if smpi:
                            label = "smpi:" + smpi
                        elif tuned:
                            label = "auto_tuned" if label == "auto" else "smpi:default"
                        elif label == "native":
                            label = "smpi:default"
                        groups[key][label] = r
    return groups, problems


def optimum_us(nodes, n, latency_s, bandwidth_bps, node_latency_s, node_bandwidth_bps):
    """The pipelined optimum among the nodes plus the within-node stage's own part (module docstring)."""
    if nodes < 2:
        return 0.0
    alpha, beta = 2 * latency_s, 8 / bandwidth_bps
    fill = max(math.ceil(math.log2(nodes)) - 1, 0) * alpha
    count = max(1.0, math.sqrt(fill * n * beta) / alpha)
    within = node_latency_s + n / count * 8 / node_bandwidth_bps
    return pipelined_optimum_us(nodes, n, latency_s, bandwidth_bps) + within * 1e6


def summarise(groups, latency_s, node_latency_s, node_bandwidth_bps):
    rows = []
    for key, runs in groups.items():
        bandwidth, nodes, rpn, placement, _ = key
        if "auto" not in runs:
            continue
        t = {name: float(r["median_us"]) for name, r in runs.items()}
        n = int(runs["auto"]["bytes"])
        herald = {a: v for a, v in t.items() if not a.startswith(("auto", "smpi:"))}
        smpi = {a: v for a, v in t.items() if a.startswith("smpi:")}
        best_herald = min(herald, key=herald.get) if herald else None
        best_smpi = min(smpi, key=smpi.get) if smpi else None
        bound = (latency_s + 8 * n / bits_per_second(bandwidth)) * 1e6 if nodes > 1 else 0.0
        optimum = optimum_us(nodes, n, latency_s, bits_per_second(bandwidth), node_latency_s, node_bandwidth_bps)
        auto = t["auto"]
        rows.append({
            "bandwidth": bandwidth, "nodes": nodes, "ranks_per_node": rpn, "placement": placement, "bytes": n,
            "auto_us": f"{auto:.2f}", "auto_pick": pick(runs["auto"]),
            "best_herald": best_herald or "", "best_herald_us": f"{herald[best_herald]:.2f}" if best_herald else "",
            "best_smpi": best_smpi or "", "best_smpi_us": f"{smpi[best_smpi]:.2f}" if best_smpi else "",
            "bound_us": f"{bound:.2f}", "optimum_us": f"{optimum:.2f}",
            "auto_over_best_herald": f"{auto / min(auto, herald[best_herald]):.3f}" if best_herald else "",
            "auto_over_best_smpi": f"{auto / smpi[best_smpi]:.3f}" if best_smpi else "",
            "auto_over_bound": f"{auto / bound:.3f}" if bound > 0 else "",
            "auto_over_optimum": f"{auto / optimum:.3f}" if optimum > 0 else "",
            "tuned_us": f"{t['auto_tuned']:.2f}" if "auto_tuned" in t else "",
            "tuned_pick": pick(runs["auto_tuned"]) if "auto_tuned" in t else "",
            "tuned_over_optimum": f"{t['auto_tuned'] / optimum:.3f}" if "auto_tuned" in t and optimum > 0 else ""})
    rows.sort(key=lambda r: (bits_per_second(r["bandwidth"]), r["placement"], r["nodes"], r["ranks_per_node"],
                             r["bytes"]))
    return rows


def write_markdown(path, rows, problems, preamble):
    lines = [
        "# The node-aware broadcasts on simulated multi-node clusters", "", preamble, "",
        "| bandwidth | nodes | ranks per node | placement | size | auto (pick) | best herald | "
        "best SMPI built-in | bound | optimum | auto / best herald | auto / best built-in | auto / bound | "
        "auto / optimum | auto, tuned (pick) | tuned / optimum |",
        "|---|---:|---:|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        lines.append(
            f"| {r['bandwidth']} | {r['nodes']} | {r['ranks_per_node']} | {r['placement']} | "
            f"{short_bytes(r['bytes'])} | {r['auto_us']} ({r['auto_pick']}) | {r['best_herald']} {r['best_herald_us']} | "
            f"{r['best_smpi']} {r['best_smpi_us']} | {r['bound_us']} | {r['optimum_us']} | "
            f"{r['auto_over_best_herald']} | {r['auto_over_best_smpi']} | {r['auto_over_bound']} | "
            f"{r['auto_over_optimum']} | "
            + (f"{r['tuned_us']} ({r['tuned_pick']}) | {r['tuned_over_optimum']} |" if r["tuned_us"] else " | |"))
    if problems:
        lines += ["", "Runs that did not end well: " + "; ".join(problems)]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def plot(path, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("node_report.py: matplotlib is missing; no plot", file=sys.stderr)
        return
    panels = sorted({(r["bandwidth"], r["placement"]) for r in rows},
                    key=lambda k: (bits_per_second(k[0]), k[1]))
    if not panels:
        return
    fig, axes = plt.subplots(2, len(panels), figsize=(5 * len(panels), 7), squeeze=False, sharex=True)
    for col, (bandwidth, placement) in enumerate(panels):
        shapes = sorted({(r["nodes"], r["ranks_per_node"]) for r in rows
                         if (r["bandwidth"], r["placement"]) == (bandwidth, placement)})
        for nodes, rpn in shapes:
            mine = [r for r in rows if (r["bandwidth"], r["placement"], r["nodes"], r["ranks_per_node"]) ==
                    (bandwidth, placement, nodes, rpn)]
            label = f"{nodes} x {rpn}"
            smpi = [r for r in mine if r["auto_over_best_smpi"]]
            axes[0][col].plot([r["bytes"] for r in smpi], [float(r["auto_over_best_smpi"]) for r in smpi],
                              marker="o", label=label)
            bound = [r for r in mine if r["auto_over_bound"]]
            axes[1][col].plot([r["bytes"] for r in bound], [float(r["auto_over_bound"]) for r in bound],
                              marker="o", label=label)
        axes[0][col].set_title(f"{bandwidth}, {placement}")
        axes[0][col].axhline(1.0, color="grey", linewidth=0.8)
        axes[1][col].axhline(1.0, color="grey", linewidth=0.8)
        for row in (0, 1):
            axes[row][col].set_xscale("log", base=2)
            axes[row][col].xaxis.set_major_formatter(
                matplotlib.ticker.FuncFormatter(lambda v, _: short_bytes(int(v))))
        axes[1][col].set_xlabel("bytes")
    axes[0][0].set_ylabel("auto / best SMPI built-in")
    axes[1][0].set_ylabel("auto / node-link bound")
    axes[0][0].legend(title="nodes x ranks per node", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", required=True, nargs="+", help="one or more runs' manifests")
    parser.add_argument("--out", required=True)
    parser.add_argument("--latency", default="1us")
    parser.add_argument("--node-bandwidth", default="800Gbps")
    parser.add_argument("--node-latency", default="0.2us")
    a = parse_args(parser)
    groups, problems = gather(a.manifest)
    rows = summarise(groups, seconds(a.latency), seconds(a.node_latency), bits_per_second(a.node_bandwidth))
    with open(os.path.join(a.out, "node-aware.csv"), "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    preamble = (f"Network links of {a.latency} (flat, non-blocking switch); within a node a loopback of "
                f"{a.node_bandwidth} and {a.node_latency}. Times in microseconds (SMPI, sync clock, median of "
                "3 broadcasts). best SMPI built-in: the fastest of SMPI's default MPI_Bcast and the built-ins "
                "run. The bound: a node's data enters through its one link, latency + n / bandwidth. The optimum: "
                "the pipelined optimum among the nodes plus the last segment's way into a node (node_report.py). "
                "auto / best herald: auto over the fastest of itself and the herald algorithms run by name (1.000: auto was the fastest).")
    write_markdown(os.path.join(a.out, "hierarchical.md"), rows, problems, preamble)
    plot(os.path.join(a.out, "node-aware.png"), rows)
    with open(os.path.join(a.out, "hierarchical.md")) as handle:
        print(handle.read())


if __name__ == "__main__":
    main()
