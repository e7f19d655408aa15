"""Summarises herald-bcast-bench CSVs of auto against native: per file, the geometric mean of auto's median
over native's (all sizes, and from 4 KiB), the largest ratio, the sizes where auto is distinguishably slower
or faster (the benchmark's verdict: min-max ranges apart), and, where the file holds herald's algorithms too
(--algorithms all), auto's median over the fastest herald algorithm's at each size where that one beats
native, with the sizes where auto is more than 1.1x it or more than 1.05x native.

  python3 bench/tune/summary.py CSV...      (run-auto.sh and run-untuned.sh run it)"""
import argparse
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summarise(path):
    rows = list(csv.DictReader(open(path)))
    autos = [r for r in rows if r["algorithm"] == "auto"]
    ratios = [(int(r["bytes"]), float(r["ratio_to_native"])) for r in autos]
    worst = max(ratios, key=lambda x: x[1], default=(0, float("nan")))
    print(f"{path}: {len(ratios)} sizes, geometric mean auto/native {geomean([x for _, x in ratios]):.3f}, "
          f"from 4 KiB {geomean([x for s, x in ratios if s >= 4096]):.3f}, largest {worst[1]:.3f} at {worst[0]} B")
    for verdict in ("slower", "faster"):
        listed = [f"{r['bytes']} ({r['resolved']}) {float(r['ratio_to_native']):.2f}" for r in autos if r["verdict"] == verdict]
        print(f"  {verdict}: {', '.join(listed) or 'none'}")
    over_native = [f"{s} {x:.2f}" for s, x in ratios if x > 1.05]
    print(f"  auto above 1.05x native: {', '.join(over_native) or 'none'}")
    herald = [r for r in rows if r["algorithm"] not in ("auto", "native", "herald_native")]
    if not herald:
        return
    behind = []
    for r in autos:
        size = r["bytes"]
        best = min((h for h in herald if h["bytes"] == size), key=lambda h: float(h["median_us"]), default=None)
        if best is None or float(best["ratio_to_native"]) >= 1.0:
            continue
        x = float(r["median_us"]) / float(best["median_us"])
        if x > 1.1:
            behind.append(f"{size} ({r['resolved']} {x:.2f}x {best['algorithm']})")
    print(f"  where herald beats native, auto above 1.1x herald's fastest: {', '.join(behind) or 'none'}")


parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("csv", nargs="+", metavar="CSV", help="a CSV file herald-bcast-bench wrote")
for path in parse_args(parser).csv:
    summarise(path)
