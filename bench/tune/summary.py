"""Summarises herald-bcast-bench CSVs of auto against native: per file, the geometric mean of auto's median
over native's (all sizes, and from 4 KiB), and the sizes where auto is distinguishably slower or faster (the
benchmark's verdict: min-max ranges apart)."""
import csv
import math
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summarise(path):
    rows = [r for r in csv.DictReader(open(path)) if r["algorithm"] == "auto"]
    ratios = [(int(r["bytes"]), float(r["ratio_to_native"])) for r in rows]
    print(f"{path}: {len(ratios)} sizes, geometric mean auto/native {geomean([x for _, x in ratios]):.3f}, "
          f"from 4 KiB {geomean([x for s, x in ratios if s >= 4096]):.3f}")
    for verdict in ("slower", "faster"):
        listed = [f"{r['bytes']} ({r['resolved']}) {float(r['ratio_to_native']):.2f}" for r in rows if r["verdict"] == verdict]
        print(f"  {verdict}: {', '.join(listed) or 'none'}")


for path in sys.argv[1:]:
    summarise(path)
