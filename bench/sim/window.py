#!/usr/bin/env python3
"""The executor's send window on a network that shares links, from herald's simulator alone.

For each host count, link bandwidth and window (sends in flight per rank, and as many per peer), herald-sim
prices each pipelined algorithm at every segment size given and keeps the best:

  bench/sim/window.py [--ranks 16,64] [--betas 8e-11,8e-10] [--windows 1,2,4] [--bytes 16M]
      [--segments 96K,128K,256K,512K,1M] [--algorithms chain,two_tree,split_binary,scatter_ring]
      [--alpha 2e-6] [--overhead 5e-7] [--eager 65535] [--out DIR] [--sim PATH]

beta 8e-11 s/byte is 100 Gbit/s, 8e-10 is 10 Gbit/s; alpha is two 1 us links. Writes window.csv (every run)
and window.md (the best segment per algorithm) into --out.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402


def size_of(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", default="16,64")
    ap.add_argument("--betas", default="8e-11,8e-10")
    ap.add_argument("--windows", default="1,2,4")
    ap.add_argument("--bytes", default="16M")
    ap.add_argument("--segments", default="96K,128K,256K,512K,1M")
    ap.add_argument("--algorithms", default="chain,two_tree,split_binary,scatter_ring")
    ap.add_argument("--alpha", default="2e-6")
    ap.add_argument("--overhead", default="5e-7")
    ap.add_argument("--eager", default="65535")
    ap.add_argument("--out", default=os.path.join(here, "results"))
    ap.add_argument("--sim", default=os.path.join(here, "..", "..", "build", "apps", "herald-sim", "herald-sim"))
    a = parse_args(ap)
    os.makedirs(a.out, exist_ok=True)
    n = size_of(a.bytes)
    algorithms = a.algorithms.split(",")
    rows, best = [], {}
    for p in [int(x) for x in a.ranks.split(",")]:
        for beta in a.betas.split(","):
            for w in a.windows.split(","):
                for algorithm in algorithms:
                    for segment in a.segments.split(","):
                        cmd = [a.sim, "--algorithm", algorithm, "--ranks", str(p), "--bytes", str(n),
                               "--segment", str(size_of(segment)), "--network", "fair", "--alpha", a.alpha,
                               "--beta", beta, "--overhead", a.overhead, "--eager", a.eager,
                               "--window", w, "--window-per-peer", w, "--json"]
                        r = subprocess.run(cmd, capture_output=True, text=True)
                        if r.returncode != 0:
                            sys.exit(f"window.py: {' '.join(cmd)} failed: {r.stderr.strip()}")
                        out = json.loads(r.stdout)
                        us, used = out["predicted_us"], out["segment"]  # 0: the algorithm reads no segment
                        rows.append([p, beta, w, algorithm, used, f"{us:.2f}"])
                        key = (p, beta, w, algorithm)
                        if key not in best or us < best[key][0]:
                            best[key] = (us, segment if used else "-")
    with open(os.path.join(a.out, "window.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["ranks", "beta_s_per_byte", "window", "algorithm", "segment", "predicted_us"])
        out.writerows(rows)
    version = subprocess.run(["git", "-C", here, "describe", "--always"], capture_output=True,
                             text=True).stdout.strip() or "unknown"
    gbits = lambda beta: f"{8 / float(beta) / 1e9:g} Gbit/s"
    with open(os.path.join(a.out, "window.md"), "w") as f:
        f.write(f"herald-sim, links shared fairly, alpha {a.alpha} s, overhead {a.overhead} s, eager below "
                f"{a.eager} bytes; {a.bytes}, the best of segments {a.segments}; window = sends in flight per "
                f"rank and per peer. Command: bench/sim/window.py {' '.join(sys.argv[1:])}; herald {version}, "
                f"{time.strftime('%Y-%m-%d', time.gmtime())}\n\n")
        f.write("| hosts, link | window | " + " | ".join(algorithms) + " |\n")
        f.write("|---|---:|" + "---:|" * len(algorithms) + "\n")
        for p in [int(x) for x in a.ranks.split(",")]:
            for beta in a.betas.split(","):
                for w in a.windows.split(","):
                    cells = [f"{best[(p, beta, w, x)][0]:.0f} ({best[(p, beta, w, x)][1]})" for x in algorithms]
                    f.write(f"| {p}, {gbits(beta)} | {w} | " + " | ".join(cells) + " |\n")


if __name__ == "__main__":
    main()
