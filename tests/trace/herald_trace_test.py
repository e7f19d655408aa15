#!/usr/bin/python3
"""Tests of herald-trace on small synthetic traces whose figures are worked out by hand below.

    /usr/bin/python3 tests/trace/herald_trace_test.py apps/herald-trace/herald-trace
"""

import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "apps", "herald-trace", "herald-trace")


# ---------------------------------------------------------------------------------------------- trace builders

def meta(rank, threads):
    events = [{"ph": "M", "name": "process_name", "pid": rank, "tid": 0, "args": {"name": "rank %d" % rank}}]
    for tid, name in threads.items():
        events.append({"ph": "M", "name": "thread_name", "pid": rank, "tid": tid, "args": {"name": name}})
    return events


def span(cat, name, rank, tid, ts, dur, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": rank, "tid": tid, "ts": ts, "dur": dur, "args": args}


def task(name, tid_task, rank, thread, ts, dur, producers):
    return span("task", name, rank, thread, ts, dur, task=tid_task, ready=None, submit=1.0, priority=0,
                producers=producers)


def transfer(rank, ts, dur, sender, nbytes, needing, producer, data, name=None):
    event = span("transfer", "fetch", rank, 0, ts, dur, **{"from": sender, "to": rank, "bytes": nbytes,
                 "task": needing, "data": data, "version": 1, "producer": producer})
    if name is not None:
        event["args"]["name"] = name  # as the runtime records it; older traces have none
    return event


def broadcast(strategy, rank, ts, dur, bid, root, recipients, nbytes, role):
    return span("broadcast", strategy, rank, 0, ts, dur, id=bid, root=root, recipients=recipients, bytes=nbytes,
                data=bid, version=1, role=role)


def document(events, ranks):
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"format": "herald-trace", "version": 1, "ranks": ranks, "clock": "MPI_Wtime",
                          "offsets_us": [0.0] * ranks}}


def runtime_trace():
    """Three ranks; rank 0 is the head. Times in us.

    row (0,1) "kernel 1": T0 gen 10-30, T4 noise 28-48 (overlaps T0: busy is a union), T3 finish 85-95
    row (1,1) "kernel 1": T1 gen 12-22, T2 update 50-80
    row (2,0) "main":     T5 solo 86-89
    transfers (receiver's main row): X1 0->1 30-45 for T2 of T0's output (1000 B);
                                     decoy 0->1 40-55 for T2 (64 B): lands after T2 started, so not its cause;
                                     X2 1->0 80-84 for T3 of T2's output (500 B)
    Critical path, from T3 (ends last): its latest-ending cause is X2 (84; T2 ends 80, T4 48), X2's producer is
    T2, T2's is X1 (45; the decoy ends after T2's start; T0 30, T1 22), X1's producer is T0, which has none.
    Length 95-10 = 85: tasks 20+30+10 = 60, transfers 15+4 = 19, waiting (45..50)+(84..85) = 6.
    """
    events = []
    events += meta(0, {0: "main", 1: "kernel 1"})
    events += meta(1, {0: "main", 1: "kernel 1"})
    events += meta(2, {0: "main"})
    events += [{"ph": "i", "s": "t", "cat": "submit", "name": "gen", "pid": 0, "tid": 0, "ts": 1.0 + i,
                "args": {"task": i}} for i in range(5)]
    events += [
        task("gen", 0, 0, 1, 10, 20, []),
        task("gen", 1, 1, 1, 12, 10, []),
        task("noise", 4, 0, 1, 28, 20, [0]),
        task("update", 2, 1, 1, 50, 30, [0, 1]),
        task("finish", 3, 0, 1, 85, 10, [2, 4]),
        task("solo", 5, 2, 0, 86, 3, []),
        transfer(1, 30, 15, 0, 1000, 2, 0, 0, name="grid"),
        transfer(1, 40, 15, 0, 64, 2, 4, 4),
        transfer(0, 80, 4, 1, 500, 3, 2, 2),
        {"ph": "s", "cat": "transfer", "name": "fetch", "id": 1, "pid": 0, "tid": 0, "ts": 30.0},
        {"ph": "f", "bp": "e", "cat": "transfer", "name": "fetch", "id": 1, "pid": 1, "tid": 0, "ts": 45.0},
        span("schedule", "schedule", 0, 0, 0, 5, tasks=5),
        span("schedule", "schedule", 0, 0, 60, 3, tasks=1),
        # Broadcast 9's first record is a recipient's with a shorter list: the root's (2 recipients) counts.
        broadcast("dynbcast", 1, 87, 4, 9, 0, [1], 100, "recipient"),
        broadcast("dynbcast", 0, 86, 4, 9, 0, [1, 2], 100, "root"),
        broadcast("dynbcast", 2, 88, 4, 9, 0, [1, 2], 100, "recipient"),
        broadcast("dynbcast", 0, 63, 4, 7, 0, [1], 256, "root"),
        broadcast("dynbcast", 1, 64, 4, 7, 0, [1], 256, "recipient"),
        broadcast("mpibcast", 0, 70, 5, 8, 1, [0], 1000, "recipient"),  # no root record: this one counts
        # Things a reader must ignore.
        {"ph": "X", "cat": "mystery", "name": "x", "pid": 0, "tid": 0, "ts": 50, "dur": 1, "args": {"new": 1}},
        {"ph": "C", "name": "counter", "pid": 0, "ts": 20, "args": {"v": 3}},
        {"ph": "X", "cat": "task", "name": "bad", "pid": 0, "tid": 1, "ts": "soon", "dur": 1},
        "not an event",
    ]
    return document(events, 3)


# (rank, thread name) -> (busy, comm, idle), by hand from runtime_trace(); the trace spans 0..95 us.
RUNTIME_THREADS = {
    (0, "main"): (0, 4 + 5 + 4 + 4, 95 - 17),        # broadcasts 63-67, 70-75, 86-90; X2 80-84
    (0, "kernel 1"): (38 + 10, 0, 95 - 48),          # [10,48] and [85,95]
    (1, "main"): (0, 25 + 4 + 4, 95 - 33),           # X1 and the decoy: [30,55]; broadcasts 64-68, 87-91
    (1, "kernel 1"): (10 + 30, 0, 95 - 40),
    (2, "main"): (3, 4, 95 - 6),                     # solo 86-89 and broadcast 88-92 overlap: [86,92]
}
RUNTIME_RANKS = {0: (48, 17, 78 + 47), 1: (40, 33, 62 + 55), 2: (3, 4, 89)}
RUNTIME_PATH = [("task", "gen", 0, 10, 30), ("transfer", "fetch:0->1", 1, 30, 45), ("task", "update", 1, 50, 80),
                ("transfer", "fetch:1->0", 0, 80, 84), ("task", "finish", 0, 85, 95)]


def coll_trace():
    """Four ranks of coll broadcasts on the main threads, no tasks. The trace spans 0..100 us.

    comm 0 id 0, binomial 1024 B from root 0: 0->2 (step 0), then 0->1 and 2->3; rank spans 0-25, 3-21,
        2-28, 4-24: duration 28 (the longest).
    comm 0 id 1, binomial 1024 B: 40-50, 41-52, 42-49, 43-51: duration 12; no messages recorded.
    comm 0 id 2, chain 2048 B: 60-70, 61-75, 62-80, 63-85: duration 25; 0->1->2->3.
    comm 1 id 0, chain 2048 B on ranks 2 and 3: 90-95, 91-100: duration 10.
    Medians: binomial 1024 B (28, 12) -> 20; chain 2048 B (25, 10) -> 17.5.
    """
    def bcast(rank, ts, dur, bid, algorithm, nbytes, comm=0):
        return span("bcast", algorithm, rank, 0, ts, dur, id=bid, comm=comm, root=0, bytes=nbytes, why="named")

    def message(kind, rank, ts, dur, bid, peer, nbytes, step):
        args = {"bcast": bid, "comm": 0, "peer": peer, ("to" if kind == "send" else "from"): peer,
                "bytes": nbytes, "offset": 0, "step": step}
        return span(kind, kind, rank, 0, ts, dur, **args)

    events = []
    for r in range(4):
        events += meta(r, {0: "main"})
    events += [
        bcast(0, 0, 25, 0, "binomial", 1024), bcast(1, 3, 18, 0, "binomial", 1024),
        bcast(2, 2, 26, 0, "binomial", 1024), bcast(3, 4, 20, 0, "binomial", 1024),
        message("send", 0, 1, 9, 0, 2, 1024, 0), message("send", 0, 10, 8, 0, 1, 1024, 1),
        message("recv", 2, 2, 10, 0, 0, 1024, 0), message("send", 2, 12, 8, 0, 3, 1024, 1),
        message("recv", 1, 3, 17, 0, 0, 1024, 1), message("recv", 3, 4, 18, 0, 2, 1024, 1),
        bcast(0, 40, 10, 1, "binomial", 1024), bcast(1, 41, 11, 1, "binomial", 1024),
        bcast(2, 42, 7, 1, "binomial", 1024), bcast(3, 43, 8, 1, "binomial", 1024),
        bcast(0, 60, 10, 2, "chain", 2048), bcast(1, 61, 14, 2, "chain", 2048),
        bcast(2, 62, 18, 2, "chain", 2048), bcast(3, 63, 22, 2, "chain", 2048),
        message("send", 0, 61, 4, 2, 1, 2048, 0), message("recv", 1, 61, 5, 2, 0, 2048, 0),
        message("send", 1, 66, 4, 2, 2, 2048, 1), message("recv", 2, 62, 9, 2, 1, 2048, 1),
        message("send", 2, 71, 4, 2, 3, 2048, 2), message("recv", 3, 63, 13, 2, 2, 2048, 2),
        bcast(2, 90, 5, 0, "chain", 2048, comm=1), bcast(3, 91, 9, 0, "chain", 2048, comm=1),
    ]
    return document(events, 4)


# (rank, thread name) -> (busy, comm, idle): a rank's bcast spans hold its sends and receives.
COLL_THREADS = {
    (0, "main"): (0, 25 + 10 + 10, 100 - 45),
    (1, "main"): (0, 18 + 11 + 14, 100 - 43),
    (2, "main"): (0, 26 + 7 + 18 + 5, 100 - 56),
    (3, "main"): (0, 20 + 8 + 22 + 9, 100 - 59),
}


# ---------------------------------------------------------------------------------------------- summary parsing

def section(text, header):
    """The lines after the one starting with `header`, up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    out = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        out.append(line)
    return out


def thread_table(text):
    """{(rank, thread name): (busy, comm, idle)} from the summary's per-thread table."""
    table = {}
    for line in section(text, "time per thread"):
        if line.startswith("time per rank"):
            break
        fields = line.split()
        if not fields[0].isdigit():
            continue
        table[(int(fields[0]), " ".join(fields[1:-4]))] = tuple(float(f) for f in fields[-4:-1])
    return table


def rank_table(text):
    table = {}
    for line in section(text, "time per rank"):
        fields = line.split()
        if fields[0].isdigit():
            table[int(fields[0])] = tuple(float(f) for f in fields[2:5])
    return table


def png_size(path):
    """(width, height) of a PNG file; fails the test for anything else."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise AssertionError("%s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


class ToolCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="herald-trace-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_tool(self, *args, status=0):
        env = dict(os.environ)
        env.pop("DISPLAY", None)  # must work headless
        env.pop("MPLBACKEND", None)
        done = subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True, env=env,
                              timeout=110)
        self.assertEqual(done.returncode, status, "exit status %d\nstdout:\n%s\nstderr:\n%s"
                         % (done.returncode, done.stdout, done.stderr))
        return done

    def assertClose(self, got, want, what):
        self.assertLessEqual(abs(got - want), 1e-6 * max(1.0, abs(want)), "%s: %r, expected %r" % (what, got, want))

    def assertPng(self, path):
        self.assertTrue(os.path.isfile(path), "%s was not written" % path)
        width, height = png_size(path)
        self.assertGreater(width, 0)
        self.assertGreater(height, 0)
        self.assertGreater(os.path.getsize(path), 0)

    def pngs(self, where):
        return sorted(f for f in os.listdir(where) if f.endswith(".png"))


class RuntimeTraceTest(ToolCase):
    def setUp(self):
        super().setUp()
        self.trace = self.write("run/trace.json", runtime_trace())
        self.done = self.run_tool(os.path.dirname(self.trace))  # a directory: its trace.json
        self.out = os.path.dirname(self.trace)
        with open(os.path.join(self.out, "summary.txt")) as f:
            self.summary = f.read()

    def test_writes_the_gantt_chart_and_the_summary(self):
        self.assertPng(os.path.join(self.out, "gantt.png"))
        self.assertEqual(self.pngs(self.out), ["gantt.png"])  # no coll broadcasts, no space-time diagram
        self.assertEqual(self.done.stdout, self.summary)

    def test_trace_span(self):
        self.assertRegex(self.summary, r"trace span: 95\.000 us \(0\.000 \.\. 95\.000 us\), 3 ranks, 5 rows")

    def test_busy_communicating_and_idle_time_per_thread(self):
        table = thread_table(self.summary)
        self.assertEqual(sorted(table), sorted(RUNTIME_THREADS))
        for row, want in RUNTIME_THREADS.items():
            for what, got, expected in zip(("busy", "comm", "idle"), table[row], want):
                self.assertClose(got, expected, "%s of %s" % (what, row))

    def test_time_per_rank(self):
        table = rank_table(self.summary)
        self.assertEqual(sorted(table), [0, 1, 2])
        for rank, want in RUNTIME_RANKS.items():
            for what, got, expected in zip(("busy", "comm", "idle"), table[rank], want):
                self.assertClose(got, expected, "%s of rank %d" % (what, rank))

    def test_critical_path(self):
        head = re.search(r"critical path: (\d+) steps, ([\d.]+) us: tasks ([\d.]+) us \([\d.]+%\), "
                         r"transfers ([\d.]+) us \([\d.]+%\), waiting ([\d.]+) us", self.summary)
        self.assertIsNotNone(head, self.summary)
        self.assertEqual(int(head.group(1)), len(RUNTIME_PATH))
        for got, want, what in zip(head.groups()[1:], (85, 60, 19, 6), ("length", "tasks", "transfers", "wait")):
            self.assertClose(float(got), want, "critical path " + what)
        steps = []
        for line in section(self.summary, "critical path:")[1:]:
            fields = line.split()
            steps.append((fields[1], fields[2], int(fields[4]), float(fields[5]), float(fields[6])))
        self.assertEqual(steps, RUNTIME_PATH)
        self.assertIn("task=2", self.summary)
        # Data by the name the program gave it where the trace has one, else by handle.
        self.assertIn("data=grid.v1", self.summary)
        self.assertIn("data=2.v1", self.summary)
        self.assertRegex(self.summary, r"tasks 60\.000 us \(70\.6%\), transfers 19\.000 us \(22\.4%\), "
                                       r"waiting 6\.000 us \(7\.1%\)")

    def test_bytes_per_broadcast_strategy(self):
        moved = dict((m.group(1), (int(m.group(2)), int(m.group(3)))) for m in re.finditer(
            r"strategy (\S+)\s+broadcasts\s+(\d+)\s+bytes\s+(\d+)", self.summary))
        # dynbcast: id 7 256 B x 1 + id 9 100 B x 2 (the root's list); mpibcast: id 8 1000 B x 1.
        self.assertEqual(moved, {"dynbcast": (2, 256 + 200), "mpibcast": (1, 1000)})
        self.assertIn("transfers: 3, bytes %d" % (1000 + 64 + 500), self.summary)

    def test_head_scheduling(self):
        self.assertIn("head scheduling (rank 0): 8.000 us in 2 schedule spans (0 with no task), 8.4% of the trace "
                      "span", self.summary)

    def test_scheduling_without_a_head(self):
        # Replicated control: every rank plans its own part, so the spans come from several ranks.
        events = meta(0, {0: "main"}) + meta(1, {0: "main"}) + [
            span("schedule", "schedule", 0, 0, 0, 6, tasks=3), span("schedule", "schedule", 1, 0, 1, 4, tasks=3),
            span("schedule", "schedule", 1, 0, 10, 30, tasks=0), span("task", "k", 1, 0, 50, 50, task=1)]
        trace = self.write("replicated/trace.json", document(events, 2))
        done = self.run_tool(trace, "--out", os.path.join(self.dir, "replicated-out"), "--summary-only")
        self.assertIn("scheduling on every rank (no head: each plans its own part): 3 schedule spans (1 with no "
                      "task) on 2 ranks; at most 34.000 us on one rank (rank 1, 34.0% of the trace span), 40.000 us "
                      "summed", done.stdout)
        self.assertNotIn("head scheduling", done.stdout)

    def test_no_coll_broadcasts(self):
        self.assertIn("coll broadcasts: 0", self.summary)


class CompressedTraceTest(ToolCase):
    def test_a_directory_with_trace_json_xz_gives_the_same_summary(self):
        import lzma
        plain = self.write("plain/trace.json", runtime_trace())
        os.makedirs(os.path.join(self.dir, "packed"))
        with open(plain, "rb") as f, lzma.open(os.path.join(self.dir, "packed", "trace.json.xz"), "wb") as out:
            out.write(f.read())
        want = self.run_tool(os.path.dirname(plain), "--summary-only").stdout
        got = self.run_tool(os.path.join(self.dir, "packed"), "--summary-only").stdout
        self.assertEqual(got.split("\n", 1)[1], want.split("\n", 1)[1])  # past the line naming the file


class RowChainTest(ToolCase):
    def test_previous_task_on_the_row_continues_the_path(self):
        # One row, no producers: A 0-10, B 10-20, C 25-30, and D 2-8 on another row ending before B starts.
        events = meta(0, {0: "main", 1: "kernel 1"}) + meta(1, {0: "main", 1: "kernel 1"}) + [
            task("a", 10, 0, 1, 0, 10, []), task("b", 11, 0, 1, 10, 10, []), task("c", 12, 0, 1, 25, 5, []),
            task("d", 13, 1, 1, 2, 6, [])]
        trace = self.write("trace.json", document(events, 2))
        out = os.path.join(self.dir, "new", "out")
        done = self.run_tool(trace, "--out", out, "--summary-only")
        self.assertEqual(self.pngs(out), [])
        names = [line.split()[2] for line in section(done.stdout, "critical path:")[1:]]
        self.assertEqual(names, ["a", "b", "c"])
        self.assertRegex(done.stdout, r"critical path: 3 steps, 30\.000 us: tasks 25\.000 us .*waiting 5\.000 us")
        self.assertIn("runtime broadcasts (bytes = bytes x recipients, once per broadcast id)\n  none", done.stdout)


class CollTraceTest(ToolCase):
    def setUp(self):
        super().setUp()
        self.trace = self.write("coll/trace.json", coll_trace())
        self.out = os.path.join(self.dir, "out")

    def test_default_draws_the_largest_broadcast(self):
        # 2048 B twice (0:2 in 25 us, 1:0 in 10 us): the slower per byte; 0:0 is longer, but of 1024 B.
        done = self.run_tool(self.trace, "--out", self.out, "--title", "coll test")
        self.assertEqual(self.pngs(self.out), ["gantt.png", "spacetime-0-2.png"])
        for name in self.pngs(self.out):
            self.assertPng(os.path.join(self.out, name))
        self.assertIn("spacetime-0-2.png (4 ranks, 3 messages matched of 3 sends, 3 recvs)", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(self.trace), "summary.txt")))

    def test_summary(self):
        done = self.run_tool(self.trace, "--out", self.out, "--no-gantt")
        self.assertEqual(self.pngs(self.out), ["spacetime-0-2.png"])
        text = done.stdout
        # Every broadcast by id, size, root and time, the largest and slowest per byte first.
        listed = [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), float(m.group(5)), float(m.group(6)))
                  for m in re.finditer(r"^  (\d+:\d+)\s+bytes\s+(\d+)\s+root\s+(\d+)\s+(\S+)\s+start\s+([\d.]+)"
                                       r"\s+duration\s+([\d.]+)$", text, re.M)]
        self.assertEqual(listed, [("0:2", 2048, 0, "chain", 60.0, 25.0), ("1:0", 2048, 0, "chain", 90.0, 10.0),
                                  ("0:0", 1024, 0, "binomial", 0.0, 28.0), ("0:1", 1024, 0, "binomial", 40.0, 12.0)])
        self.assertIn("critical path: no tasks in this trace", text)
        self.assertIn("coll broadcasts: 4", text)
        counts = dict((m.group(1), int(m.group(2)))
                      for m in re.finditer(r"algorithm (\S+)\s+broadcasts\s+(\d+)", text))
        self.assertEqual(counts, {"binomial": 2, "chain": 2})
        medians = dict(((m.group(1), int(m.group(2))), (int(m.group(3)), float(m.group(4)))) for m in
                       re.finditer(r"median (\S+)\s+bytes\s+(\d+)\s+n\s+(\d+)\s+median ([\d.]+) us", text))
        self.assertEqual(medians, {("binomial", 1024): (2, 20.0), ("chain", 2048): (2, 17.5)})
        table = thread_table(text)
        self.assertEqual(sorted(table), sorted(COLL_THREADS))
        for row, want in COLL_THREADS.items():
            for what, got, expected in zip(("busy", "comm", "idle"), table[row], want):
                self.assertClose(got, expected, "%s of %s" % (what, row))

    def test_chosen_broadcasts(self):
        done = self.run_tool(self.trace, "--out", self.out, "--no-gantt", "--bcast", "2", "--bcast", "1:0")
        self.assertEqual(self.pngs(self.out), ["spacetime-0-2.png", "spacetime-1-0.png"])
        self.assertIn("spacetime-0-2.png (4 ranks, 3 messages matched of 3 sends, 3 recvs)", done.stderr)
        self.assertIn("spacetime-1-0.png (2 ranks, 0 messages matched", done.stderr)

    def test_an_id_in_two_communicators_draws_both(self):
        self.run_tool(self.trace, "--out", self.out, "--no-gantt", "--bcast", "0")
        self.assertEqual(self.pngs(self.out), ["spacetime-0-0.png", "spacetime-1-0.png"])

    def test_all_broadcasts(self):
        self.run_tool(self.trace, "--out", self.out, "--all-bcasts")
        self.assertEqual(self.pngs(self.out), ["gantt.png", "spacetime-0-0.png", "spacetime-0-1.png",
                                               "spacetime-0-2.png", "spacetime-1-0.png"])
        for name in self.pngs(self.out):
            self.assertPng(os.path.join(self.out, name))

    def test_unknown_broadcast_is_refused(self):
        done = self.run_tool(self.trace, "--out", self.out, "--bcast", "99", status=2)
        self.assertIn("no coll broadcast 99", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "summary.txt")))


class LargerTraceTest(ToolCase):
    def test_many_tasks_and_transfers(self):
        # 4 ranks x 2 kernel threads x 1000 tasks, one transfer each (past the arrow limit): draws, and the
        # chain of row predecessors makes the critical path every task of the last row.
        events = []
        for r in range(4):
            events += meta(r, {0: "main", 1: "kernel 1", 2: "kernel 2"})
            for t in (1, 2):
                for i in range(1000):
                    ident = (r * 2 + t - 1) * 1000 + i
                    events.append(task("k%d" % (i % 25), ident, r, t, i * 10.0 + r + t, 8.0, []))
                    events.append(transfer(r, i * 10.0, 1.0, (r + 1) % 4, 100, -1, -1, ident))
        trace = self.write("big/trace.json", document(events, 4))
        done = self.run_tool(trace)
        self.assertPng(os.path.join(os.path.dirname(trace), "gantt.png"))
        self.assertIn("critical path: 1000 steps", done.stdout)
        self.assertIn("transfers: 8000, bytes 800000", done.stdout)


def load_tool():
    """herald-trace as a module: its functions, without running its command line."""
    loader = importlib.machinery.SourceFileLoader("herald_trace_under_test", TOOL)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


# A band must keep this much of its row's height (1 on the chart's y axis) from each edge of the row, so
# that it is seen inside the row and not between two rows.
BAND_CLEARANCE = 0.08


class GanttGeometryTest(ToolCase):
    """Every band of the Gantt chart lies inside the row of its own rank and thread, clear of the row's edges."""

    def setUp(self):
        super().setUp()
        self.tool = load_tool()
        self.trace = self.tool.load_trace(self.write("run/trace.json", runtime_trace()))

    def draw(self, trace):
        """The Gantt chart's axes, as draw_gantt makes them, captured instead of saved."""
        figures = []
        self.tool.save = lambda fig, path: figures.append(fig)
        self.tool.draw_gantt(trace, os.path.join(self.dir, "unused.png"), None)
        self.assertEqual(len(figures), 1)
        self.addCleanup(self.tool.plt.close, figures[0])
        return figures[0].axes[0]

    def test_every_band_lies_inside_its_own_row(self):
        bands = self.tool.gantt_bands(self.trace)
        self.assertEqual(sorted(bands), ["broadcast", "schedule", "task", "transfer"])
        bounds, lanes = self.tool.gantt_layout(self.trace.rows, bands)
        self.assertEqual(sorted(bounds), sorted(self.trace.rows))
        edges = sorted(bounds.values())
        for (_, bottom), (top, _) in zip(edges, edges[1:]):
            self.assertLessEqual(bottom, top, "rows overlap: %s" % edges)
        drawn = 0
        for cat, spans in bands.items():
            for s in spans:
                extent = self.tool.band_extent(s, lanes)
                self.assertIsNotNone(extent, "%s span on %s not drawn" % (cat, s.row))
                (y0, y1), (top, bottom) = extent, bounds[s.row]
                what = "%s span of rank %d thread %d at y %.3f..%.3f, its row %.3f..%.3f" % (
                    cat, s.rank, s.tid, y0, y1, top, bottom)
                self.assertLess(y0, y1, what)
                self.assertGreaterEqual(y0, top + BAND_CLEARANCE, what)
                self.assertLessEqual(y1, bottom - BAND_CLEARANCE, what)
                drawn += 1
        self.assertEqual(drawn, 6 + 2 + 6 + 3)  # tasks, schedules, broadcast parts, transfers
        # A row's lanes do not overlap: a broadcast never covers a task or a transfer on the same row.
        for row, row_lanes in lanes.items():
            extents = sorted(row_lanes.values())
            for (_, end), (start, _) in zip(extents, extents[1:]):
                self.assertLess(end, start, "lanes of %s overlap: %s" % (row, row_lanes))
        self.assertEqual(sorted(lanes[(0, 0)]), ["broadcast", "transfer", "work"])  # the head's main row
        self.assertEqual(sorted(lanes[(1, 1)]), ["work"])                           # a kernel thread

    def test_the_drawn_bands_lie_inside_their_ranks_rows(self):
        ax = self.draw(self.trace)
        centres = list(ax.get_yticks())
        names = [t.get_text() for t in ax.get_yticklabels()]
        self.assertEqual(len(names), 5)
        rows_of = {}  # legend label -> the row names its bands lie in
        polys = 0
        for collection in ax.collections:
            label = collection.get_label()
            for path in collection.get_paths():
                ys = [v[1] for v in path.vertices]
                i = min(range(len(centres)), key=lambda k: abs(centres[k] - (min(ys) + max(ys)) / 2))
                what = "%r band at y %.3f..%.3f, on row %r centred at %.1f" % (
                    label, min(ys), max(ys), names[i], centres[i])
                self.assertGreaterEqual(min(ys), centres[i] - 0.5 + BAND_CLEARANCE, what)
                self.assertLessEqual(max(ys), centres[i] + 0.5 - BAND_CLEARANCE, what)
                rows_of.setdefault(label.split(" ")[0].rstrip(","), set()).add(names[i])
                polys += 1
        self.assertEqual(polys, 6 + 2 + 6 + 3)
        # Broadcasts on the main rows of ranks 0, 1 and 2; transfers on their receivers' (0 and 1).
        self.assertEqual(rows_of["runtime"], {"rank 0 main", "rank 1 main", "rank 2 main"})
        self.assertEqual(rows_of["transfer"], {"rank 0 main", "rank 1 main"})
        self.assertEqual(rows_of["task"], {"rank 0 kernel 1", "rank 1 kernel 1", "rank 2 main"})

    def test_the_legend_names_every_kind_of_band(self):
        texts = [t.get_text() for t in self.draw(self.trace).get_legend().get_texts()]
        for kernel in ("gen", "update", "noise", "finish", "solo"):
            self.assertIn("task, kernel %s" % kernel, texts)
        for kind in ("scheduling", "runtime broadcast", "transfer, on the receiver", "transfer: sender to receiver"):
            self.assertTrue(any(kind in text for text in texts), "no %r in the legend %s" % (kind, texts))

    def test_coll_broadcasts_without_tasks_fill_their_rows(self):
        ax = self.draw(self.tool.load_trace(self.write("coll/trace.json", coll_trace())))
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertEqual(texts, ["coll broadcast, binomial", "coll broadcast, chain"])
        self.assertIsNone(ax.get_legend().get_title().get_text() or None)  # one lane: no lanes to explain


class ErrorTest(ToolCase):
    def assertRefused(self, path, words):
        done = self.run_tool(path, status=2)
        self.assertIn("herald-trace:", done.stderr)
        for word in words:
            self.assertIn(word, done.stderr)
        self.assertEqual(done.stdout, "")

    def test_missing_file(self):
        path = os.path.join(self.dir, "nowhere.json")
        self.assertRefused(path, [path, "no such file"])

    def test_directory_without_a_trace(self):
        self.assertRefused(self.dir, [os.path.join(self.dir, "trace.json"), "no such file"])

    def test_invalid_json(self):
        path = self.write("trace.json", '{"traceEvents": [')
        self.assertRefused(path, [path, "invalid JSON"])

    def test_binary_file(self):
        path = os.path.join(self.dir, "trace.json")
        with open(path, "wb") as f:
            f.write(b"\xff\xfe\x00garbage")
        self.assertRefused(path, [path, "invalid JSON"])

    def test_json_without_trace_events(self):
        path = self.write("trace.json", {"events": []})
        self.assertRefused(path, [path, "traceEvents"])

    def test_json_array(self):
        path = self.write("trace.json", [{"ph": "X"}])
        self.assertRefused(path, [path, "traceEvents"])

    def test_bad_option(self):
        path = self.write("trace.json", document([], 1))
        done = self.run_tool(path, "--bcast", "x:y", status=2)
        self.assertIn("--bcast", done.stderr)

    def test_empty_trace_is_fine(self):
        path = self.write("trace.json", document([], 1))
        done = self.run_tool(path)
        self.assertIn("trace span: 0.000 us", done.stdout)
        self.assertPng(os.path.join(self.dir, "gantt.png"))


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        TOOL = os.path.abspath(sys.argv.pop(1))
    unittest.main()
