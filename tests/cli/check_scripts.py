#!/usr/bin/python3
"""What every script under bench/ and scripts/ promises about its command line (bench/options.sh), checked
on all of them, found here by name so that a new script is checked without being listed:

  - every *.sh and *.py is a script, but a *.sh that is not executable and whose opening lines say
    "sourced, not run" (a library the scripts source, such as bench/options.sh), and a *.py that is not
    executable and whose opening lines say "imported, not run" (a module the scripts import, such as
    bench/cli_args.py): such a file is skipped; a *.sh that is neither executable nor so marked fails, and
    so does an executable file so marked;
  - --help and -h exit 0 and print, on standard output alone, text that names the script or says "usage";
  - --no-such-option exits 2, prints nothing on standard output and exactly one non-empty line on standard
    error, which names --no-such-option;
  - no run leaves a file behind, in the repository's bench/ and scripts/, among its top-level entries, or
    in the scratch directory it runs in.

Each run has a time limit and an environment where it can do no harm and finds no dependency: its working
directory, HOME and TMPDIR are an empty scratch directory, its PATH holds only a few text tools (no
compiler, build tool, MPI, SimGrid, git, python, ip, id, mkdir, mktemp, rm or tee), standard input is
empty, and the *.py run under this interpreter with -S (no site packages: no matplotlib, no numpy) and -B.

  check_scripts.py [--repo DIR] [SCRIPT...]     (default: every script under DIR's bench/ and scripts/)

Prints one line per script and exits 1 if any failed.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

TIME_LIMIT = 10  # seconds per run; ctest's limit for the whole test is 60
MARKER = {".sh": "sourced, not run", ".py": "imported, not run"}
# The tools a script may use before it has read its command line: text tools, nothing that builds, launches,
# changes the network or creates a file.
TOOLS = ["sh", "bash", "env", "sed", "awk", "grep", "cat", "head", "tail", "cut", "tr", "paste", "fold",
         "sort", "uniq", "wc", "basename", "dirname", "printf", "echo", "true", "false", "test", "expr"]


def find_scripts(repo):
    found = []
    for top in ("bench", "scripts"):
        for folder, dirs, files in os.walk(os.path.join(repo, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".sh", ".py")):
                    found.append(os.path.join(folder, name))
    return found


def tree(repo):
    """The paths whose appearance would be a side effect: the repository's top-level entries and everything
    under bench/ and scripts/."""
    paths = set(os.listdir(repo))
    for top in ("bench", "scripts"):
        for folder, dirs, files in os.walk(os.path.join(repo, top)):
            paths.update(os.path.relpath(os.path.join(folder, n), repo) for n in dirs + files)
    return paths


def sandbox_path(root):
    """A directory of links to TOOLS, for PATH."""
    bin_dir = os.path.join(root, "bin")
    os.mkdir(bin_dir)
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            os.symlink(os.path.realpath(found), os.path.join(bin_dir, tool))
    return bin_dir


def marker(path):
    """The MARKER of PATH's kind (.sh or .py), or None."""
    return MARKER.get(os.path.splitext(path)[1])


def marked_library(path):
    """Whether the first five lines of PATH say its kind's MARKER (comment lines joined)."""
    if marker(path) is None:
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        opening = " ".join(f.readline().lstrip("#").strip() for _ in range(5))
    return marker(path) in opening


def help_problems(arg, done, script_name):
    """What is wrong with the run of a script's help argument."""
    problems = []
    if done.returncode != 0:
        problems.append("%s exits %d, not 0 (stderr: %s)" % (arg, done.returncode, done.stderr.strip()[-300:]))
    elif not done.stdout.strip():
        problems.append("%s prints nothing on stdout" % arg)
    elif script_name not in done.stdout and not re.search("usage", done.stdout, re.IGNORECASE):
        problems.append("%s prints neither the script's name nor 'usage'" % arg)
    if done.returncode == 0 and done.stderr.strip():
        problems.append("%s prints on stderr: %s" % (arg, done.stderr.strip()[-300:]))
    return problems


def refusal_problems(arg, done):
    """What is wrong with the run of a script with an unknown option."""
    problems = []
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 2:
        problems.append("%s exits %d, not 2" % (arg, done.returncode))
    if len(lines) != 1:
        problems.append("%s prints %d lines on stderr, not 1: %r" % (arg, len(lines), lines[:5]))
    elif arg not in lines[0]:
        problems.append("%s: the line on stderr does not name it: %r" % (arg, lines[0]))
    if done.stdout.strip():
        problems.append("%s prints on stdout: %r" % (arg, done.stdout.strip()[:300]))
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..")))
    parser.add_argument("scripts", nargs="*", metavar="SCRIPT")
    parser.error = lambda message: parser.exit(2, "check_scripts.py: %s (see --help)\n" % message)
    args = parser.parse_args(argv)
    repo = os.path.abspath(args.repo)
    scripts = [os.path.abspath(s) for s in args.scripts] or find_scripts(repo)
    if not scripts:
        raise SystemExit("check_scripts.py: no script under %s/bench or %s/scripts" % (repo, repo))

    failed, skipped = [], []
    with tempfile.TemporaryDirectory(prefix="check-scripts-") as root:
        scratch = os.path.join(root, "scratch")
        os.mkdir(scratch)
        env = {"PATH": sandbox_path(root), "HOME": scratch, "TMPDIR": scratch, "LC_ALL": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1"}
        before = tree(repo)

        def run(command, arg):
            """The finished run (returncode, stdout, stderr), or None when it ran out of time; then it is
            stopped with whatever it started (its own session)."""
            child = subprocess.Popen(command + [arg], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True)
            try:
                out, err = child.communicate(timeout=TIME_LIMIT)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.communicate()
                return None
            return subprocess.CompletedProcess(child.args, child.returncode, out, err)

        def left_behind():
            """Files the runs since the last call created; removes those in the scratch directory."""
            nonlocal before
            now = tree(repo)
            created = sorted(now - before)
            before = now
            for name in sorted(os.listdir(scratch)):
                created.append("$HOME/" + name)
                path = os.path.join(scratch, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.remove(path)
            return created

        for path in scripts:
            name = os.path.relpath(path, repo)
            problems = []
            executable = os.access(path, os.X_OK)
            marked = marked_library(path)
            if marked and not executable:
                skipped.append(name)
                print("skipped: %s: %s" % (name, marker(path)))
                continue
            if path.endswith(".sh") and not executable:
                print("FAILED: %s: not executable, and its opening lines do not say '%s'" % (name, marker(path)))
                failed.append(name)
                continue
            if marked:
                problems.append("executable, but its opening lines say '%s'" % marker(path))
            command = [sys.executable, "-S", "-B", path] if path.endswith(".py") else [path]

            for arg in ("--help", "-h", "--no-such-option"):
                done = run(command, arg)
                if done is None:
                    problems.append("%s does not finish within %d s (later runs left out)" % (arg, TIME_LIMIT))
                    break
                if arg == "--no-such-option":
                    problems += refusal_problems(arg, done)
                else:
                    problems += help_problems(arg, done, os.path.basename(path))
            created = left_behind()
            if created:
                problems.append("--help, -h or --no-such-option left %s behind" % " ".join(created))

            if problems:
                failed.append(name)
                for problem in problems:
                    print("FAILED: %s: %s" % (name, problem))
            else:
                print("ok: %s" % name)

    checked = len(scripts) - len(skipped)
    markers = " or ".join('"%s"' % m for m in MARKER.values())
    print("check_scripts.py: %d scripts checked, %d skipped (%s), %d failed%s" % (
        checked, len(skipped), markers, len(failed), ": " + " ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
