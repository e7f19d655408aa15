#!/usr/bin/env python3
"""Runs the shell commands a Markdown document shows, as a reader following it would.

    run_docs.py --source-dir DIR --build-dir DIR --work-dir DIR [--timeout S] [--lint-only] DOC.md...

Every fenced block must name its language: an unlabelled block fails, so that a new block cannot slip past.
Blocks in sh (or bash, shell) are commands; a line ending in a backslash continues on the next, and comment
lines are skipped. console blocks are transcripts: a "$ " line is a command, the lines after it (up to the
next "$ ") are output it must print, "..." elides lines, and a trailing "# key=value ..." on the command line
is output too. An output line of key=value words matches when each key has that value (a number as rounded
in the document); any other line must appear as it is. Blocks in other languages are not run.

A command that needs what a machine may lack is marked on the line(s) right before its block's fence:

    <!-- doc-test: MARK -->          applies to every command of the block
    <!-- doc-test: MARK "TEXT" -->   applies to the block's commands that contain TEXT
(several markers, one a line, may precede a block; a command runs only if each of its marks lets it)

    install   needs `cmake --install`: runs against a scratch prefix that replaces the document's
              /opt/herald or /usr/local (installed there first if the document has not done it)
    cluster   needs several machines or root network namespaces: skipped
    smpi      needs SimGrid: runs when smpicxx is on PATH, herald is built with it beside the build tree
              (<build>-smpi, as CI's stage 4 makes it; build-smpi, bench/smpi's default, is that build) and
              the run is small (SMPI_LIMITS: the documents' sweeps take minutes to hours), else skipped
    mpich     needs MPICH: runs when mpiexec.mpich is on PATH; a command other than configuring a build
              directory also needs herald built with MPICH beside the build tree (<build>-mpich, as CI's
              stage 3 makes it), and runs with MPICH's mpiexec, mpicc and mpicxx first on PATH, build-mpich
              that build and, marked install too, a prefix installed from it
    setup     installs packages, builds the build tree or runs the whole suite or main job
              (scripts/setup.sh, scripts/test.sh, scripts/main.sh, .ci/run, scripts/fresh-root.sh): skipped,
              CI runs them itself

The commands of one document run in order in one scratch directory laid out like a clone: symlinks to the
source tree's top-level entries, `build` a symlink to the build tree, and `bench` a copy (its scripts write
results beside themselves). Each runs in its own bash with the document's earlier `export`s, the build
tree's programs on PATH, Open MPI allowed to run as root and to oversubscribe, no HERALD_* variable of the
caller's, and a timeout. A few commands are changed before they run, and the output says which and why:
benchmarks run shorter through their own options (ADJUSTMENTS), launches of more than 8 ranks run at 4
(MAX_RANKS), and ctest lines list their tests (-N) instead of running them.

Exit status: 0 when every command that ran succeeded and every block is labelled and marked correctly.
"""

import argparse
import dataclasses
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

RUN_LANGUAGES = {"sh", "bash", "shell"}
TRANSCRIPT_LANGUAGES = {"console"}
MARKS = {"install", "cluster", "smpi", "mpich", "setup"}
MARKER = re.compile(r'^\s*<!--\s*doc-test:\s*(?P<mark>[\w-]+)(?:\s+"(?P<text>[^"]+)")?\s*-->\s*$')
ANY_MARKER = re.compile(r"^\s*<!--\s*doc-test")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)(?P<info>.*)$")
# The prefixes documents install into.
DOC_PREFIXES = re.compile(r"(?<![\w/.-])(/opt/herald|/usr/local)(?![\w.-])")
# A SimGrid run is small enough for the test when it names its scale and it is at most this many simulated
# ranks and bytes (the documents' sweeps take minutes to hours even with SimGrid).
SMPI_LIMITS = {"ranks": 32, "bytes": 1 << 20}
OUTPUT_TAIL = 60


@dataclasses.dataclass
class Block:
    lang: str
    line: int                      # the opening fence's line
    body: list                     # (line number, text)
    marks: list                    # (mark, text or None, marker's line number)


@dataclasses.dataclass
class Command:
    line: int
    text: str
    marks: list = dataclasses.field(default_factory=list)
    expected: list = dataclasses.field(default_factory=list)   # (line number, text), console blocks only


def parse(path):
    """(blocks, problems) of a Markdown file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, problems, pending = [], [], []
    i = 0
    while i < len(lines):
        text = lines[i]
        m = MARKER.match(text)
        if m:
            if m.group("mark") not in MARKS:
                problems.append((i + 1, f"unknown doc-test mark '{m.group('mark')}' (marks: "
                                        f"{', '.join(sorted(MARKS))})"))
            pending.append((m.group("mark"), m.group("text"), i + 1))
            i += 1
            continue
        if ANY_MARKER.search(text):
            problems.append((i + 1, 'malformed doc-test marker (expected <!-- doc-test: MARK --> or '
                                    '<!-- doc-test: MARK "TEXT" -->)'))
        f = FENCE.match(text)
        if not f:
            for _, _, at in pending:
                problems.append((at, "doc-test marker not on the line right before a fenced block"))
            pending = []
            i += 1
            continue
        indent, fence, info = len(f.group("indent")), f.group("fence"), f.group("info").strip()
        lang = info.split()[0] if info else ""
        body, j = [], i + 1
        while j < len(lines):
            close = FENCE.match(lines[j])
            if close and close.group("fence").startswith(fence[0]) and len(close.group("fence")) >= len(fence) \
                    and not close.group("info").strip():
                break
            # A block inside a list item is indented like its fence.
            line = lines[j]
            body.append((j + 1, line[indent:] if line[:indent].strip() == "" else line.lstrip()))
            j += 1
        if j == len(lines):
            problems.append((i + 1, "fenced block never closed"))
        if not lang:
            problems.append((i + 1, "fenced block without a language (sh for commands, console for a "
                                    "transcript, text for output, or the code's language)"))
        blocks.append(Block(lang, i + 1, body, pending))
        pending = []
        i = j + 1
    for _, _, at in pending:
        problems.append((at, "doc-test marker not on the line right before a fenced block"))
    return blocks, problems


def join_continued(body):
    """(line number, logical line) of a block's lines, backslash continuations joined."""
    out, start, parts = [], None, []
    for number, text in body:
        if start is None:
            start = number
        if text.rstrip().endswith("\\"):
            parts.append(text.rstrip()[:-1].rstrip())
            continue
        parts.append(text)
        out.append((start, " ".join(p.strip() for p in parts)))
        start, parts = None, []
    if parts:
        out.append((start, " ".join(p.strip() for p in parts)))
    return out


def commands_of(block):
    """The commands of a sh or console block."""
    if block.lang in RUN_LANGUAGES:
        return [Command(n, t) for n, t in join_continued(block.body) if t.strip() and not t.lstrip().startswith("#")]
    cmds = []
    for n, t in join_continued(block.body):
        if t.startswith("$ "):
            cmd = Command(n, t[2:].strip())
            comment = trailing_comment(cmd.text)
            if comment and all("=" in word for word in comment.split()):
                cmd.expected.append((n, comment))
            cmds.append(cmd)
        elif cmds:
            cmds[-1].expected.append((n, t))
    return cmds


def marks_of(block, command):
    return [m for m, text, _ in block.marks if text is None or text in command.text]


def lint(blocks, problems):
    """Marks whose text matches no command of their block are mistakes too."""
    for block in blocks:
        if block.marks and block.lang not in RUN_LANGUAGES | TRANSCRIPT_LANGUAGES:
            problems.append((block.line, f"doc-test marker on a '{block.lang}' block, which is not run"))
            continue
        cmds = commands_of(block) if block.lang in RUN_LANGUAGES | TRANSCRIPT_LANGUAGES else []
        for mark, text, at in block.marks:
            if text is not None and not any(text in c.text for c in cmds):
                problems.append((at, f'doc-test marker "{text}" matches no command of the block below it'))
    return problems


# ---- adjustments: what the test changes in a documented command before it runs it ----

def split_comment(command):
    """(code, " # comment" or "") of a command line: the comment starts at the first " #" outside quotes."""
    for m in re.finditer(r"\s#(?=\s|$)", command):
        before = command[:m.start()]
        if not (before.count("'") % 2 or before.count('"') % 2):
            return before.rstrip(), command[m.start():]
    return command, ""


def trailing_comment(command):
    """The text of a command line's comment, "" if none."""
    return split_comment(command)[1].strip().lstrip("#").strip()


def set_options(cmd, options, start=0):
    """cmd with each option's value replaced (--opt VALUE, --opt=VALUE) in its text from start on or, if
    absent, the option added before any trailing comment."""
    code, comment = split_comment(cmd)
    head, tail = code[:start], code[start:]
    for option, value in options.items():
        pattern = re.compile(r"(?<!\S)" + re.escape(option) + r"(?:=|\s+)(\"[^\"]*\"|'[^']*'|\S+)")
        if pattern.search(tail):
            tail = pattern.sub(lambda m: f"{option} {value}", tail, count=1)
        else:
            tail = f"{tail} {option} {value}"
    return head + tail + comment


SUFFIX = {"": 0, "K": 10, "M": 20, "G": 30}


def largest_size(text):
    """The largest byte count of a --sizes list (1,64K or 1..16M), None if malformed."""
    sizes = []
    for part in text.strip("\"'").split(","):
        for v in part.split(".."):
            m = re.fullmatch(r"(\d+)([KMG]?)", v)
            if not m:
                return None
            sizes.append(int(m.group(1)) << SUFFIX[m.group(2)])
    return max(sizes) if sizes else None


def bcast_bench(cmd, start):
    # By default 1 B to 16 MiB, 5 repetitions: 40 s at 2 ranks here.
    m = re.search(r"--sizes[= ](\S+)", split_comment(cmd)[0][start:])
    if m and (largest_size(m.group(1)) or 1 << 30) <= 64 << 10:
        return cmd
    return set_options(cmd, {"--sizes": "1..64K", "--repetitions": 1}, start)


def cholesky(cmd, start):
    m = re.search(r"(?<!\S)-n\s+(\d+)", split_comment(cmd)[0][start:])
    return set_options(cmd, {"-n": 2048}, start) if m and int(m.group(1)) > 2048 else cmd


def ctest_list(cmd, start):
    return split_comment(cmd)[0] + " -N", r"Total Tests: [1-9]"


def program(name):
    """A command running the program name (by a path or on PATH), not a script named after it."""
    return re.compile(r"(?:^|[\s/])" + re.escape(name) + r"(?=\s|$)")


# (pattern of the program, options to set in its arguments or change(cmd, start) -> cmd or (cmd, output
# regex it must print), why): the first program found applies. Benchmarks are shortened only through their
# own options, so that what runs is the documented command at a smaller size: as documented each takes a
# minute or more here, and the label's whole run should take a few minutes.
ADJUSTMENTS = [
    (re.compile(r"^ctest\b"), ctest_list, "listed with -N, which must name tests: the suite runs them itself"),
    (program("herald-bcast-bench"), bcast_bench, "1 B to 64 KiB, one repetition"),
    (re.compile(r"herald-tune(?=.*--exhaustive)"), {"--max-bytes": "16K", "--reps": 1},
     "the grid up to 16 KiB, one repetition: 2 minutes as documented"),
    (program("herald-cholesky"), cholesky, "N 2048: 20 s at N 8192"),
    (re.compile(r"bench/cholesky/run\.sh"),
     {"--ranks": 2, "--sizes": 1024, "--reps": 1, "--tiles": 256, "--scalapack-tiles": 128},
     "2 ranks, N 1024, one tile size per solver, one repetition"),
    (re.compile(r"bench/sim/scale\.py"), {"--ranks": "16,64", "--sizes": "1,64K,1M"},
     "16 and 64 ranks up to 1 MiB: 1024 ranks and 1 GiB take many minutes and gigabytes"),
    (re.compile(r"bench/runtime/run-broadcast-local\.sh"), {"--ranks": 3, "--sizes": "64K", "--reps": 1},
     "3 ranks, 64 KiB, one repetition"),
    (re.compile(r"bench/tune/run-passthrough\.sh"), {"--ranks": 2},
     "2 ranks: a minute each; 4 ranks add minutes more"),
    (re.compile(r"bench/node/run-local\.sh"), {"--ranks": 2, "--sizes": "64K,1M", "--repetitions": 3},
     "2 ranks, 64 KiB and 1 MiB, three repetitions: the whole sweep takes minutes"),
    (re.compile(r"bench/tune/run-untuned\.sh"), {"--ranks": 2, "--sizes": "1K,64K", "--repetitions": 1},
     "2 ranks, 1 KiB and 64 KiB, one repetition: the whole sweep at 2 and 4 ranks takes two minutes"),
]


# A launch of more than twice this many ranks runs at this many: on the project's 2-core machines more ranks
# cost time and memory, not coverage (the documents' 64-rank preload runs, for one).
MAX_RANKS = 4
LAUNCHER_RANKS = re.compile(r"((?:^|[\s/])(?:mpiexec(?:\.\w+)?|mpirun)\s(?:[^#]*?\s)?-(?:n|np)\s+)(\d+)")


def adjust(cmd):
    """(command to run, output regex it must print or None, why) for a documented command."""
    whys = []
    m = LAUNCHER_RANKS.search(split_comment(cmd)[0])
    if m and int(m.group(2)) > 2 * MAX_RANKS:
        cmd = cmd[:m.start(2)] + str(MAX_RANKS) + cmd[m.end(2):]
        whys.append(f"{MAX_RANKS} ranks")
    for pattern, change, why in ADJUSTMENTS:
        m = pattern.search(split_comment(cmd)[0])
        if m:
            result = change(cmd, m.end()) if callable(change) else set_options(cmd, change, m.end())
            required = None
            if isinstance(result, tuple):
                result, required = result
            if result != cmd:
                whys.append(why)
            return result, required, "; ".join(whys) or None
    return cmd, None, "; ".join(whys) or None


# ---- output of console blocks ----

def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def values_match(shown, actual):
    if shown == actual:
        return True
    a, s = number(actual), number(shown)
    if a is None or s is None:
        return False
    decimals = len(shown.split(".")[1]) if "." in shown and "e" not in shown.lower() else 0
    # Shown as rounded to its decimals: within half a unit of its last digit (either rounding of a tie).
    return abs(a - s) <= 0.5 * 10 ** -decimals * (1 + 1e-9) + 1e-12


def output_problems(expected, output):
    """What of the expected output lines the actual output lacks."""
    lines = [line.strip() for line in output.splitlines()]
    pairs = {}
    for line in lines:
        for word in line.split():
            if "=" in word:
                key, value = word.split("=", 1)
                pairs[key] = value
    problems = []
    for number_, text in expected:
        text = text.strip()
        if not text or text == "...":
            continue
        words = text.split()
        if all("=" in w and not w.startswith("=") for w in words):
            for w in words:
                key, value = w.split("=", 1)
                if key not in pairs:
                    problems.append(f"line {number_}: the output has no {key}=")
                elif not values_match(value, pairs[key]):
                    problems.append(f"line {number_}: {key}={value} shown, {key}={pairs[key]} printed")
        elif text not in lines:
            problems.append(f"line {number_}: not printed: {text}")
    return problems


# ---- running ----

class Runner:
    def __init__(self, args):
        self.source = os.path.abspath(args.source_dir)
        self.build = os.path.abspath(args.build_dir)
        self.work = os.path.abspath(args.work_dir)
        self.timeout = args.timeout
        # CI's names for the MPICH and SimGrid builds beside the main one (.ci/run, stages 3 and 4).
        self.mpich_build = self.build.rstrip(os.sep) + "-mpich"
        self.smpi_build = self.build.rstrip(os.sep) + "-smpi"
        self.results = []          # (file, line, status, detail)
        self.running = None        # the command's process, in a session of its own

    def environment(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
        apps = os.path.join(self.build, "apps")
        dirs = []
        if os.path.isdir(apps):
            for name in sorted(os.listdir(apps)):
                d = os.path.join(apps, name)
                if os.path.isdir(d) and any(os.access(os.path.join(d, f), os.X_OK) and
                                            os.path.isfile(os.path.join(d, f)) for f in os.listdir(d)):
                    dirs.append(d)
        env["PATH"] = os.pathsep.join(dirs + [env.get("PATH", "/usr/bin:/bin")])
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", PRTE_MCA_rmaps_default_mapping_policy=":oversubscribe",
                   # Open MPI's hwloc otherwise looks for X displays over TCP at every launch (see
                   # scripts/test.sh): seconds lost where localhost does not resolve.
                   HWLOC_COMPONENTS=env.get("HWLOC_COMPONENTS", "-gl"))
        return env

    def scratch(self, doc, cmds):
        """A fresh scratch directory for one document, laid out like a clone."""
        rel = os.path.relpath(doc, self.source)
        name = (os.path.basename(doc) if rel.startswith("..") else rel).replace(os.sep, "_")
        root = os.path.join(self.work, name)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        for entry in sorted(os.listdir(self.source)):
            # .git stays, read only, for scripts that record the commit they ran on.
            if entry == "bench" or entry.startswith("build") or entry == "results":
                continue
            os.symlink(os.path.join(self.source, entry), os.path.join(root, entry))
        os.symlink(self.build, os.path.join(root, "build"))
        if any("bench/" in c.text for c in cmds) and os.path.isdir(os.path.join(self.source, "bench")):
            shutil.copytree(os.path.join(self.source, "bench"), os.path.join(root, "bench"), symlinks=True)
        return root

    def execute(self, script, cwd, env, timeout):
        """(exit status or None on timeout, output, seconds)."""
        started = time.monotonic()
        proc = subprocess.Popen(["bash", "-o", "pipefail", "-c", script], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.running = proc
        out = b""
        try:
            out, _ = proc.communicate(timeout=timeout)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            # The whole process group: mpiexec and its ranks.
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    out, _ = proc.communicate(timeout=10)
                    break
                except subprocess.TimeoutExpired:
                    continue
            status = None
        self.running = None
        return status, out.decode(errors="replace") if out else "", time.monotonic() - started

    def stop(self, signum, frame):
        """On SIGTERM or SIGINT (ctest's timeout): the running command's whole group goes too."""
        if self.running:
            try:
                os.killpg(self.running.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        sys.exit(128 + signum)

    def skip_reason(self, mark, cmd):
        if mark == "setup":
            return "setup: installs packages, builds the build tree or runs the whole suite; CI runs it"
        if mark == "cluster":
            return "cluster: needs several machines or root network namespaces"
        if mark == "smpi":
            if not shutil.which("smpicxx"):
                return "smpi: SimGrid's smpicxx is not on PATH"
            if not smpi_small(cmd):
                return (f"smpi: a long SimGrid run (more than {SMPI_LIMITS['ranks']} simulated ranks, sizes above "
                        f"{SMPI_LIMITS['bytes'] >> 20} MiB, or the full sweep)")
            if not os.path.isfile(os.path.join(self.smpi_build, "CMakeCache.txt")):
                return f"smpi: needs herald built with SimGrid in {self.smpi_build} (minutes to build)"
        if mark == "mpich":
            if not shutil.which("mpiexec.mpich"):
                return "mpich: mpiexec.mpich is not on PATH"
            if not configures(cmd) and not os.path.isfile(os.path.join(self.mpich_build, "CMakeCache.txt")):
                return f"mpich: needs herald built with MPICH in {self.mpich_build}"
        return None

    def mpich_environment(self, root, env):
        """env with MPICH's launcher and compiler wrappers under their plain names first on PATH, and
        build-mpich in root the MPICH build."""
        shims = os.path.join(root, ".mpich-bin")
        if not os.path.isdir(shims):
            os.makedirs(shims)
            for name in ("mpiexec", "mpirun", "mpicc", "mpicxx"):
                target = shutil.which(f"{name}.mpich")
                if target:
                    os.symlink(target, os.path.join(shims, name))
        link = os.path.join(root, "build-mpich")
        if not os.path.lexists(link) and os.path.isdir(self.mpich_build):
            os.symlink(self.mpich_build, link)
        return dict(env, PATH=shims + os.pathsep + env["PATH"])

    def run_command(self, rel, c, root, env, exports):
        """Runs one documented command; True if it ran and passed."""
        text, required, why = adjust(c.text)
        mpich = "mpich" in c.marks and not configures(c.text)
        if mpich:
            env = self.mpich_environment(root, env)
        smpi_link = os.path.join(root, "build-smpi")
        if "smpi" in c.marks and not os.path.lexists(smpi_link):
            # bench/smpi's scripts build in build-smpi by default: that build, brought up to date.
            os.symlink(self.smpi_build, smpi_link)
        if "install" in c.marks:
            # The MPICH build installs apart from the other.
            prefix = os.path.join(root, "prefix-mpich" if mpich else "prefix")
            text = DOC_PREFIXES.sub(prefix, text)
            if not os.path.isdir(prefix) and not re.match(r"cmake\s+--install\b", text):
                build = "build-mpich" if mpich else "build"
                status, out, _ = self.execute(f"cmake --install {build} --prefix {shlex.quote(prefix)}", root, env,
                                              self.timeout)
                if status != 0:
                    self.report(rel, c.line, "FAIL", f"cmake --install {build} into {prefix} failed", out)
                    return False
        status, out, seconds = self.execute("\n".join(exports + [text]), root, env, self.timeout)
        detail = c.text if text == c.text else f"{c.text}\n    ran as: {text}" + (f"  ({why})" if why else "")
        problems = []
        if status is None:
            problems.append(f"timed out after {self.timeout:g} s")
        elif status != 0:
            problems.append(f"exit status {status}")
        else:
            if required and not re.search(required, out):
                problems.append(f"the output lacks /{required}/")
            problems += output_problems(c.expected, out)
        if problems:
            self.report(rel, c.line, "FAIL", f"{'; '.join(problems)} ({seconds:.1f} s): {detail}", out)
            return False
        self.report(rel, c.line, "ok", f"({seconds:.1f} s) {detail}")
        if re.match(r"export\s", text):
            exports.append(text)
        return True

    def run_document(self, doc):
        rel = os.path.relpath(doc, self.source)
        blocks, problems = parse(doc)
        lint(blocks, problems)
        for line, what in problems:
            self.report(rel, line, "FAIL", what)
        cmds = []
        for block in blocks:
            if block.lang in RUN_LANGUAGES | TRANSCRIPT_LANGUAGES:
                for c in commands_of(block):
                    c.marks = marks_of(block, c)
                    cmds.append(c)
        if not cmds:
            print(f"{rel}: no commands to run", flush=True)
            return
        root = self.scratch(doc, cmds)
        env = self.environment()
        exports = []
        for c in cmds:
            reason = next(filter(None, (self.skip_reason(m, c.text) for m in c.marks)), None)
            if reason:
                self.report(rel, c.line, "SKIP", f"{reason}: {c.text}")
            else:
                self.run_command(rel, c, root, env, exports)
        if not any(r[2] == "FAIL" for r in self.results if r[0] == rel):
            shutil.rmtree(root, ignore_errors=True)

    def report(self, rel, line, status, detail, output=None):
        self.results.append((rel, line, status, detail))
        print(f"{rel}:{line}: {status} {detail}", flush=True)
        if output is not None and status == "FAIL":
            tail = output.rstrip().splitlines()[-OUTPUT_TAIL:]
            for line_ in tail:
                print(f"    | {line_}")
            sys.stdout.flush()


def configures(cmd):
    """Whether a command only configures a new build directory (cmake -S ... -B ..., nothing after it)."""
    code = split_comment(cmd)[0]
    return re.match(r"cmake(?=.*\s-S)(?=.*\s-B)", code) is not None and not re.search(r"&&|\|\||;|\|", code)


def smpi_small(cmd):
    """Whether a SimGrid command is small enough to run here (SMPI_LIMITS): it names its ranks (--hosts,
    --ranks, --workers, or --nodes times --ranks-per-node) and sizes are within the limits."""
    def values(option, parse):
        found = re.findall(r"(?<!\S)" + re.escape(option) + r"[= ]\s*(\"[^\"]*\"|'[^']*'|\S+)", cmd)
        out = []
        for value in found:
            for v in re.split(r"[,\s]+", value.strip("\"'")):
                out.append(parse(v))
        return out

    def count(v):
        return int(v) if v.isdigit() else None

    def size(v):
        m = re.fullmatch(r"(\d+)([KMG]?)", v)
        return int(m.group(1)) << SUFFIX[m.group(2)] if m else None

    ranks = values("--hosts", count) + values("--ranks", count) + values("--workers", count)
    nodes, per_node = values("--nodes", count), values("--ranks-per-node", count) or [1]
    if nodes:
        ranks += [n * p if n is not None and p is not None else None for n in nodes for p in per_node]
    sizes = values("--sizes", size)
    if not ranks or None in ranks or None in sizes:
        return False
    return max(ranks) <= SMPI_LIMITS["ranks"] and max(sizes, default=0) <= SMPI_LIMITS["bytes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-dir", required=True, help="the source tree (a clone's top directory)")
    ap.add_argument("--build-dir", required=True, help="the build tree its programs come from")
    ap.add_argument("--work-dir", required=True, help="where the scratch directories go")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per command")
    ap.add_argument("--lint-only", action="store_true", help="check blocks and marks, run nothing")
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args()
    runner = Runner(args)
    signal.signal(signal.SIGTERM, runner.stop)
    signal.signal(signal.SIGINT, runner.stop)
    for doc in args.docs:
        doc = os.path.abspath(doc)
        if args.lint_only:
            blocks, problems = parse(doc)
            for line, what in lint(blocks, problems):
                runner.report(os.path.relpath(doc, runner.source), line, "FAIL", what)
        else:
            runner.run_document(doc)
    counts = {s: sum(1 for r in runner.results if r[2] == s) for s in ("ok", "SKIP", "FAIL")}
    print(f"\n{counts['ok']} ran, {counts['SKIP']} skipped, {counts['FAIL']} failed")
    for rel, line, status, detail in runner.results:
        if status == "FAIL":
            print(f"  FAIL {rel}:{line}: {detail.splitlines()[0]}")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
