#!/usr/bin/python3
"""What every herald program promises about its command line (docs/README.md, "The programs' command
lines"), checked on one program:

  - each --help argument (--help, and -h for Task Bench's single-dash flags) exits 0 and prints every
    option: those given with --expect, those the program registers in its --source files (CLI11's
    add_option/add_flag, argparse's add_argument), and those --help-of another program prints (a script
    that passes them on), but those named with --except;
  - each --refuse case ("ARGS => PROBLEM") exits 2 and prints exactly one non-empty line on standard
    error, which contains PROBLEM.

  check_cli.py [--help-arg A]... [--expect FLAG]... [--source FILE]... [--help-of PROGRAM]...
               [--except FLAG]... [--refuse "ARGS => PROBLEM"]... -- PROGRAM [ARGS...]

Every run has a time limit: a program that hangs fails. Prints one line per check and exits 1 if any failed.
"""

import argparse
import re
import shlex
import subprocess
import sys

TIME_LIMIT = 30  # seconds per run; ctest's limit for the whole test is 60


def registered_options(path):
    """The options a source file registers: CLI11's add_option/add_flag names ("-o,--output",
    "!--no-check", a positional "DIR"), argparse's add_argument names (its positionals are left out: the
    help shows their metavar)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    names = []
    for match in re.finditer(r"\badd_(option|flag|argument)\(\s*\"([^\"]+)\"", text):
        for name in match.group(2).split(","):
            name = name.strip().lstrip("!")
            if name.startswith("-") or match.group(1) != "argument":
                names.append(name)
    if not names:
        raise SystemExit("check_cli.py: %s registers no option that this script can see" % path)
    return names


def help_options(text):
    """The options a CLI11 help text lists: the names that start its option lines."""
    names = []
    for line in text.splitlines():
        match = re.match(r"\s+((?:-{1,2}[\w-]+,?)+)", line)
        if match:
            names += [n for n in match.group(1).split(",") if n]
    return names


def run(command):
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        return None
    return done


def mentions(text, flag):
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(flag), text) is not None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--help-arg", action="append", default=[])
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--source", action="append", default=[])
    parser.add_argument("--help-of", action="append", default=[])
    parser.add_argument("--except", action="append", default=[], dest="excepted")
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("program", nargs="+")
    args = parser.parse_args(argv)
    program = args.program
    name = program[0].rsplit("/", 1)[-1]

    failures, checks = [], []

    def check(ok, what):
        print("%s: %s: %s" % ("ok" if ok else "FAILED", name, what))
        checks.append(what)
        if not ok:
            failures.append(what)

    expected = list(args.expect)
    for path in args.source:
        expected += registered_options(path)
    for other in args.help_of:
        done = run([other, "--help"])
        if done is None or done.returncode != 0:
            raise SystemExit("check_cli.py: %s --help failed" % other)
        expected += [n for n in help_options(done.stdout) if n not in ("-h", "--help")]
    expected = [flag for flag in dict.fromkeys(expected) if flag not in args.excepted]

    for help_arg in args.help_arg or ["--help"]:
        done = run(program + [help_arg])
        if done is None:
            check(False, "%s finishes within %d s" % (help_arg, TIME_LIMIT))
            continue
        check(done.returncode == 0, "%s exits 0 (got %d; stderr: %s)" % (help_arg, done.returncode,
                                                                        done.stderr.strip()[-300:]))
        missing = [flag for flag in expected if not mentions(done.stdout, flag)]
        check(not missing, "%s lists %d options%s" % (help_arg, len(expected),
                                                      ", not " + " ".join(missing) if missing else ""))

    for case in args.refuse:
        given, _, problem = case.partition("=>")
        words, problem = shlex.split(given), problem.strip()
        shown = " ".join(words) or "(no arguments)"
        done = run(program + words)
        if done is None:
            check(False, "%s finishes within %d s" % (shown, TIME_LIMIT))
            continue
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        check(done.returncode == 2, "%s exits 2 (got %d)" % (shown, done.returncode))
        check(len(lines) == 1, "%s prints one line on stderr (got %d: %r)" % (shown, len(lines), lines[:5]))
        check(len(lines) == 1 and problem in lines[0],
              "%s names the problem '%s' (%r)" % (shown, problem, lines[0] if lines else ""))

    print("check_cli.py: %s: %d checks, %d failed" % (name, len(checks), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
