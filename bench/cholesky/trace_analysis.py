#!/usr/bin/python3
"""Figures from traces of herald-cholesky (bench/cholesky/trace-smpi.sh): where the time of each strategy
goes, and for the dynamic broadcast whether its pieces leave a rank in priority order.

  /usr/bin/python3 bench/cholesky/trace_analysis.py TRACE [TRACE ...] [--bandwidth 10Gbps] [--cores 16]

TRACE is a trace directory (holding trace.json or trace.json.xz) or the file itself. Per trace it prints:
  tasks        makespan, and the wait of each kernel's tasks from ready (inputs all here) to start;
  cores        modelled cores left free while a task was ready on the same rank, and the runtime broadcasts
               open per worker (each pass of a worker's loop tests every one);
  delivery     per (version, rank that reads it): when it landed there against the first use there, so data
               pushed far ahead of need shows as a long lead, and data that came last as "on time";
  outgoing     bytes queued or on the wire from each rank over time (dyn pieces, or fetches served);
  dyn queue    (dynbcast) each piece's time from queued on the channel to off the rank, by priority band,
               and the pieces of lower priority that left a rank while one of higher priority waited there;
  hold         (dynbcast) on a rank that forwards a broadcast, the time from its last piece landing to the
               receive completing (dyn completes a receive only once its forwards have left);
  critical     herald-trace's critical path, and on it the hand-overs between ranks split into the input's
               travel and the wait after it landed;
  head         the head's scheduling time.

The task graph is rebuilt from the program's submission order (apps/herald-cholesky/tiled.cpp): task ids
are given in that order, so each task's kernel and tiles are known; the rebuilt kernels are checked against
the trace. Dyn pieces are joined to runtime broadcasts by (origin, destination, sequence number): each origin
numbers its broadcasts to each rank in the order it sends them, which is the order of the runtime's
broadcast ids (checked: every joined broadcast's pieces must sum to its bytes and land before it ends).
"""

import argparse
import bisect
import collections
import heapq
import importlib.machinery
import importlib.util
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_args import parse_args  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HERALD_TRACE = os.path.join(HERE, "..", "..", "apps", "herald-trace", "herald-trace")
SEQ_MASK = (1 << 40) - 1


def load_herald_trace():
    """apps/herald-trace as a module (its critical path and its reader)."""
    loader = importlib.machinery.SourceFileLoader("herald_trace", HERALD_TRACE)
    spec = importlib.util.spec_from_loader("herald_trace", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# numpy and apps/herald-trace, loaded once the command line is read (load_modules): --help needs neither.
np = ht = None


def load_modules():
    global np, ht
    import numpy as np

    ht = load_herald_trace()


def load(path):
    """The trace in PATH (a trace directory, trace.json or trace.json.xz), read by herald-trace."""
    try:
        return ht.load_trace(path)
    except ht.TraceError as e:
        sys.exit("trace_analysis: %s" % e)


def bits_per_second(text):
    m = re.fullmatch(r"([0-9.]+)([kMGT]?)bps", text)
    if not m:
        raise argparse.ArgumentTypeError("'%s' is not a rate like 10Gbps" % text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]


def q(values, p):
    """The p-quantile (0..1) of values, or nan."""
    if len(values) == 0:
        return float("nan")
    return float(np.quantile(np.asarray(values, dtype=float), p))


def ms(us):
    return "%.3f" % (us / 1000.0)


def describe(values, unit_ms=True):
    """n, mean, median, p90, max of us values, in ms."""
    if len(values) == 0:
        return "n 0"
    f = ms if unit_ms else (lambda v: "%.1f" % v)
    return "n %d  mean %s  median %s  p90 %s  max %s" % (
        len(values), f(float(np.mean(values))), f(q(values, 0.5)), f(q(values, 0.9)), f(float(np.max(values))))


# ---------------------------------------------------------------------------------------------- the graph

class Task:
    __slots__ = ("id", "kernel", "m", "n", "k", "out", "version", "reads")

    def __init__(self, tid, kernel, m, n, k, out, version, reads):
        self.id, self.kernel, self.m, self.n, self.k = tid, kernel, m, n, k
        self.out, self.version, self.reads = out, version, reads


def tile_index(m, k):
    return m * (m + 1) // 2 + k


def cholesky_graph(tiles):
    """[Task] in submission order; a tile's version 1 is its generation, each later write adds one."""
    version = {}
    tasks = []

    def add(kernel, m, n, k, reads):
        out = tile_index(m, n)
        version[out] = version.get(out, 0) + 1
        tasks.append(Task(len(tasks), kernel, m, n, k, out, version[out],
                          [(t, version[t]) for t in reads]))

    for m in range(tiles):
        for k in range(m + 1):
            add("generate", m, k, 0, [])
    for k in range(tiles):
        add("potrf", k, k, k, [])
        for m in range(k + 1, tiles):
            add("trsm", m, k, k, [tile_index(k, k)])
        for m in range(k + 1, tiles):
            add("syrk", m, m, k, [tile_index(m, k)])
            for n in range(k + 1, m):
                add("gemm", m, n, k, [tile_index(m, k), tile_index(n, k)])
    return tasks


# ---------------------------------------------------------------------------------------------- one trace

class Run:
    def __init__(self, trace, bandwidth, cores):
        self.trace = trace
        self.cores = cores
        self.bandwidth = bandwidth  # bits per second
        self.tasks = {}
        for s in trace.cat("task"):
            tid = ht.task_id(s)
            if tid is not None:
                self.tasks[tid] = s
        generates = sum(1 for s in self.tasks.values() if s.name == "generate")
        self.tiles = int(round((math.sqrt(8 * generates + 1) - 1) / 2))
        self.graph = cholesky_graph(self.tiles)
        mismatched = sum(1 for t in self.graph if t.id in self.tasks and self.tasks[t.id].name != t.kernel)
        if mismatched or len(self.graph) != len(self.tasks):
            sys.exit("trace_analysis: %s: the trace's tasks are not herald-cholesky's graph of %d tiles "
                     "(%d tasks in the trace, %d rebuilt, %d kernels differ)"
                     % (trace.path, self.tiles, len(self.tasks), len(self.graph), mismatched))
        self.producer = {(t.out, t.version): t for t in self.graph}
        self.readers = collections.defaultdict(list)  # (tile, version) -> reading tasks
        for t in self.graph:
            for key in t.reads:
                self.readers[key].append(t)
        self.start = min(s.start for s in self.tasks.values() if s.name != "generate")
        self.end = max(s.end for s in self.tasks.values())
        self.strategy = self.guess_strategy()

    def guess_strategy(self):
        names = collections.Counter(s.name for s in self.trace.cat("broadcast"))
        return names.most_common(1)[0][0] if names else "nobcast"

    # ------------------------------------------------------------------ deliveries
    def deliveries(self):
        """{(tile, version, rank): landed us} for every version that came to a rank from elsewhere."""
        landed = {}
        for x in self.trace.cat("transfer"):
            key = (ht.integer(x.args.get("data")), ht.integer(x.args.get("version")), x.rank)
            landed[key] = min(landed.get(key, math.inf), x.end)
        for s in self.trace.cat("broadcast"):
            if s.args.get("role") != "recipient":
                continue
            key = (ht.integer(s.args.get("data")), ht.integer(s.args.get("version")), s.rank)
            landed[key] = min(landed.get(key, math.inf), s.end)
        return landed

    def first_use(self):
        """{(tile, version, rank): (first start of a reader there, that reader)}."""
        use = {}
        for key, readers in self.readers.items():
            for t in readers:
                s = self.tasks[t.id]
                k = (key[0], key[1], s.rank)
                if k not in use or s.start < use[k][0]:
                    use[k] = (s.start, t)
        return use


# ---------------------------------------------------------------------------------------------- sections

def section_tasks(run, out):
    out("tasks: %d (%d tiles of %d), factorisation %s ms (first non-generate task start to last task end)"
        % (len(run.tasks), run.tiles, run.tiles, ms(run.end - run.start)))
    out("  wait from ready (all inputs here) to start, ms, by kernel:")
    waits = collections.defaultdict(list)
    for t in run.graph:
        s = run.tasks[t.id]
        ready = ht.number(s.args.get("ready"))
        if ready is not None and t.kernel != "generate":
            waits[t.kernel].append(s.start - ready)
    for kernel in ("potrf", "trsm", "syrk", "gemm"):
        out("    %-6s %s" % (kernel, describe(waits[kernel])))
    return waits


def section_cores(run, out):
    """Modelled cores left free while tasks were ready on the same rank, and the broadcast requests open there
    (a worker tests every open one in each pass of its loop)."""
    starved_total, busy_total, starved_time = 0.0, 0.0, 0.0
    stretches = []
    for rank in sorted({s.rank for s in run.tasks.values()}):
        n = run.cores
        events = []
        for s in run.tasks.values():
            if s.rank != rank or s.name == "generate":
                continue
            ready = ht.number(s.args.get("ready"))
            events += [(s.start, 1, -1), (s.end, -1, 0)]
            if ready is not None and ready < s.start:
                events.append((ready, 0, 1))
        events.sort()
        running = waiting = 0
        t_prev = None
        stretch = None  # start of the current stretch with a free core and a ready task
        for t, d_run, d_wait in events:
            if t_prev is not None and t > t_prev:
                free = max(0, n - running)
                starved_total += min(free, waiting) * (t - t_prev)
                busy_total += running * (t - t_prev)
                if free > 0 and waiting > 0:
                    starved_time += t - t_prev
            running += d_run
            waiting += d_wait
            t_prev = t
            starved = running < n and waiting > 0
            if starved and stretch is None:
                stretch = t
            elif not starved and stretch is not None:
                if t > stretch:
                    stretches.append(t - stretch)
                stretch = None
    ranks = len({s.rank for s in run.tasks.values()})
    span = run.end - run.start
    out("cores: %d modelled per rank; core time busy %s ms, left free while a task was ready there %s ms "
        "(%s of the core time); a rank had a free core and a ready task %s of the time"
        % (run.cores, ms(busy_total), ms(starved_total),
           pct(starved_total, busy_total + starved_total), pct(starved_time, ranks * span)))
    out("  stretches with a free core and a ready task on a rank (until a task starts there): %s"
        % describe(stretches))
    spans = run.trace.cat("broadcast")
    if spans:
        marks = []
        for t in (0.1, 0.25, 0.5, 0.75, 0.9):
            at = run.start + t * span
            per = collections.Counter(s.rank for s in spans if s.start <= at < s.end)
            marks.append("%.0f%%: %.0f" % (100 * t, np.mean([per.get(r, 0) for r in range(1, ranks + 1)])))
        out("  runtime broadcasts open per worker (its requests each pass of its loop tests), mean over workers, "
            "at a share of the factorisation: %s" % ", ".join(marks))


def section_delivery(run, out):
    landed = run.deliveries()
    use = run.first_use()
    leads, on_time = [], 0
    by_kind = collections.defaultdict(list)
    for key, at in landed.items():
        if key not in use:
            continue
        start, reader = use[key]
        lead = start - at
        leads.append(lead)
        by_kind[run.producer[(key[0], key[1])].kernel].append(lead)
        ready = ht.number(run.tasks[reader.id].args.get("ready"))
        if ready is not None and abs(ready - at) < 1.0:  # this delivery was the reader's last input
            on_time += 1
    out("delivery: %d (version, reading rank) pairs landed from elsewhere; lead = first use there - landing"
        % len(leads))
    out("  lead ms, all:       %s" % describe(leads))
    for kind, values in sorted(by_kind.items()):
        out("  lead ms, %-6s out: %s" % (kind, describe(values)))
    late = sum(1 for v in leads if v < 1000.0)
    out("  landed < 1 ms before first use: %d (%s); the reader's last input (ready = landing): %d (%s)"
        % (late, pct(late, len(leads)), on_time, pct(on_time, len(leads))))
    out("  landed > 50 ms before first use: %d (%s)" % (sum(1 for v in leads if v > 50000.0),
                                                       pct(sum(1 for v in leads if v > 50000.0), len(leads))))
    return leads


def pct(part, whole):
    return "%.1f%%" % (100.0 * part / whole) if whole else "-"


def outgoing_spans(run):
    """[(rank, start, end, bytes)]: data leaving each rank, from queued (or asked for) to sent (landed)."""
    spans = []
    for s in run.trace.cat("dyn"):
        if s.name in ("send", "forward"):
            spans.append((s.rank, s.start, s.end, ht.integer(s.args.get("bytes"), 0)))
    for x in run.trace.cat("transfer"):
        spans.append((ht.integer(x.args.get("from"), -1), x.start, x.end, ht.integer(x.args.get("bytes"), 0)))
    return spans


def section_outgoing(run, out):
    spans = outgoing_spans(run)
    by_rank = collections.defaultdict(list)
    for rank, a, b, n in spans:
        by_rank[rank].append((a, b, n))
    span = run.end - run.start
    rate = run.bandwidth / 8.0 / 1e6  # bytes per us
    out("outgoing: bytes queued or on the wire from each rank (dyn send/forward, or fetches served), MiB;")
    out("  link use = bytes sent / (link rate x factorisation time)")
    out("  %5s %10s %10s %10s %10s %9s" % ("rank", "sent MiB", "mean MiB", "p90 MiB", "max MiB", "link use"))
    means, maxes, uses = [], [], []
    for rank in sorted(by_rank):
        events = []
        total = 0
        for a, b, n in by_rank[rank]:
            events.append((a, n))
            events.append((b, -n))
            total += n
        events.sort()
        level, t_prev, area, peak = 0, run.start, 0.0, 0
        samples = []
        for t, d in events:
            t = min(max(t, run.start), run.end)
            area += level * (t - t_prev)
            samples.append((t - t_prev, level))
            level += d
            peak = max(peak, level)
            t_prev = t
        mean = area / span
        weights = np.array([w for w, _ in samples])
        levels = np.array([lv for _, lv in samples])
        order = np.argsort(levels)
        cum = np.cumsum(weights[order])
        p90 = float(levels[order][np.searchsorted(cum, 0.9 * cum[-1])]) if cum.size and cum[-1] > 0 else 0.0
        use = total / (rate * span)
        means.append(mean)
        maxes.append(peak)
        uses.append(use)
        out("  %5d %10.1f %10.2f %10.2f %10.2f %9s" % (rank, total / 2**20, mean / 2**20, p90 / 2**20, peak / 2**20,
                                                     "%.1f%%" % (100 * use)))
    if means:
        out("  over ranks: mean in flight %.2f MiB, max %.2f MiB; link use mean %.1f%%, max %.1f%%; sent %.1f GiB"
            % (np.mean(means) / 2**20, max(maxes) / 2**20, 100 * np.mean(uses), 100 * max(uses),
               sum(n for _, _, _, n in spans) / 2**30))


def dyn_pieces(run):
    """(pieces, joined, lands, bad), computed once per run: pieces = the send/forward spans; joined =
    {(origin, destination, seq): the destination's recipient broadcast span}; lands = {(origin, rank, seq):
    the land spans of that broadcast there}; bad = the land groups whose join fails its check."""
    if getattr(run, "_dyn", None) is not None:
        return run._dyn
    recipients = collections.defaultdict(list)  # (origin, rank) -> recipient spans by broadcast id
    for s in run.trace.cat("broadcast"):
        if s.args.get("role") == "recipient":
            recipients[(ht.integer(s.args.get("root")), s.rank)].append(s)
    joined = {}
    for (origin, rank), spans in recipients.items():
        spans.sort(key=lambda s: ht.integer(s.args.get("id")))
        for seq, s in enumerate(spans):
            joined[(origin, rank, seq)] = s
    lands = collections.defaultdict(list)
    for s in run.trace.cat("dyn"):
        if s.name == "land":
            lands[(ht.integer(s.args.get("origin")), s.rank, ht.integer(s.args.get("id")) & SEQ_MASK)].append(s)
    bad = 0
    for key, spans in lands.items():
        b = joined.get(key)
        if b is None or sum(ht.integer(x.args.get("bytes"), 0) for x in spans) != ht.integer(b.args.get("bytes")) \
                or max(x.end for x in spans) > b.end + 1e-3:
            bad += 1
    pieces = [s for s in run.trace.cat("dyn") if s.name in ("send", "forward")]
    run._dyn = (pieces, joined, lands, bad)
    return run._dyn


def dyn_timeline(run):
    """({(tile, version): first piece queued at the root}, {(tile, version, rank): last piece landed there})."""
    pieces, joined, lands, _ = dyn_pieces(run)
    queued, landed = {}, {}
    for p in pieces:
        if p.name != "send":
            continue
        b = joined.get((ht.integer(p.args.get("origin")), ht.integer(p.args.get("peer")),
                        ht.integer(p.args.get("id")) & SEQ_MASK))
        if b is not None:
            key = (ht.integer(b.args.get("data")), ht.integer(b.args.get("version")))
            queued[key] = min(queued.get(key, math.inf), p.start)
    for key, spans in lands.items():
        b = joined.get(key)
        if b is not None:
            landed[(ht.integer(b.args.get("data")), ht.integer(b.args.get("version")), key[1])] = \
                max(x.end for x in spans)
    return queued, landed


def section_dyn_queue(run, out):
    pieces, joined, lands, bad = dyn_pieces(run)
    if not pieces:
        return None
    out("dyn queue: %d pieces sent or forwarded (%d send, %d forward); %d broadcasts joined to their pieces, "
        "%d joins failed" % (len(pieces), sum(1 for p in pieces if p.name == "send"),
                             sum(1 for p in pieces if p.name == "forward"), len(lands) - bad, bad))
    rate = run.bandwidth / 8.0 / 1e6
    sizes = collections.Counter(ht.integer(p.args.get("bytes"), 0) for p in pieces)
    size = sizes.most_common(1)[0][0]
    wire = size / rate
    out("  piece size %d bytes (%d%% of pieces): %.1f us alone on a link; time queued -> off the rank, ms:"
        % (size, 100 * sizes[size] // len(pieces), wire))
    by_rank = collections.defaultdict(list)
    for p in pieces:
        by_rank[p.rank].append(p)
    # Band: how far below the most urgent piece waiting on the same rank when this one was queued.
    bands = [("most urgent there (gap 0)", 0, 0), ("gap 1-2", 1, 2), ("gap 3-8", 3, 8), ("gap 9-32", 9, 32),
             ("gap > 32", 33, 10**9)]
    durations = collections.defaultdict(list)
    overtaken_by = []         # per piece: lower-priority pieces queued after it that left before it
    left_during = []          # per piece: lower-priority pieces that left while it waited
    overtaken_bytes = 0
    overtaken_wait = []       # wait beyond its wire time of the pieces overtaken at least once
    never_wait = []
    kinds = collections.defaultdict(list)  # by the broadcast's producer kernel and the hop kind
    for rank, ps in by_rank.items():
        n = len(ps)
        begin = np.array([p.start for p in ps])
        end = np.array([p.end for p in ps])
        prio = np.array([ht.integer(p.args.get("priority"), 0) for p in ps])
        nbytes = np.array([ht.integer(p.args.get("bytes"), 0) for p in ps])
        by_begin = np.argsort(begin, kind="stable")
        b_begin, b_end, b_prio, b_bytes = begin[by_begin], end[by_begin], prio[by_begin], nbytes[by_begin]
        by_end = np.argsort(end, kind="stable")
        e_end, e_prio = end[by_end], prio[by_end]
        # The most urgent piece waiting at each piece's queueing: a running maximum over the pieces begun
        # before it and not yet ended. Computed exactly with a sweep over begins, with ended pieces removed.
        live = []  # (-priority, end): a heap; ended pieces are dropped once they reach the top
        gap = np.zeros(n, dtype=np.int64)
        for i in range(n):
            t = b_begin[i]
            while live and live[0][1] <= t:
                heapq.heappop(live)
            top = -live[0][0] if live else b_prio[i]
            gap[i] = max(0, top - b_prio[i])
            heapq.heappush(live, (-b_prio[i], b_end[i]))
        for i in range(n):
            d = b_end[i] - b_begin[i]
            for label, lo, hi in bands:
                if lo <= gap[i] <= hi:
                    durations[label].append(d)
                    break
            # lower-priority pieces queued after it that left before it
            j0 = np.searchsorted(b_begin, b_begin[i], side="right")
            j1 = np.searchsorted(b_begin, b_end[i], side="left")
            if j1 > j0:
                sel = (b_end[j0:j1] < b_end[i]) & (b_prio[j0:j1] < b_prio[i])
                k = int(sel.sum())
            else:
                k = 0
            overtaken_by.append(k)
            if k:
                overtaken_bytes += int(b_bytes[j0:j1][sel].sum())
                overtaken_wait.append(max(0.0, d - wire))
            else:
                never_wait.append(max(0.0, d - wire))
            e0 = np.searchsorted(e_end, b_begin[i], side="right")
            e1 = np.searchsorted(e_end, b_end[i], side="left")
            left_during.append(int((e_prio[e0:e1] < b_prio[i]).sum()) if e1 > e0 else 0)
    for label, _, _ in bands:
        out("    %-26s %s" % (label, describe(durations[label])))
    overtaken = sum(1 for k in overtaken_by if k)
    out("  pieces overtaken by at least one lower-priority piece queued later on the same rank: %d of %d (%s);"
        % (overtaken, len(overtaken_by), pct(overtaken, len(overtaken_by))))
    out("    overtakers per piece: mean %.1f, max %d; their bytes %.1f GiB (counted once per overtaken piece)"
        % (float(np.mean(overtaken_by)), max(overtaken_by), overtaken_bytes / 2**30))
    out("    wait beyond the wire time, overtaken pieces: %s" % describe(overtaken_wait))
    out("    wait beyond the wire time, the others:       %s" % describe(never_wait))
    out("  lower-priority pieces that left a rank while a piece waited there: mean %.1f per piece, "
        "%d pieces saw at least one (%s)"
        % (float(np.mean(left_during)), sum(1 for k in left_during if k), pct(sum(1 for k in left_during if k),
                                                                               len(left_during))))

    # How soon a forwarder passes a piece on: its landing here -> the forward queued (the latest landing of
    # the same origin and offset here before it).
    landed_at = collections.defaultdict(list)
    for x in run.trace.cat("dyn"):
        if x.name == "land":
            landed_at[(x.rank, ht.integer(x.args.get("origin")), ht.integer(x.args.get("offset")))].append(x.end)
    for v in landed_at.values():
        v.sort()
    react = []
    for p in pieces:
        if p.name != "forward":
            continue
        ends = landed_at.get((p.rank, ht.integer(p.args.get("origin")), ht.integer(p.args.get("offset"))), [])
        i = bisect.bisect_right(ends, p.start + 1e-3)
        if i:
            react.append(p.start - ends[i - 1])
    out("  a piece landed -> its forward queued on that rank: %s" % describe(react))

    # By what the pieces carry: the broadcast's producer, joined through (origin, destination, seq).
    carried = collections.defaultdict(list)
    panel = []
    unjoined = 0
    for p in pieces:
        origin = ht.integer(p.args.get("origin"))
        dest = ht.integer(p.args.get("peer"))
        seq = ht.integer(p.args.get("id")) & SEQ_MASK
        b = joined.get((origin, dest, seq))
        if b is None:
            unjoined += 1
            continue
        t = run.producer.get((ht.integer(b.args.get("data")), ht.integer(b.args.get("version"))))
        carried["%s output, %s" % (t.kernel if t else "?", p.name)].append(p.dur)
        if t and (t.kernel == "potrf" or (t.kernel == "trsm" and t.m == t.k + 1)):
            panel.append(p)
    out("  time queued -> off the rank by what the piece carries (%d pieces not joined):" % unjoined)
    for label in sorted(carried):
        out("    %-24s %s" % (label, describe(carried[label])))
    # The next step's panel: POTRF(k)'s tile and TRSM(k+1,k)'s, which POTRF(k+1) waits for (through SYRK).
    by_end = {}
    for rank, ps in by_rank.items():
        order = sorted(ps, key=lambda x: x.end)
        by_end[rank] = (np.array([x.end for x in order]),
                        np.array([ht.integer(x.args.get("priority"), 0) for x in order]),
                        np.array([ht.integer(x.args.get("bytes"), 0) for x in order]))
    lower_bytes = []
    for p in panel:
        ends, prios, sizes = by_end[p.rank]
        i0, i1 = np.searchsorted(ends, p.start, side="right"), np.searchsorted(ends, p.end, side="left")
        prio = ht.integer(p.args.get("priority"), 0)
        lower_bytes.append(int(sizes[i0:i1][prios[i0:i1] < prio].sum()) if i1 > i0 else 0)
    out("  pieces of the next panel (POTRF(k)'s tile, TRSM(k+1,k)'s): %s" % describe([p.dur for p in panel]))
    out("    bytes of lower-priority pieces that left the same rank while one waited: mean %.2f MiB, median "
        "%.2f MiB, max %.2f MiB (a 64 KiB piece alone takes %.1f us)"
        % (np.mean(lower_bytes) / 2**20 if lower_bytes else 0, q(lower_bytes, 0.5) / 2**20,
           max(lower_bytes, default=0) / 2**20, wire))
    return joined, lands


def section_hold(run, joined, lands, out):
    """Landed (last piece) -> receive complete, for recipients that forward the broadcast and those that don't."""
    hold_fwd, hold_leaf = [], []
    for key, spans in lands.items():
        b = joined.get(key)
        if b is None:
            continue
        last = max(x.end for x in spans)
        origin, rank, _ = key
        # Did this rank forward this broadcast? A forward of the same origin from this rank that began while
        # the broadcast's pieces were landing.
        first = min(x.start for x in spans)
        hold = b.end - last
        (hold_fwd if forwarder(run, origin, rank, first, b.end) else hold_leaf).append(hold)
    out("hold: last piece landed -> the rank's receive completes (ms); dyn completes a receive once every "
        "forward of it has left the rank")
    out("  ranks that forward it: %s" % describe(hold_fwd))
    out("  ranks that do not:     %s" % describe(hold_leaf))
    return hold_fwd, hold_leaf


_forward_index = {}


def forwarder(run, origin, rank, t0, t1):
    """Whether `rank` forwarded a piece of `origin` queued within [t0, t1]."""
    key = (id(run), origin, rank)
    if key not in _forward_index:
        if not _forward_index.get((id(run), "built")):
            index = collections.defaultdict(list)
            for p in run.trace.cat("dyn"):
                if p.name == "forward":
                    index[(id(run), ht.integer(p.args.get("origin")), p.rank)].append(p.start)
            for k, v in index.items():
                v.sort()
                _forward_index[k] = v
            _forward_index[(id(run), "built")] = True
        _forward_index.setdefault(key, [])
    starts = _forward_index[key]
    i = bisect.bisect_left(starts, t0)
    return i < len(starts) and starts[i] <= t1


def section_critical(run, out):
    path = ht.critical_path(run.trace)
    length, tasks, transfers, wait = ht.path_breakdown(path)
    out("critical path (herald-trace): %d steps, %s ms: tasks %s ms (%s), transfers %s ms (%s), waiting %s ms (%s)"
        % (len(path), ms(length), ms(tasks), pct(tasks, length), ms(transfers), pct(transfers, length), ms(wait),
           pct(wait, length)))
    kernels = collections.Counter(s.name for s in path if s.cat == "task")
    out("  its tasks: %s" % ", ".join("%s %d" % kv for kv in kernels.most_common()))
    # Hand-overs between ranks on the path: producer task on one rank -> task on another (the input's trip,
    # whether a fetch the path lists or a broadcast it does not), split at the input's landing there.
    landed = run.deliveries()
    queued, last_land = dyn_timeline(run) if run.trace.cat("dyn") else ({}, {})
    parts = collections.Counter()  # dyn: producer end -> first piece queued -> last piece here -> receive done
    travel, after, same_rank_wait, ready_wait = 0.0, 0.0, 0.0, 0.0
    handovers = 0
    for before, step in zip(path, path[1:]):
        if step.cat != "task":
            continue
        s_ready = ht.number(step.args.get("ready"))
        if s_ready is not None:
            ready_wait += max(0.0, step.start - max(s_ready, before.end))
        if before.cat != "task" or before.rank == step.rank:
            if before.cat == "task":
                same_rank_wait += max(0.0, step.start - before.end)
            continue
        handovers += 1
        t = run.graph[ht.task_id(before)]
        at = landed.get((t.out, t.version, step.rank))
        if at is None:
            continue
        travel += max(0.0, min(at, step.start) - before.end)
        after += max(0.0, step.start - max(at, before.end))
        q0 = queued.get((t.out, t.version))
        l1 = last_land.get((t.out, t.version, step.rank))
        if q0 is not None and l1 is not None:
            parts["producer end -> root queues its first piece"] += max(0.0, q0 - before.end)
            parts["-> last piece lands on the reader's rank"] += max(0.0, l1 - max(q0, before.end))
            parts["-> the receive completes there (hold)"] += max(0.0, at - max(l1, q0, before.end))
    out("  task -> task hand-overs between ranks with no transfer on the path: %d; there the input travelled "
        "%s ms, then waited %s ms after landing" % (handovers, ms(travel), ms(after)))
    for label in ("producer end -> root queues its first piece", "-> last piece lands on the reader's rank",
                  "-> the receive completes there (hold)"):
        if label in parts:
            out("    dyn: %-46s %s ms" % (label, ms(parts[label])))
    out("  waits on the same rank (task -> next task there): %s ms; ready -> start on path tasks: %s ms"
        % (ms(same_rank_wait), ms(ready_wait)))
    return length, tasks, transfers, wait, travel


def section_head(run, out):
    spans = run.trace.cat("schedule")
    total = sum(s.dur for s in spans)
    tasks = sum(ht.integer(s.args.get("tasks"), 0) for s in spans)
    out("head: %d schedule spans, %s ms for %d tasks (%s of the trace)"
        % (len(spans), ms(total), tasks, pct(total, run.trace.span)))


def analyse(path, bandwidth, cores):
    trace = load(path)
    run = Run(trace, bandwidth, cores)
    print("== %s (%s), trace span %s ms, %d events" % (trace.path, run.strategy, ms(trace.span), trace.events))
    emit = lambda text: print(text)
    section_tasks(run, emit)
    section_cores(run, emit)
    section_delivery(run, emit)
    section_outgoing(run, emit)
    if run.trace.cat("dyn"):
        joined_lands = section_dyn_queue(run, emit)
        if joined_lands:
            section_hold(run, *joined_lands, emit)
    section_critical(run, emit)
    section_head(run, emit)
    print()
    sys.stdout.flush()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="+", metavar="TRACE")
    parser.add_argument("--bandwidth", type=bits_per_second, default=bits_per_second("10Gbps"),
                        help="each host's link (for wire times and link use; default 10Gbps)")
    parser.add_argument("--cores", type=int, default=16, help="modelled cores per rank (run-smpi.sh's --cores; default 16)")
    args = parse_args(parser, argv)
    load_modules()
    for path in args.traces:
        analyse(path, args.bandwidth, args.cores)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
