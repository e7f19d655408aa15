#!/usr/bin/python3
"""Whether a herald broadcast's segments overlap, from a trace (HERALD_TRACE's trace.json or trace.json.xz):
the messages of a pipelined broadcast (chain and the like) should be in flight on several hops at once.

  /usr/bin/python3 bench/smpi/trace_bcast_analysis.py TRACE [--bcast ID|COMM:ID ...] [--algorithm NAME]

Without --bcast, every broadcast of --algorithm (default: every one in the trace) is analysed, one line
each, then the medians over them. Per broadcast:
  duration     last end - first start of its per-rank "bcast" spans (herald-trace's duration);
  data time    first send posted -> last receive completed;
  hops         the edges (sender -> receiver) it used; an edge's time runs from its first send posted to its
               last receive completed; "sum of hops" over the data time is how many hops were busy at once
               on average (1 = store and forward, one hop after the other);
  senders      ranks with a send open (posted, not completed) at one instant: max and time-weighted median
               and mean over the data time, and the share of it with two or more;
  early        receivers that got their first segment before their sender had its last one (a relay that
               forwards as it receives), over the receivers that relay;
  overlap      at a relay, the share of its sending time during which it was also receiving (an incoming
               message counts from its sender's post to its receive's completion): median over the relays.
               Segments forwarded one by one as they land, but all landing together (segments that share
               a link), overlap little; a pipeline overlaps almost all.
"""

import argparse
import collections
import importlib.machinery
import importlib.util
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HERALD_TRACE = os.path.join(HERE, "..", "..", "apps", "herald-trace", "herald-trace")


# apps/herald-trace as a module, loaded when first needed (load_herald_trace): --help needs none of it.
ht = None


def load_herald_trace():
    global ht
    if ht is None:
        loader = importlib.machinery.SourceFileLoader("herald_trace", HERALD_TRACE)
        spec = importlib.util.spec_from_loader("herald_trace", loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        ht = module
    return ht


def bcast_choice(text):
    """--bcast's ID or COMM:ID, read as herald-trace reads it."""
    return load_herald_trace().parse_bcast_choice(text)


def load(path):
    """The trace in PATH (a trace directory, trace.json or trace.json.xz), read by herald-trace."""
    try:
        return ht.load_trace(path)
    except ht.TraceError as e:
        sys.exit("trace_bcast_analysis: %s" % e)


def open_count(intervals, lo, hi):
    """[(duration, ranks with an interval open)] over [lo, hi], from {rank: [(start, end)]}."""
    events = []
    for rank, spans in intervals.items():
        for a, b in ht.merged(spans):
            events.append((max(a, lo), 1))
            events.append((min(b, hi), -1))
    events.sort()
    pieces, level, t = [], 0, lo
    for at, d in events:
        if at > t:
            pieces.append((at - t, level))
            t = at
        level += d
    if hi > t:
        pieces.append((hi - t, level))
    return pieces


def weighted_median(pieces):
    total = sum(w for w, _ in pieces)
    run = 0.0
    for w, level in sorted(pieces, key=lambda p: p[1]):
        run += w
        if run >= total / 2:
            return level
    return 0


def analyse(b, sends, recvs):
    pairs = ht.match_messages(sends, recvs)
    if not pairs:
        return None
    first = min(s.start for s, _ in pairs)
    last = max(r.end for _, r in pairs)
    data_time = last - first
    edges = collections.defaultdict(list)
    for s, r in pairs:
        edges[(s.rank, r.rank)].append((s, r))
    hop_times = [max(r.end for _, r in ms) - min(s.start for s, _ in ms) for ms in edges.values()]
    open_sends = collections.defaultdict(list)
    for s in sends:
        open_sends[s.rank].append((s.start, s.end))
    pieces = open_count(open_sends, first, last)
    total = sum(w for w, _ in pieces) or 1.0
    senders_max = max((lv for w, lv in pieces if w > 0), default=0)
    senders_mean = sum(w * lv for w, lv in pieces) / total
    two_or_more = sum(w for w, lv in pieces if lv >= 2) / total
    # Relays: ranks that receive and send. Arrivals per rank (receive completions), by offset.
    arrivals = collections.defaultdict(list)   # rank -> [(offset, sender's post, receive end)]
    departures = collections.defaultdict(list)  # rank -> [(offset, send post, send end)]
    for s, r in pairs:
        off = ht.integer(s.args.get("offset"), 0)
        arrivals[r.rank].append((off, s.start, r.end))
        departures[s.rank].append((off, s.start, s.end))
    sender_of = {r.rank: s.rank for s, r in pairs}
    early, relays_checked = 0, 0
    for rank, items in arrivals.items():
        parent = sender_of.get(rank)
        if parent is None or parent not in arrivals:
            continue  # its sender is the root, which has it all from the start
        relays_checked += 1
        if min(e for _, _, e in items) < max(e for _, _, e in arrivals[parent]):
            early += 1
    # At each relay: how much of its sending time it was also receiving (its incoming messages from the
    # sender's post to the receive's completion), and the segment-by-segment test.
    overlap_shares = []
    for rank, out in departures.items():
        if rank not in arrivals:
            continue
        sending = ht.merged([(s0, s1) for _, s0, s1 in out])
        receiving = ht.merged([(a0, a1) for _, a0, a1 in arrivals[rank]])
        both = sum(max(0.0, min(x1, y1) - max(x0, y0)) for x0, x1 in sending for y0, y1 in receiving)
        length = sum(x1 - x0 for x0, x1 in sending)
        if length > 0:
            overlap_shares.append(both / length)
    return {
        "duration": b.duration, "data_time": data_time, "messages": len(pairs), "hops": len(edges),
        "hop_sum": sum(hop_times), "hop_median": statistics.median(hop_times),
        "senders_max": senders_max, "senders_median": weighted_median(pieces), "senders_mean": senders_mean,
        "two_or_more": two_or_more, "early": early, "relays": relays_checked,
        "overlap": statistics.median(overlap_shares) if overlap_shares else 0.0,
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", metavar="TRACE")
    parser.add_argument("--bcast", action="append", type=bcast_choice, default=[], metavar="ID")
    parser.add_argument("--algorithm", help="only the broadcasts of this algorithm")
    args = parse_args(parser, argv)
    load_herald_trace()
    trace = load(args.trace)
    bcasts = ht.coll_bcasts(trace)
    if args.bcast:
        try:
            bcasts = ht.chosen_bcasts(bcasts, args.bcast, False)
        except ht.TraceError as e:
            sys.exit("trace_bcast_analysis: %s" % e)
    if args.algorithm:
        bcasts = [b for b in bcasts if b.algorithm == args.algorithm]
    if not bcasts:
        sys.exit("trace_bcast_analysis: no coll broadcast to analyse in %s" % trace.path)
    messages = ht.messages_by_bcast(trace)
    print("%-16s %-14s %9s %5s %4s %11s %11s %11s %8s %6s %6s %6s %6s %6s %7s"
          % ("bcast", "algorithm", "bytes", "ranks", "hops", "duration_us", "data_us", "hop_sum_us", "sum/data",
             "snd_mx", "snd_md", "snd_mn", ">=2", "early", "overlap"))
    results = []
    for b in bcasts:
        sends, recvs = messages.get(b.key, ([], []))
        r = analyse(b, sends, recvs)
        if r is None:
            continue
        results.append(r)
        ranks = len({s.rank for s in b.spans})
        print("%-16s %-14s %9d %5d %4d %11.1f %11.1f %11.1f %8.2f %6d %6d %6.2f %5.0f%% %6s %7s"
              % ("%d:%d" % b.key, b.algorithm[:14], b.bytes, ranks, r["hops"], r["duration"], r["data_time"],
                 r["hop_sum"], r["hop_sum"] / r["data_time"] if r["data_time"] > 0 else 0.0, r["senders_max"],
                 r["senders_median"], r["senders_mean"], 100 * r["two_or_more"],
                 "%d/%d" % (r["early"], r["relays"]), "%.0f%%" % (100 * r["overlap"])))
    if len(results) > 1:
        med = lambda k: statistics.median(x[k] for x in results)
        print("medians over %d broadcasts: duration %.1f us, data %.1f us, sum of hops / data %.2f, senders at once "
              "max %.1f mean %.2f, >=2 senders %.0f%% of the time, relays early %.0f%%, relays receiving while sending %.0f%%"
              % (len(results), med("duration"), med("data_time"),
                 statistics.median(x["hop_sum"] / x["data_time"] for x in results if x["data_time"] > 0),
                 med("senders_max"), med("senders_mean"), 100 * med("two_or_more"),
                 100 * statistics.median(x["early"] / x["relays"] for x in results if x["relays"]) if any(
                     x["relays"] for x in results) else 0.0,
                 100 * med("overlap")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
