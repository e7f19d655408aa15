#!/usr/bin/env python3
"""The table of bench/runtime/run-reduce-smpi.sh: per control, workers and mode, herald's median over every
run (each run measures herald beside one of SMPI's algorithms), the best algorithm's median and the ratio.
An algorithm that took no simulated time at all (SMPI's smp_* ones on a communicator they cannot map to
nodes) is listed, but not counted as the best.

    reduce_report.py reduce-smpi.csv --out reduce-smpi.md --command "..." --platform "..."
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
from cli_args import parse_args  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--out", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--platform", required=True)
    args = parse_args(parser)
    groups = defaultdict(list)
    with open(args.csv) as f:
        for row in csv.DictReader(f):
            groups[(row["control"], int(row["workers"]), row["mode"])].append(row)
    lines = [
        "# A reduction through the task runtime beside SMPI's built-ins",
        "",
        f"Command: `{args.command}`",
        "",
        f"Platform: {args.platform}.",
        "",
        "herald: the runtime's median over every run (simulated seconds from the first submit to the end of",
        "wait(), slowest rank). Best: the fastest of SMPI's algorithms for MPI_Reduce (reduce) or MPI_Allreduce",
        "(allreduce), its median. Combine: one built-in sum of the bytes on this host, not simulated.",
        "",
        "| control | workers | mode | herald (ms) | best algorithm | best (ms) | herald / best | algorithms failed | combine on host (ms) |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|",
    ]
    for (control, workers, mode), rows in sorted(groups.items()):
        ok = [r for r in rows if r["status"] == "ok" and r["herald_s"] and r["mpi_s"] and float(r["mpi_s"]) > 0]
        failed = [r["algorithm"] for r in rows if r["status"] != "ok" or not r["mpi_s"]]
        if not ok:
            lines.append(f"| {control} | {workers} | {mode} | - | - | - | - | {len(failed)} | - |")
            continue
        herald = statistics.median(float(r["herald_s"]) for r in rows if r["status"] == "ok" and r["herald_s"])
        best = min(ok, key=lambda r: float(r["mpi_s"]))
        combine = statistics.median(float(r["combine_host_s"]) for r in ok if r["combine_host_s"])
        failed_text = f"{len(failed)} ({', '.join(failed)})" if failed else "0"
        lines.append(
            f"| {control} | {workers} | {mode} | {herald * 1e3:.3f} | {best['algorithm']} | "
            f"{float(best['mpi_s']) * 1e3:.3f} | {herald / float(best['mpi_s']):.3f} | {failed_text} | {combine * 1e3:.3f} |"
        )
    lines += ["", "Every algorithm, MPI's median (ms); herald's median in each of those runs:", ""]
    for (control, workers, mode), rows in sorted(groups.items()):
        cells = ", ".join(
            (f"{r['algorithm']} {float(r['mpi_s']) * 1e3:.3f}" + (" (no time: not counted)" if float(r["mpi_s"]) == 0 else ""))
            if r["status"] == "ok" and r["mpi_s"]
            else f"{r['algorithm']} {r['status']}"
            for r in rows
        )
        lines.append(f"- {control}, {workers} workers, {mode}: {cells}")
        runs = [float(r["herald_s"]) for r in rows if r["status"] == "ok" and r["herald_s"]]
        if runs:
            lines.append(f"  - herald in those {len(runs)} runs: {min(runs) * 1e3:.3f} to {max(runs) * 1e3:.3f} ms "
                         f"(spread {(max(runs) / min(runs) - 1) * 100:.2f}%)")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
