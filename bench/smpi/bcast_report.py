#!/usr/bin/env python3
"""Gathers the runs of bench/smpi/run-bcast.sh into one CSV, markdown tables and plots.

    /usr/bin/python3 bench/smpi/bcast_report.py --manifest results/runs.csv --out results --latency 1us

The manifest (runs.csv, written by run-bcast.sh) has one line per smpirun: topology, bandwidth, latency,
hosts, bytes, run ("herald" or "smpi_<algorithm>"), status (ok, failed, timeout, skipped), wall_s,
shared_buffer and the herald-bcast-bench CSV it wrote. Writes into --out:

  smpi-bcast.csv   one row per topology, bandwidth, hosts, size and algorithm: time_us (the benchmark's
                   median), lower_bound_us, and the ratios to the bound, to the best SMPI built-in
                   algorithm and to SMPI's default MPI_Bcast; auto_pick on auto's rows
  smpi-bcast.md    per setting and size: the bound, herald's auto (its pick), the best herald algorithm, the
                   best SMPI built-in, SMPI's default and two ratios; then, per setting, the runs' wall
                   times and every run that did not end well
  smpi-bcast-<topology>-<bandwidth>.png   time / lower bound per size, one panel per host count

Lower bound of a broadcast of n bytes to P hosts: max(ceil(log2 P) * alpha, n * beta), with alpha two link
latencies (a message crosses two links at least) and beta the time a link takes per byte: the number of
ranks holding the data at most doubles per message time, and every byte must cross the root's link.
Pipelined optimum: (sqrt(n beta) + sqrt((ceil(log2 P) - 1) alpha))^2, the least a broadcast cut into
segments of one size can take when a rank sends one and receives one at a time (n - 1 + ceil(log2 P)
rounds at the best segment count), which herald's circulant reaches on herald's simulator.
"""

import argparse
import csv
import math
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402

SMPI_DEFAULT = "smpi:default"
TUNED = "auto, tuned"  # auto reading the tuning file herald-tune wrote on the platform (--models tuned)
UNTUNED = "auto, no model"  # auto with no tuning file and no HERALD_ variable, as first used (--models none)
USERS = {"herald_tuned": TUNED, "herald_none": UNTUNED}  # auto the ways users run it: run label -> row name
FIELDS = ["topology", "bandwidth_gbps", "hosts", "bytes", "algorithm", "time_us", "lower_bound_us",
          "ratio_to_bound", "pipelined_optimum_us", "ratio_to_optimum", "ratio_to_best_smpi",
          "ratio_to_smpi_default", "auto_pick"]


def seconds(text):
    """'1us' -> 1e-6."""
    match = re.fullmatch(r"([0-9.]+)(s|ms|us|ns)", text)
    if not match:
        sys.exit(f"bcast_report.py: cannot read the time '{text}'")
    return float(match.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[match.group(2)]


def bits_per_second(text):
    """SimGrid's rate in bits: '10Gbps' -> 1e10."""
    match = re.fullmatch(r"([0-9.]+)([kMGT]?)bps", text)
    if not match:
        sys.exit(f"bcast_report.py: cannot read the bandwidth '{text}'")
    return float(match.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[match.group(2)]


def lower_bound_us(hosts, size, latency_s, bandwidth_bps):
    alpha = 2 * latency_s
    beta = 8 / bandwidth_bps
    return max(math.ceil(math.log2(hosts)) * alpha, size * beta) * 1e6


def pipelined_optimum_us(hosts, size, latency_s, bandwidth_bps):
    alpha = 2 * latency_s
    beta = 8 / bandwidth_bps
    fill = max(math.ceil(math.log2(hosts)) - 1, 0) * alpha
    return (math.sqrt(size * beta) + math.sqrt(fill)) ** 2 * 1e6


def human_bytes(value):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale and value % scale == 0:
            return f"{value // scale} {unit}"
    return f"{value} B"


def bytes_of(text):
    """'16K' -> 16384 (K, M and G suffixes, powers of two)."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def short_bytes(value):
    """Axis label: 1024 -> '1K'."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value >= scale:
            return f"{value / scale:g}{unit}"
    return f"{value:g}"


def read_manifest(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def gather(runs):
    """{(topology, bandwidth, hosts): {bytes: {algorithm: (time_us, resolved)}}} from the runs that ended."""
    settings = defaultdict(lambda: defaultdict(dict))
    for run in runs:
        if run["status"] != "ok" or run["run"] == "tune" or not os.path.exists(run["csv"]):
            continue
        key = (run["topology"], run["bandwidth"], int(run["hosts"]))
        with open(run["csv"], newline="") as handle:
            for row in csv.DictReader(handle):
                size = int(row["bytes"])
                if run["run"] == "herald":
                    # The herald run's native is SMPI's MPI_Bcast as configured by default.
                    name = SMPI_DEFAULT if row["algorithm"] == "native" else row["algorithm"]
                elif run["run"] in USERS:
                    # auto as a user runs it: its row only (its native is the herald run's again).
                    if row["algorithm"] != "auto":
                        continue
                    name = USERS[run["run"]]
                else:
                    if row["algorithm"] != "native":
                        continue
                    name = "smpi:" + run["run"][len("smpi_"):]
                settings[key][size][name] = (float(row["median_us"]), row["resolved"])
    return settings


def is_smpi(name):
    return name.startswith("smpi:")


def best(entries, keep):
    """(name, time) of the fastest entry whose name passes `keep`, or (None, None)."""
    chosen = [(time, name) for name, (time, _) in entries.items() if keep(name)]
    if not chosen:
        return None, None
    time, name = min(chosen)
    return name, time


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(value, spec="{:.2f}"):
    return "" if value is None else spec.format(value)


def analyse(settings, latency_s):
    """Rows for the CSV and, per setting and size, the summary the table shows."""
    rows, summaries = [], defaultdict(list)
    for (topology, bandwidth, hosts), sizes in sorted(settings.items(),
                                                      key=lambda kv: (kv[0][0], bits_per_second(kv[0][1]), kv[0][2])):
        for size in sorted(sizes):
            entries = sizes[size]
            bound = lower_bound_us(hosts, size, latency_s, bits_per_second(bandwidth))
            optimum = pipelined_optimum_us(hosts, size, latency_s, bits_per_second(bandwidth))
            best_smpi_name, best_smpi = best(entries, lambda n: is_smpi(n) and n != SMPI_DEFAULT)
            default = entries.get(SMPI_DEFAULT, (None, None))[0]
            auto, pick = entries.get("auto", (None, ""))
            users = {name: entries.get(name, (None, "")) for name in USERS.values()}
            for name, (time, resolved) in sorted(entries.items(), key=lambda e: (is_smpi(e[0]), e[0])):
                rows.append({
                    "topology": topology,
                    "bandwidth_gbps": f"{bits_per_second(bandwidth) / 1e9:g}",
                    "hosts": hosts,
                    "bytes": size,
                    "algorithm": name,
                    "time_us": f"{time:.4f}",
                    "lower_bound_us": f"{bound:.4f}",
                    "ratio_to_bound": fmt(ratio(time, bound), "{:.4f}"),
                    "pipelined_optimum_us": f"{optimum:.4f}",
                    "ratio_to_optimum": fmt(ratio(time, optimum), "{:.4f}"),
                    "ratio_to_best_smpi": fmt(ratio(time, best_smpi), "{:.4f}"),
                    "ratio_to_smpi_default": fmt(ratio(time, default), "{:.4f}"),
                    "auto_pick": resolved if name == "auto" or name in USERS.values() else "",
                })
            # auto resolves to one of herald's algorithms: the best herald algorithm is chosen without it.
            best_herald_name, best_herald = best(entries, lambda n: not is_smpi(n) and n != "auto" and n not in USERS.values())
            summaries[(topology, bandwidth, hosts)].append({
                "bytes": size, "bound": bound, "optimum": optimum, "auto": auto, "pick": pick,
                "users": users,
                "best_herald": best_herald, "best_herald_name": best_herald_name,
                "best_smpi": best_smpi, "best_smpi_name": best_smpi_name, "default": default,
            })
    return rows, summaries


def write_csv(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def named(time, name):
    return "" if time is None else f"{time:.2f} ({name})"


def write_markdown(path, summaries, runs, preamble):
    lines = []
    if preamble:
        with open(preamble) as handle:
            lines.append(handle.read().rstrip("\n"))
            lines.append("")
    lines += [
        "Times in microseconds: each broadcast from one start on every rank to the last rank's finish. The bound",
        "is max(ceil(log2 P) x 2 latencies, n / bandwidth); the pipelined optimum (\"optimum\") is",
        "(sqrt(n / bandwidth) + sqrt((ceil(log2 P) - 1) x 2 latencies))^2, the least a broadcast in segments of one",
        "size can take when a rank sends one and receives one at a time. herald's algorithms and `auto` ran in one smpirun,",
        "whose `native` is SMPI's default `MPI_Bcast` (\"SMPI default\"); each SMPI built-in algorithm ran in its",
        "own (`--cfg=smpi/bcast:NAME`). Below 1, \"herald / SMPI\" means herald's best is faster than SMPI's best",
        "built-in; \"auto / best\" is what `auto`'s choice costs over the best herald algorithm (1: it chose the best);",
        "\"auto / optimum\" is auto's time over the pipelined optimum. Where herald-tune ran on the platform",
        "(--models tuned), \"auto, tuned\" is `auto` reading the file it wrote, a user's path, beside the",
        "hand-given model's `auto`; \"auto, no model\" (--models none) is `auto` with neither, as first used.",
        "",
    ]
    shown = [name for name in USERS.values()
             if any(e["users"][name][0] is not None for entries in summaries.values() for e in entries)]
    for (topology, bandwidth, hosts), entries in summaries.items():
        users_head = "".join(f" {name} (pick) | {name.removeprefix('auto, ')} / optimum |" for name in shown)
        lines += [f"## {topology}, {bandwidth}, {hosts} hosts", "",
                  "| size | bound | optimum | herald auto (pick) | best herald | best SMPI built-in | SMPI default "
                  "| herald / SMPI | auto / best | auto / optimum |" + users_head,
                  "|---:|---:|---:|---|---|---|---:|---:|---:|---:|" + "---|---:|" * len(shown)]
        for e in entries:
            cells = [
                human_bytes(e["bytes"]), f"{e['bound']:.2f}", f"{e['optimum']:.2f}", named(e["auto"], e["pick"]),
                named(e["best_herald"], e["best_herald_name"]),
                named(e["best_smpi"], (e["best_smpi_name"] or "")[len("smpi:"):]), fmt(e["default"]),
                fmt(ratio(e["best_herald"], e["best_smpi"])), fmt(ratio(e["auto"], e["best_herald"])),
                fmt(ratio(e["auto"], e["optimum"])),
            ]
            for name in shown:
                time, pick = e["users"][name]
                cells += [named(time, pick), fmt(ratio(time, e["optimum"]))]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    # Where auto's pick is not herald's fastest: each row is explained in the docs or mended.
    missed = [(key, e) for key, entries in summaries.items() for e in entries
              if e["auto"] is not None and e["best_herald"] and e["auto"] > 1.05 * e["best_herald"]]
    if missed:
        lines += ["## Where auto's pick is not herald's fastest", "",
                  "Rows above where `auto` took more than 1.05 times herald's fastest algorithm measured:", "",
                  "| topology | bandwidth | hosts | size | auto (pick) | fastest herald | auto / best |",
                  "|---|---|---:|---:|---|---|---:|"]
        for (topology, bandwidth, hosts), e in missed:
            lines.append(f"| {topology} | {bandwidth} | {hosts} | {human_bytes(e['bytes'])} | "
                         f"{named(e['auto'], e['pick'])} | {named(e['best_herald'], e['best_herald_name'])} | "
                         f"{fmt(ratio(e['auto'], e['best_herald']))} |")
        lines.append("")
    lines += ["## Runs", "",
              "Wall time of the smpiruns (one per setting, size and run) on this machine; the herald run measures",
              "every herald algorithm and `auto`, each SMPI run one built-in algorithm.", "",
              "| topology | bandwidth | hosts | size | herald run (s) | SMPI runs (s), total | slowest SMPI run | buffer |",
              "|---|---|---:|---:|---:|---:|---|---|"]
    points = defaultdict(list)
    for run in runs:
        if run["run"] == "tune":  # herald-tune's run on a platform: its wall time is in runs.csv
            continue
        points[(run["topology"], run["bandwidth"], int(run["hosts"]), int(run["bytes"]))].append(run)
    for (topology, bandwidth, hosts, size), group in points.items():
        herald = [r for r in group if r["run"].startswith("herald")]
        smpi = [r for r in group if r["run"].startswith("smpi_") and r["status"] != "skipped"]
        slowest = max(smpi, key=lambda r: int(r["wall_s"]), default=None)
        buffers = {r["shared_buffer"] for r in group if r["shared_buffer"]}
        lines.append("| " + " | ".join([
            topology, bandwidth, str(hosts), human_bytes(size),
            " ".join(f"{r['wall_s']} ({r['status']})" if r["status"] != "ok" else r["wall_s"] for r in herald),
            str(sum(int(r["wall_s"]) for r in smpi)),
            f"{slowest['run'][len('smpi_'):]}, {slowest['wall_s']}" if slowest else "",
            "shared" if buffers == {"yes"} else "own, validated" if buffers == {"no"} else "",
        ]) + " |")
    trouble = [r for r in runs if r["status"] != "ok"]
    if trouble:
        lines += ["", "Runs that did not end well (timeout: stopped at --timeout; skipped: a smaller size of the same",
                  "run timed out; failed: see runs/ for its log):", "",
                  "| topology | bandwidth | hosts | size | run | status |", "|---|---|---:|---:|---|---|"]
        for r in trouble:
            lines.append(f"| {r['topology']} | {r['bandwidth']} | {r['hosts']} | {human_bytes(int(r['bytes']))} | "
                         f"{r['run']} | {r['status']} |")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def plot(out, summaries):
    """One PNG per topology and bandwidth, one panel per host count: time / bound against size."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        print("bcast_report.py: matplotlib is missing (Debian: python3-matplotlib); no plots", file=sys.stderr)
        return []
    groups = defaultdict(dict)
    for (topology, bandwidth, hosts), entries in summaries.items():
        groups[(topology, bandwidth)][hosts] = entries
    written = []
    lines = [("best herald", "best_herald", dict(color="tab:blue", marker="o")),
             ("herald auto", "auto", dict(color="tab:cyan", marker="x", linestyle="--")),
             ("best SMPI built-in", "best_smpi", dict(color="tab:red", marker="s")),
             ("SMPI default", "default", dict(color="black", marker="^", linestyle=":"))]
    for (topology, bandwidth), by_hosts in sorted(groups.items()):
        counts = sorted(by_hosts)
        fig, axes = plt.subplots(1, len(counts), figsize=(max(6.0, 4.2 * len(counts)), 3.8), squeeze=False,
                                 sharey=True)
        for axis, hosts in zip(axes[0], counts):
            entries = by_hosts[hosts]
            for label, key, style in lines:
                points = [(e["bytes"], e[key] / e["bound"]) for e in entries if e[key] is not None]
                if points:
                    axis.plot(*zip(*points), label=label, linewidth=1.3, markersize=4, **style)
            axis.axhline(1.0, color="grey", linewidth=0.8)
            axis.set_xscale("log", base=2)
            axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: short_bytes(value)))
            axis.set_yscale("log")
            axis.set_title(f"{hosts} hosts")
            axis.set_xlabel("bytes")
            axis.grid(True, which="both", alpha=0.3)
        axes[0][0].set_ylabel("time / lower bound")
        axes[0][0].legend(fontsize=7)
        fig.suptitle(f"broadcast on a simulated {topology} cluster, {bandwidth} links", fontsize=11)
        fig.tight_layout()
        path = os.path.join(out, f"smpi-bcast-{topology}-{bandwidth}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", required=True, help="runs.csv written by run-bcast.sh")
    parser.add_argument("--out", required=True, help="directory for the CSV, the tables and the plots")
    parser.add_argument("--latency", default="1us", help="one link's latency, e.g. 1us")
    parser.add_argument("--preamble", help="markdown to put first in smpi-bcast.md")
    args = parse_args(parser)
    runs = read_manifest(args.manifest)
    rows, summaries = analyse(gather(runs), seconds(args.latency))
    write_csv(os.path.join(args.out, "smpi-bcast.csv"), rows)
    write_markdown(os.path.join(args.out, "smpi-bcast.md"), summaries, runs, args.preamble)
    plot(args.out, summaries)


if __name__ == "__main__":
    main()
