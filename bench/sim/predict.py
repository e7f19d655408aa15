#!/usr/bin/env python3
"""Predictions at the scales SMPI cannot reach here: herald-sim prices auto's pick and the algorithms it ranked
next on large clusters, on the platform family bench/sim/agree-smpi.sh holds herald-sim to SMPI on.

  bench/sim/predict.py [--shapes 256x32,1024x64] [--topologies flat,fattree] [--bandwidths 10Gbps,100Gbps,400Gbps]
      [--sizes 16K,256K,1M,16M] [--alternatives 3] [--latency 1us] [--node-latency 0.2us]
      [--node-bandwidth 800Gbps] [--overhead 4e-8] [--eager 65535] [--oversubscription 4] [--out DIR] [--sim PATH]

A shape NODESxRANKS is NODES nodes of RANKS ranks each, in blocks. flat: every node on its own link into one
non-blocking switch; fattree: a two-level fat tree of leaves of L nodes (L = 16 up to 256 nodes, 32 above)
with L / --oversubscription uplinks each (SimGrid's FAT_TREE "2;L,S;1,U;1,1"). auto decides as a call does
with the platform's figures given (herald-sim --algorithm auto: alpha two link latencies, beta one over the
bandwidth, the node's figures), and knows nothing of the fat tree: that is the point of asking.

Each point's row is appended to predict.csv in --out as it finishes (a point already there is skipped, so a
stopped run resumes); predict.md is written from the whole file at the end, with the wall time of each
point. "best" is the fastest of auto's pick and the alternatives, as herald-sim prices them.
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "smpi"))
import bcast_report as units  # noqa: E402

FIELDS = ["shape", "topology", "bandwidth", "bytes", "auto", "auto_segment", "auto_leaders", "auto_us",
          "best", "best_segment", "best_leaders", "best_us", "auto_over_best", "alternatives", "wall_s"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="256x32,1024x64")
    ap.add_argument("--topologies", default="flat,fattree")
    ap.add_argument("--bandwidths", default="10Gbps,100Gbps,400Gbps")
    ap.add_argument("--sizes", default="16K,256K,1M,16M")
    ap.add_argument("--alternatives", type=int, default=3)
    ap.add_argument("--latency", default="1us")
    ap.add_argument("--node-latency", default="0.2us")
    ap.add_argument("--node-bandwidth", default="800Gbps")
    ap.add_argument("--overhead", default="4e-8")
    ap.add_argument("--eager", default="65535")
    ap.add_argument("--oversubscription", type=int, default=4)
    ap.add_argument("--out", default=os.path.join(here, "results", "predict"))
    ap.add_argument("--sim", default=os.path.join(here, "..", "..", "build", "apps", "herald-sim", "herald-sim"))
    a = parse_args(ap)
    for t in a.topologies.split(","):
        if t not in ("flat", "fattree"):
            ap.error(f"--topologies takes flat and fattree, not '{t}'")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "predict.csv")
    done = set()
    if os.path.exists(path):
        with open(path) as f:
            done = {(r["shape"], r["topology"], r["bandwidth"], r["bytes"]) for r in csv.DictReader(f)}
    else:
        with open(path, "w", newline="") as f:
            csv.DictWriter(f, fieldnames=FIELDS).writeheader()
    alpha = 2 * units.seconds(a.latency)
    node_alpha = units.seconds(a.node_latency)
    node_beta = 8 / units.bits_per_second(a.node_bandwidth)
    for shape in a.shapes.split(","):
        nodes, per_node = (int(x) for x in shape.split("x"))
        for topology in a.topologies.split(","):
            leaf = 16 if nodes <= 256 else 32
            tree = f"{leaf},{max(leaf // a.oversubscription, 1)}"
            name = "flat" if topology == "flat" else f"fattree:{tree}"
            for bandwidth in a.bandwidths.split(","):
                beta = 8 / units.bits_per_second(bandwidth)
                for size in (units.bytes_of(s) for s in a.sizes.split(",")):
                    if (shape, name, bandwidth, str(size)) in done:
                        continue
                    cmd = [a.sim, "--json", "--network", "fair", "--algorithm", "auto", "--ranks",
                           str(nodes * per_node), "--node-size", str(per_node), "--bytes", str(size), "--alpha",
                           repr(alpha), "--beta", repr(beta), "--overhead", a.overhead, "--eager", a.eager,
                           "--node-alpha", repr(node_alpha), "--node-beta", repr(node_beta), "--alternatives",
                           str(a.alternatives)]
                    if topology == "fattree":
                        cmd += ["--fat-tree", tree]
                    started = time.time()
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    if r.returncode != 0:
                        sys.exit(f"predict.py: {' '.join(cmd)} failed: {r.stderr.strip()}")
                    out = json.loads(r.stdout)
                    picks = [(out["algorithm"], out["segment"], out["leaders"], out["predicted_us"])]
                    k = 1
                    while f"alternative_{k}_algorithm" in out:
                        picks.append((out[f"alternative_{k}_algorithm"], out[f"alternative_{k}_segment"],
                                      out[f"alternative_{k}_leaders"], out[f"alternative_{k}_predicted_us"]))
                        k += 1
                    best = min((p for p in picks if p[3] >= 0), key=lambda p: p[3])
                    row = {"shape": shape, "topology": name, "bandwidth": bandwidth, "bytes": size,
                           "auto": picks[0][0], "auto_segment": picks[0][1], "auto_leaders": picks[0][2],
                           "auto_us": f"{picks[0][3]:.2f}", "best": best[0], "best_segment": best[1],
                           "best_leaders": best[2], "best_us": f"{best[3]:.2f}",
                           "auto_over_best": f"{picks[0][3] / best[3]:.3f}",
                           "alternatives": " ".join(f"{p[0]}:{p[3]:.2f}" for p in picks[1:]),
                           "wall_s": f"{time.time() - started:.1f}"}
                    with open(path, "a", newline="") as f:
                        csv.DictWriter(f, fieldnames=FIELDS).writerow(row)
                    print(f"{shape} {name} {bandwidth} {units.human_bytes(size)}: auto {row['auto']} {row['auto_us']} us, best "
                          f"{row['best']} {row['best_us']} us, {row['wall_s']} s", flush=True)
    with open(path) as f:
        rows = list(csv.DictReader(f))
    lines = [f"herald-sim predictions: alpha {alpha:g} s (two {a.latency} links), beta one over the bandwidth, node "
             f"{a.node_latency} and {a.node_bandwidth}, overhead {a.overhead} s, eager below {a.eager} bytes; fat "
             f"trees {a.oversubscription}:1 oversubscribed. auto decides knowing the nodes, not the fat tree.", "",
             "| nodes x ranks | network | bandwidth | size | auto (pick) us | best of auto and its next "
             f"{a.alternatives} us | auto / best | wall s |",
             "|---|---|---|---:|---|---|---:|---:|"]

    def pick(name, segment, leaders):
        extra = [x for x in (f"{units.human_bytes(int(segment))}" if segment and segment != "0" else "",
                             leaders if leaders else "") if x]
        return name + (f" ({', '.join(extra)})" if extra else "")

    for r in rows:
        lines.append(f"| {r['shape']} | {r['topology']} | {r['bandwidth']} | {units.human_bytes(int(r['bytes']))} | "
                     f"{r['auto_us']} ({pick(r['auto'], r['auto_segment'], r['auto_leaders'])}) | {r['best_us']} "
                     f"({pick(r['best'], r['best_segment'], r['best_leaders'])}) | {r['auto_over_best']} | "
                     f"{r['wall_s']} |")
    open(os.path.join(a.out, "predict.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
