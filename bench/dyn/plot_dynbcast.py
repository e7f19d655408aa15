#!/usr/bin/env python3
"""Plots herald-dynbcast-bench results: latency against the number of recipients, one panel per message
size and rank count, dynamic broadcast vs MPI_Bcast vs a naive loop of sends (median, min-max bars).

    plot_dynbcast.py results/p2.csv results/p3.csv results/p4.csv -o dynbcast.png [--summary summary.csv]
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402

LABELS = {'dynbcast': 'dynamic broadcast (herald)', 'mpi_bcast': 'MPI_Bcast', 'naive_loop': 'naive loop of sends'}
STYLES = {'dynbcast': 'o-', 'mpi_bcast': 's--', 'naive_loop': '^:'}


def size_label(n):
    for unit, scale in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if n >= scale and n % scale == 0:
            return f'{n // scale} {unit}'
    return f'{n} B'


def load(paths):
    samples = defaultdict(list)  # (ranks, bytes, recipients, method) -> latencies
    for path in paths:
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                key = (int(row['ranks']), int(row['bytes']), int(row['recipients']), row['method'])
                samples[key].append(float(row['latency_us']))
    return samples


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('csv', nargs='+')
    ap.add_argument('-o', '--output', default='dynbcast.png')
    ap.add_argument('--summary', help='also write medians, min, max and ratios as CSV')
    ap.add_argument('--setting', help="what the ranks ran on, for the titles (default: 'oversubscribed' above "
                    "2 ranks, for this 2-core machine)")
    args = parse_args(ap)
    import matplotlib  # only now: --help needs none of it

    matplotlib.use('Agg')  # before pyplot
    import matplotlib.pyplot as plt

    samples = load(args.csv)
    ranks = sorted({k[0] for k in samples})
    sizes = sorted({k[1] for k in samples})
    methods = [m for m in LABELS if any(k[3] == m for k in samples)]

    fig, axes = plt.subplots(len(sizes), len(ranks), figsize=(4.2 * len(ranks), 3.4 * len(sizes)), squeeze=False)
    for i, size in enumerate(sizes):
        for j, p in enumerate(ranks):
            ax = axes[i][j]
            for m in methods:
                xs, med, lo, hi = [], [], [], []
                for k in sorted({key[2] for key in samples if key[0] == p and key[1] == size}):
                    v = samples.get((p, size, k, m))
                    if not v:
                        continue
                    xs.append(k)
                    med.append(statistics.median(v))
                    lo.append(med[-1] - min(v))
                    hi.append(max(v) - med[-1])
                if xs:
                    ax.errorbar(xs, med, yerr=[lo, hi], fmt=STYLES[m], capsize=3, label=LABELS[m])
            setting = args.setting if args.setting is not None else ('oversubscribed' if p > 2 else '')
            ax.set_title(f'{size_label(size)}, P = {p}' + (f' ({setting})' if setting else ''), fontsize=10)
            ax.set_xlabel('recipients')
            ax.set_ylabel('latency (us), median, min-max')
            ticks = sorted({key[2] for key in samples if key[0] == p})
            if ticks and ticks[-1] > 16:
                # Many ranks: logarithmic axes keep the small counts apart and the tree curves visible
                # beside the loop's line.
                ax.set_xscale('log', base=2)
                ax.set_yscale('log')
            ax.set_xticks(ticks, [str(k) for k in ticks])
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)

    if args.summary:
        with open(args.summary, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['ranks', 'bytes', 'recipients', 'method', 'median_us', 'min_us', 'max_us', 'reps',
                        'ratio_to_mpi_bcast', 'ratio_to_naive_loop'])
            for (p, size, k, m) in sorted(samples):
                v = samples[(p, size, k, m)]
                ref = {r: statistics.median(samples[(p, size, k, r)]) for r in ('mpi_bcast', 'naive_loop')
                       if (p, size, k, r) in samples}
                med = statistics.median(v)
                w.writerow([p, size, k, m, f'{med:.2f}', f'{min(v):.2f}', f'{max(v):.2f}', len(v),
                            f'{med / ref["mpi_bcast"]:.3f}' if 'mpi_bcast' in ref else '',
                            f'{med / ref["naive_loop"]:.3f}' if 'naive_loop' in ref else ''])


if __name__ == '__main__':
    main()
