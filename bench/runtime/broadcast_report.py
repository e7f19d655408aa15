#!/usr/bin/env python3
"""Turns the runs of bench/runtime/run-broadcast-smpi.sh (or run-broadcast-local.sh) into a markdown table
and a plot.

    /usr/bin/python3 bench/runtime/broadcast_report.py results/broadcast-smpi.csv --out results \
        [--name broadcast-smpi] --command "..." --platform "..."

The CSV has one row per run: workers, bytes, strategy, status, elapsed_s (the time Task Bench reports,
simulated or real), wall_s; a point run several times has several rows, and its median counts. Writes
<name>.md (per worker count and size: every strategy's time and its speedup over nobcast, the fastest
marked) and <name>.png (speedup over nobcast against workers, one panel per size).
"""

import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402


def size_text(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", default="broadcast-smpi")
    parser.add_argument("--command", default="")
    parser.add_argument("--platform", default="")
    args = parse_args(parser)

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"broadcast_report.py: {args.csv} has no runs")
    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    samples = defaultdict(list)
    status = {}
    for r in rows:
        key = (int(r["workers"]), int(r["bytes"]), r["strategy"])
        if r["status"] == "ok":
            samples[key].append(float(r["elapsed_s"]))
        elif status.get(key, "ok") == "ok":
            status[key] = r["status"]  # one failure marks the point
        status.setdefault(key, "ok")
    time = {k: statistics.median(v) for k, v in samples.items() if status[k] == "ok"}
    workers = sorted({k[0] for k in status})
    sizes = sorted({k[1] for k in status})

    lines = ["# The runtime's broadcast strategies", ""]
    if args.platform:
        lines += [f"Platform: {args.platform}.", ""]
    if args.command:
        lines += [f"Command: `{args.command}`", ""]
    lines += ["Task Bench stencil_1d, width = workers, a broadcast buffer every task reads; time of the second "
              "pass (Task Bench's `Elapsed Time`) in ms; in brackets the speedup over nobcast "
              "(nobcast's time / the strategy's); the fastest in bold.", ""]
    lines.append("| workers | size | " + " | ".join(strategies) + " |")
    lines.append("|---:|---:|" + "---:|" * len(strategies))
    for w in workers:
        for n in sizes:
            base = time.get((w, n, "nobcast"))
            present = [time[(w, n, s)] for s in strategies if (w, n, s) in time]
            best = min(present) if present else None
            cells = []
            for s in strategies:
                key = (w, n, s)
                if key not in time:
                    cells.append(status.get(key, "-"))
                    continue
                text = f"{time[key] * 1e3:.2f}"
                if base:
                    text += f" ({base / time[key]:.2f}x)"
                if time[key] == best:
                    text = f"**{text}**"
                cells.append(text)
            lines.append(f"| {w} | {size_text(n)} | " + " | ".join(cells) + " |")
    bad = [r for r in rows if r["status"] != "ok"]
    if bad:
        lines += ["", "Runs that did not end well (their output is in runs/):", ""]
        lines += [f"- {r['workers']} workers, {r['bytes']} bytes, {r['strategy']}: {r['status']}" for r in bad]
    lines += ["", "Each cell: the median of " + ", ".join(sorted({str(len(v)) for v in samples.values()})) + " run(s)."]
    lines += ["", "Wall time of the whole sweep: "
              f"{sum(float(r['wall_s']) for r in rows):.0f} s over {len(rows)} runs.", ""]
    with open(os.path.join(args.out, args.name + ".md"), "w") as f:
        f.write("\n".join(lines))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("broadcast_report.py: matplotlib is missing, no plot", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 3.6), squeeze=False, sharey=True)
    plotted = False
    for ax, n in zip(axes[0], sizes):
        for s in strategies:
            points = [(w, time[(w, n, "nobcast")] / time[(w, n, s)]) for w in workers
                      if (w, n, s) in time and (w, n, "nobcast") in time]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=s)
                plotted = True
        ax.set_xscale("log", base=2)
        ax.set_xticks(workers, [str(w) for w in workers])
        ax.set_title(size_text(n))
        ax.set_xlabel("workers")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("speedup over nobcast")
    if plotted:
        axes[0][-1].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, args.name + ".png"), dpi=110)


if __name__ == "__main__":
    main()
