#!/usr/bin/env python3
"""Plots herald-bcast-bench CSV files.

For every (ranks, root, mode) found in the input it writes two PNGs:
  bcast_latency_p<P>.png  median latency vs message size per algorithm, log-log, native's min-max shaded
  bcast_ratio_p<P>.png    median / native's median vs message size per algorithm (below 1: herald faster)
A non-zero root adds "_root<R>" to the names, ibcast runs add "_nonblocking".

    /usr/bin/python3 bench/plot_bcast.py results/bcast_p2.csv results/bcast_p4.csv -o results/

With --markdown FILE it also writes, per group, the tables docs/benchmarks.md shows: the best herald
algorithm per size with its ratio to native, and every algorithm's ratio per size.
"""

import argparse
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_args import parse_args  # noqa: E402

# matplotlib's pyplot and FuncFormatter, loaded once the command line is read (load_matplotlib): --help
# needs none of it.
plt = FuncFormatter = None

REQUIRED = {"ranks", "root", "mode", "bytes", "algorithm", "resolved", "median_us", "min_us", "max_us",
            "ratio_to_native"}


def load_matplotlib():
    global plt, FuncFormatter
    import matplotlib

    matplotlib.use("Agg")  # before pyplot
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter



def save(fig, path):
    """Writes the figure as a PNG, closes it and returns its path."""
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path

def human_bytes(value, _position=None):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


def read_rows(paths):
    """Rows grouped by (ranks, root, mode), then by algorithm; a later file wins for the same point."""
    groups = defaultdict(lambda: defaultdict(dict))
    for path in paths:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            missing = REQUIRED - set(reader.fieldnames or [])
            if missing:
                sys.exit(f"plot_bcast.py: {path} lacks the columns {', '.join(sorted(missing))}")
            for row in reader:
                key = (int(row["ranks"]), int(row["root"]), row["mode"])
                groups[key][row["algorithm"]][int(row["bytes"])] = row
    return groups


def figure_name(kind, ranks, root, mode):
    name = f"bcast_{kind}_p{ranks}"
    if root != 0:
        name += f"_root{root}"
    if mode != "blocking":
        name += f"_{mode}"
    return name + ".png"


def style(algorithms):
    """A fixed colour per algorithm; native drawn black and thick, as the reference."""
    colours = plt.get_cmap("tab20").colors
    herald = [a for a in algorithms if a != "native"]
    out = {a: dict(color=colours[i % len(colours)], linewidth=1.2, marker="o", markersize=2.5)
           for i, a in enumerate(herald)}
    out["native"] = dict(color="black", linewidth=2.4, marker="s", markersize=3)
    return out


def decorate(axes, title, ylabel):
    axes.set_xscale("log", base=2)
    axes.xaxis.set_major_formatter(FuncFormatter(human_bytes))
    axes.set_xlabel("message size")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    for label in axes.get_xticklabels():
        label.set_rotation(45)
        label.set_horizontalalignment("right")


def plot_group(key, by_algorithm, output_dir):
    ranks, root, mode = key
    algorithms = list(by_algorithm)
    styles = style(algorithms)
    what = f"{ranks} ranks, root {root}" + ("" if mode == "blocking" else f", {mode}")
    written = []

    fig, axes = plt.subplots(figsize=(10, 6))
    for algorithm in algorithms:
        points = sorted(by_algorithm[algorithm].items())
        sizes = [max(b, 1) for b, _ in points]
        median = [float(r["median_us"]) for _, r in points]
        axes.plot(sizes, median, label=algorithm, **styles[algorithm])
        if algorithm == "native":  # one band only: thirteen would hide the lines
            axes.fill_between(sizes, [float(r["min_us"]) for _, r in points],
                              [float(r["max_us"]) for _, r in points], color="grey", alpha=0.2,
                              label="native min-max")
    axes.set_yscale("log")
    decorate(axes, f"Broadcast latency, {what} (median of the repetitions)", "latency (us)")
    written.append(save(fig, os.path.join(output_dir, figure_name("latency", ranks, root, mode))))

    fig, axes = plt.subplots(figsize=(10, 6))
    best = {}
    for algorithm in algorithms:
        if algorithm == "native":
            continue
        points = sorted(by_algorithm[algorithm].items())
        axes.plot([max(b, 1) for b, _ in points], [float(r["ratio_to_native"]) for _, r in points],
                  label=algorithm, **styles[algorithm])
        for b, r in points:
            ratio = float(r["ratio_to_native"])
            best[b] = min(best.get(b, ratio), ratio)
    if best:
        sizes = sorted(best)
        axes.plot([max(b, 1) for b in sizes], [best[b] for b in sizes], color="black", linestyle="--",
                  linewidth=2, label="best herald")
    axes.axhline(1.0, color="grey", linewidth=1)
    axes.set_yscale("log", base=2)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    decorate(axes, f"Ratio to native MPI_Bcast, {what} (below 1: herald faster)", "median / native median")
    written.append(save(fig, os.path.join(output_dir, figure_name("ratio", ranks, root, mode))))
    return written


def markdown_tables(key, by_algorithm):
    """The summary table (best herald per size) and the ratio matrix of one group, as Markdown."""
    ranks, root, mode = key
    native = by_algorithm.get("native", {})
    herald = [a for a in by_algorithm if a != "native"]
    sizes = sorted(set().union(*(set(points) for points in by_algorithm.values())))
    lines = [f"#### {ranks} ranks, root {root}" + ("" if mode == "blocking" else f", {mode}"), "",
             "| bytes | native median us | best herald | its median us | ratio | verdict |",
             "|---:|---:|---|---:|---:|---|"]
    for size in sizes:
        candidates = [(float(by_algorithm[a][size]["median_us"]), a) for a in herald if size in by_algorithm[a]]
        if not candidates or size not in native:
            continue
        _, best = min(candidates)
        row = by_algorithm[best][size]
        name = best if row["resolved"] == best else f"{best} ({row['resolved']})"
        lines.append(f"| {size} | {float(native[size]['median_us']):.2f} | {name} | "
                     f"{float(row['median_us']):.2f} | {float(row['ratio_to_native']):.2f} | "
                     f"{row['verdict'].replace('_', ' ')} |")
    lines += ["", "Ratio of each algorithm's median to native's median (below 1: faster than native):", "",
              "| bytes | " + " | ".join(herald) + " |", "|---:|" + "---:|" * len(herald)]
    for size in sizes:
        cells = []
        for a in herald:
            row = by_algorithm[a].get(size)
            cells.append(f"{float(row['ratio_to_native']):.2f}" if row else "")
        lines.append(f"| {size} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+", help="CSV files written by herald-bcast-bench --csv")
    parser.add_argument("-o", "--output-dir", help="where the PNGs go (default: next to the first CSV)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the Markdown tables to FILE")
    args = parse_args(parser)
    load_matplotlib()
    output_dir = args.output_dir or os.path.dirname(os.path.abspath(args.csv[0]))
    os.makedirs(output_dir, exist_ok=True)
    groups = read_rows(args.csv)
    if not groups:
        sys.exit("plot_bcast.py: no measurements in " + ", ".join(args.csv))
    for key in sorted(groups):
        for path in plot_group(key, groups[key], output_dir):
            print(path)
    if args.markdown:
        with open(args.markdown, "w") as handle:
            handle.write("\n".join(markdown_tables(key, groups[key]) for key in sorted(groups)))
        print(args.markdown)


if __name__ == "__main__":
    main()
