"""Tables and a plot from bench/cholesky/run.sh's CSV: medians per configuration and ratios to ScaLAPACK.

  python3 bench/cholesky/report.py CSV OUT MPI CORES      (run.sh runs it)

Writes OUT/cholesky.md (also printed) and OUT/cholesky.png (when matplotlib is installed)."""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402


parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("csv", help="the CSV run.sh wrote")
parser.add_argument("out", help="the directory for cholesky.md and cholesky.png")
parser.add_argument("mpi", help="the MPI library, for the table's heading")
parser.add_argument("cores", help="the machine's cores, for the table's heading")
args = parse_args(parser)
path, out, mpi, cores = args.csv, args.out, args.mpi, args.cores
rows = list(csv.DictReader(open(path)))
measured = [r for r in rows if r["phase"] == "measure"]


def label(r):
    return "ScaLAPACK" if r["solver"] == "scalapack" else f"herald {r['mapping']}"


groups = defaultdict(list)
for r in measured:
    groups[(int(r["ranks"]), int(r["n"]), label(r))].append(r)
configs = sorted({(k[0], k[1]) for k in groups})
labels = ["herald heft", "herald cyclic", "ScaLAPACK"]

lines = [
    "# herald-cholesky against ScaLAPACK",
    "",
    f"{mpi}; {cores} cores; medians of {max(len(v) for v in groups.values())} interleaved runs per row "
    "(GFlop/s = N^3/3 / factorisation time); the first run of each checked its scaled residual.",
    "",
    "| ranks | N | herald heft (tile) | herald cyclic (tile, grid) | ScaLAPACK (block, grid) | heft / ScaLAPACK | cyclic / ScaLAPACK | residuals |",
    "|---:|---:|---:|---:|---:|---:|---:|---|",
]
ratios = {}
for np_, n in configs:
    cells, rates = [], {}
    residuals = []
    for lab in labels:
        rs = groups.get((np_, n, lab), [])
        if not rs:
            cells.append("")
            continue
        rate = statistics.median(float(r["gflops"]) for r in rs)
        rates[lab] = rate
        tile = rs[0]["tile"]
        grid = "" if rs[0]["grid"] == "-" else f", {rs[0]['grid']}"
        cells.append(f"{rate:.1f} ({tile}{grid})")
        residuals += [float(r["residual"]) for r in rs if r["residual"]]
    base = rates.get("ScaLAPACK")
    heft = rates.get("herald heft", 0) / base if base else float("nan")
    cyc = rates.get("herald cyclic", 0) / base if base else float("nan")
    ratios[(np_, n)] = (heft, cyc)
    worst = max(residuals) if residuals else float("nan")
    lines.append(f"| {np_} | {n} | " + " | ".join(cells) + f" | {heft:.2f} | {cyc:.2f} | at most {worst:.2g} |")
lines.append("")
open(f"{out}/cholesky.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.25
    for i, lab in enumerate(labels):
        xs = [j + (i - 1) * width for j in range(len(configs))]
        ys = [statistics.median(float(r["gflops"]) for r in groups[(c[0], c[1], lab)]) if (c[0], c[1], lab) in groups else 0 for c in configs]
        ax.bar(xs, ys, width, label=lab)
    ax.set_xticks(range(len(configs)), [f"{c[0]} ranks\nN {c[1]}" for c in configs])
    ax.set_ylabel("GFlop/s (median)")
    ax.set_title("Cholesky: herald's runtime against ScaLAPACK")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/cholesky.png", dpi=120)
except ImportError:
    print("matplotlib missing: no plot", file=sys.stderr)
