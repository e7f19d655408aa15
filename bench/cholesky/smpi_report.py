"""Seed 003's Cholesky table from bench/cholesky/run-smpi.sh's CSV: simulated time per strategy and the gain
over nobcast (1 - time / nobcast's time, as the seed reports it), and a plot of GFlop/s against N.

  python3 bench/cholesky/smpi_report.py CSV OUT KERNEL_TIMES SETTINGS      (run-smpi.sh runs it)

Writes OUT/cholesky-smpi.md (also printed) and OUT/cholesky-smpi.png (when matplotlib is installed)."""
import argparse
import csv
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402


parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("csv", help="the CSV run-smpi.sh wrote")
parser.add_argument("out", help="the directory for cholesky-smpi.md and cholesky-smpi.png")
parser.add_argument("kernel_times", metavar="KERNEL_TIMES", help="the kernel times' JSON file run-smpi.sh used")
parser.add_argument("settings", help="a sentence on the platform, for the report")
args = parse_args(parser)
path, out, kernel_times, settings = args.csv, args.out, args.kernel_times, args.settings
rows = [r for r in csv.DictReader(open(path))]
times = json.load(open(kernel_times))
ok = {(int(r["nodes"]), r["bandwidth"], int(r["n"]), r["strategy"]): float(r["seconds"]) for r in rows if r["status"] == "ok"}
strategies = list(dict.fromkeys(r["strategy"] for r in rows))
others = [s for s in strategies if s != "nobcast"]

lines = ["# Seed 003's Cholesky experiment on simulated clusters", "", settings + ".", "",
         "Kernel times on one core (seconds, tile " + str(times["tile"]) + ", " + times["precision"] + "): " +
         ", ".join(f"{k} {v:.3g}" for k, v in times["seconds"].items()) + f" (measured on {times.get('machine', '?')}).", ""]
header = "| nodes | link | N | " + " | ".join(f"{s} s" for s in strategies) + " | " + " | ".join(f"{s} gain" for s in others) + " |"
lines += [header, "|" + "---:|" * (3 + len(strategies) + len(others))]
settings_seen = sorted({(int(r["nodes"]), r["bandwidth"], int(r["n"])) for r in rows},
                       key=lambda k: (k[0], float(k[1].rstrip("Gbps")), k[2]))
best = defaultdict(lambda: float("-inf"))
for p, bw, n in settings_seen:
    cells = []
    for s in strategies:
        t = ok.get((p, bw, n, s))
        cells.append(f"{t:.4f}" if t is not None else "-")
    base = ok.get((p, bw, n, "nobcast"))
    gains = []
    for s in others:
        t = ok.get((p, bw, n, s))
        if base and t:
            g = 1 - t / base
            gains.append(f"{100 * g:+.1f}%")
            best[(p, bw, s)] = max(best[(p, bw, s)], g)
        else:
            gains.append("-")
    lines.append(f"| {p} | {bw} | {n} | " + " | ".join(cells) + " | " + " | ".join(gains) + " |")
lines += ["", "Not ok: " + (", ".join(f"{r['nodes']} nodes {r['bandwidth']} N {r['n']} {r['strategy']}: {r['status']}"
                                     for r in rows if r["status"] != "ok") or "none") + ".", ""]
if "dynbcast" in others:
    lines.append("Best gain of dynbcast over nobcast per node count and link: " +
                 "; ".join(f"{p} nodes {bw}: {100 * g:.1f}%" for (p, bw, s), g in sorted(best.items()) if s == "dynbcast") + ".")
open(f"{out}/cholesky-smpi.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted({(k[0], k[1]) for k in settings_seen}, key=lambda k: (k[0], k[1]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.5), squeeze=False)
    for ax, (p, bw) in zip(axes[0], panels):
        for s in strategies:
            pts = sorted((n, n ** 3 / 3 / ok[(p, bw, n, s)] / 1e9) for (pp, b, n, ss) in ok if (pp, b, ss) == (p, bw, s))
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=s)
        ax.set_title(f"{p} nodes, {bw}")
        ax.set_xlabel("N")
        ax.set_ylabel("GFlop/s")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(f"{out}/cholesky-smpi.png", dpi=110)
except ImportError:
    print("matplotlib missing: no plot", file=sys.stderr)
