#!/usr/bin/env python3
"""auto against every fixed algorithm and the lower bound at scale, from herald's simulator alone.

For each rank count and size, herald-sim prices what auto picks under the given network model
(--algorithm auto: the algorithm and parameters auto chooses, simulated), every algorithm with its default
parameters, and the segmented ones at each power-of-two segment from --min-segment up to a sixteenth of the
message (at most 4 MiB); the best of those is "best fixed". The bound is max(ceil(log2 P) alpha, n beta).

  bench/sim/scale.py [--ranks 16,64,256,1024] [--sizes 1,1K,64K,1M,16M,64M,256M,1G] [--alpha 2e-6]
      [--beta 8e-11] [--overhead 4e-8] [--eager 65535] [--out DIR] [--sim PATH]

The defaults are bench/smpi/run-bcast.sh's flat cluster at 100 Gbit/s and 1 us links (alpha = two link
latencies), with links shared fairly (--network fair). Writes scale.csv and scale.md into --out.
"""
import argparse
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402

SEGMENTED = {"chain", "two_tree", "split_binary", "binary", "binomial", "knomial", "scatter_ring",
             "scatter_ring_tuned", "scatter_rdb"}


def size_of(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def label(n):
    for unit, s in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= s and n % s == 0:
            return f"{n // s} {unit}"
    return f"{n} B"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", default="16,64,256,1024")
    ap.add_argument("--sizes", default="1,1K,64K,1M,16M,64M,256M,1G")
    ap.add_argument("--alpha", default="2e-6")
    ap.add_argument("--beta", default="8e-11")
    ap.add_argument("--overhead", default="4e-8")
    ap.add_argument("--eager", default="65535")
    ap.add_argument("--min-segment", default="64K")
    ap.add_argument("--out", default=os.path.join(here, "results"))
    ap.add_argument("--sim", default=os.path.join(here, "..", "..", "build", "apps", "herald-sim", "herald-sim"))
    a = parse_args(ap)
    os.makedirs(a.out, exist_ok=True)
    model = ["--network", "fair", "--alpha", a.alpha, "--beta", a.beta, "--overhead", a.overhead, "--eager", a.eager]
    names = subprocess.run([a.sim, "--help"], capture_output=True, text=True).stdout
    algorithms = names.split("algorithm name: ")[1].split(";")[0].split("\n")[0].strip().split(", ")
    algorithms = [x for x in algorithms if x != "hierarchical"]

    def sim(p, n, algorithm, segment=None):
        cmd = [a.sim, "--algorithm", algorithm, "--ranks", str(p), "--bytes", str(n), "--json"] + model
        if segment:
            cmd += ["--segment", str(segment)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"scale.py: {' '.join(cmd)} failed: {r.stderr.strip()}")
        import json
        return json.loads(r.stdout)

    rows = []
    for p in [int(x) for x in a.ranks.split(",")]:
        for n in [size_of(x) for x in a.sizes.split(",")]:
            auto = sim(p, n, "auto")
            best = None
            for algorithm in algorithms:
                candidates = [None]
                if algorithm in SEGMENTED:
                    s = size_of(a.min_segment)
                    while s <= min(n // 16, 4 << 20):
                        candidates.append(s)
                        s *= 2
                for segment in candidates:
                    r = sim(p, n, algorithm, segment)
                    if best is None or r["predicted_us"] < best["predicted_us"]:
                        best = r
            rows.append({"ranks": p, "bytes": n, "bound_us": auto["lower_bound_us"], "auto": auto["algorithm"],
                         "auto_segment": auto["segment"], "auto_us": auto["predicted_us"], "best": best["algorithm"],
                         "best_segment": best["segment"], "best_us": best["predicted_us"]})
            print(f"{p} ranks, {label(n)}: auto {auto['algorithm']} {auto['predicted_us']:.2f} us, best "
                  f"{best['algorithm']} {best['predicted_us']:.2f} us, bound {auto['lower_bound_us']:.2f} us", flush=True)
    with open(os.path.join(a.out, "scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = [f"herald-sim, links shared fairly, alpha {a.alpha} s, beta {a.beta} s/byte, overhead {a.overhead} s, "
             f"eager below {a.eager} bytes; segments from {a.min_segment}.", "",
             "| ranks | size | bound us | auto (pick, segment) us | best fixed (name, segment) us | auto / best | auto / bound |",
             "|---:|---:|---:|---|---|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['ranks']} | {label(r['bytes'])} | {r['bound_us']:.2f} | {r['auto_us']:.2f} ({r['auto']}, "
                     f"{label(r['auto_segment']) if r['auto_segment'] else '-'}) | {r['best_us']:.2f} ({r['best']}, "
                     f"{label(r['best_segment']) if r['best_segment'] else '-'}) | {r['auto_us'] / r['best_us']:.2f} | "
                     f"{r['auto_us'] / r['bound_us']:.2f} |")
    open(os.path.join(a.out, "scale.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
