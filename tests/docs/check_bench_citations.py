#!/usr/bin/env python3
"""Checks that the documents' bench/ citations and the results under bench/*/results agree, both ways.

    check_bench_citations.py [--source-dir DIR] [--limit-mb MB]

1. Every bench/ path a document cites exists, as a file or a folder.
2. Every file under bench/*/results/ lies under a cited path: the cited file itself, or a cited folder
   below the results folder. Citing bench/X/results/ as a whole (or bench/X/results/*, bench/X, bench/)
   names no run, so it covers nothing.
3. The files under bench/*/results/ total at most --limit-mb MiB (15).

The documents:
  README.md and docs/**/*.md;
  bench/**/README.md, except the index bench/X/results/README.md that bench/results_index.py writes (an
    index, not a document: it neither cites nor needs a citation). A README.md deeper in a results folder
    is a run's own notes: a results file that goes with its run, covered, and a document, once anything in
    its folder is covered;
  the files that read results as inputs: .ci/*, scripts/*.sh, bench/**/*.sh and bench/**/*.py (outside
    bench/*/results/), CMakeLists.txt, tests/**/CMakeLists.txt and cmake/*.

A citation is a path that starts with bench/, alone or after ../ (any number), a variable and / ($repo/bench/)
or /. It ends at a space, quote, backtick, |, (, ), comma, semicolon or colon; trailing dots are dropped.
{a,b} lists expand, [x] is an optional part (with and without), and * and ? are globs, which must match
something. A path with a placeholder (<name>, $var) is a template, not a citation, and is skipped, as is
one after a commit and a colon (379c058:bench/..., a file in the history).

A Markdown document also cites a results file by its name beside such a path, as in "`bench/dyn/results/p2.md`,
`p3.md`": a name in backticks without spaces, with a dot, slash or * (`.csv` right after a name is that
name with another extension), names what it matches in the folders of the bench/ paths its paragraph cites
(a cited file's folder, a cited folder and its parent), else in those its section (heading to heading)
cites; in a run's README, also in the README's own folder. Such a name only covers what it matches: it is
not checked for existence, as it may name something else.

Prints each problem on its own line ("DOC:LINE: cites missing PATH", "PATH: cited by no document", the
size), then a summary line; exits 1 on any problem, 0 otherwise.
"""

import argparse
import glob
import os
import re
import sys

LIMIT_MB = 15
RESULTS = re.compile(r"^bench/[^/]+/results(/|$)")
INDEX = re.compile(r"^bench/[^/]+/results/README\.md$")
# "bench/" not inside a longer name (herald-bcast-bench/); a "/" before it is allowed after "..", a
# variable ($repo, ${repo}, $(...)) or nothing path-like.
START = re.compile(r"bench/")
STOP = set(" \t`'\"|(),;:")
BROAD = re.compile(r"^bench(/[^/]+(/results)?)?$")


def rel(path, root):
    return os.path.relpath(path, root).replace(os.sep, "/")


def documents(root):
    """(path relative to root, kind) of every document; kind is 'doc' or 'run-readme' (inside results)."""
    found = set()

    def add(pattern):
        for p in glob.glob(os.path.join(root, pattern), recursive=True):
            if os.path.isfile(p):
                found.add(rel(p, root))

    for pattern in ("README.md", "docs/**/*.md", "bench/**/README.md", ".ci/*", "scripts/*.sh",
                    "bench/**/*.sh", "bench/**/*.py", "CMakeLists.txt", "tests/**/CMakeLists.txt", "cmake/*"):
        add(pattern)
    out = []
    for p in sorted(found):
        if INDEX.match(p):
            continue
        if RESULTS.match(p):
            if os.path.basename(p) == "README.md":
                out.append((p, "run-readme"))
            continue
        out.append((p, "doc"))
    return out


def allowed_start(line, i):
    """Whether the "bench/" at i begins a path rather than ends a longer name."""
    if i == 0:
        return True
    before = line[i - 1]
    if before.isalnum() or before in "_.-":
        return False
    # COMMIT:bench/... (git show's syntax) names a file in the history, not in the tree.
    if before == ":" and re.search(r"(^|[^\w])[0-9a-f]{7,40}$", line[:i - 1]):
        return False
    if before != "/":
        return True
    # The segment before the slash: "..", a variable, or nothing.
    j = i - 1
    while j > 0 and not (line[j - 1].isspace() or line[j - 1] in "`'\"|(=<>[,;:"):
        j -= 1
    head = line[j:i - 1]
    return head == "" or re.fullmatch(r"(\.\./)*\.\.", head) is not None or head.startswith("$") \
        or re.fullmatch(r"(\$\w+|\$\{\w+\}|\$\([^)]*\))(/\.\.)*", head) is not None


def token(line, i):
    """The raw citation starting at i: up to a stop character outside {...}, [...] and <...>."""
    depth, j = 0, i
    while j < len(line):
        c = line[j]
        if c in "{[<":
            depth += 1
        elif c in "}]>":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (c in STOP or c.isspace()):
            break
        j += 1
    return line[i:j].rstrip(".")


def citations(text):
    """(line number, citation) of every bench/ path in text."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        for m in START.finditer(line):
            if allowed_start(line, m.start()):
                t = token(line, m.start())
                if t != "bench/" and t != "bench":
                    out.append((number, t))
    return out


def expand(path):
    """The paths a citation stands for: {a,b} lists and [optional] parts expanded."""
    m = re.search(r"\{([^{}]*)\}", path)
    if m:
        return [q for alt in m.group(1).split(",") for q in expand(path[:m.start()] + alt + path[m.end():])]
    m = re.search(r"\[([^\[\]]*)\]", path)
    if m:
        return expand(path[:m.start()] + path[m.end():]) + expand(path[:m.start()] + m.group(1) + path[m.end():])
    return [path]


def resolve(root, citation):
    """(templated, [(variant, [matching paths relative to root])]) of a citation."""
    if re.search(r"[<>$]", citation):
        return True, []
    out = []
    for variant in expand(citation):
        variant = variant.rstrip("/") or variant
        if "*" in variant or "?" in variant:
            matches = sorted(rel(p, root) for p in glob.glob(os.path.join(root, variant), recursive=True))
        else:
            matches = [variant] if os.path.exists(os.path.join(root, variant)) else []
        out.append((variant, matches))
    return False, out


def covers(variant, path):
    """Whether a cited path covers results files (never as the whole results folder or above it)."""
    if BROAD.match(path):
        return False
    # A bare * or ** right under a results folder stands for all of it.
    parts = variant.split("/")
    if len(parts) > 3 and parts[2] == "results" and parts[3] in ("*", "**"):
        return False
    return True


def sections(text):
    """[lines] of each part of a Markdown text from one heading to the next (fenced blocks kept whole)."""
    out, lines, fenced = [], [], False
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        if not fenced and re.match(r"^#{1,6} ", line) and lines:
            out.append(lines)
            lines = []
        lines.append(line)
    out.append(lines)
    return out


def bases_of(root, text):
    """The folders a text's bench/ citations name: a cited file's folder, a cited folder and its parent."""
    bases = set()
    for _, citation in citations(text):
        for _, matches in resolve(root, citation)[1]:
            for m in matches:
                m = m.rstrip("/")
                if os.path.isdir(os.path.join(root, m)):
                    bases |= {m, os.path.dirname(m)}
                else:
                    bases.add(os.path.dirname(m))
    return bases


def name_matches(root, name, bases):
    """(variant, path) of what a bare name names in any of the bases."""
    found = []
    for base in [""] if name.startswith("bench/") else sorted(bases):
        for variant in expand(name.rstrip(".")):
            path = os.path.normpath(os.path.join(base, variant)).replace(os.sep, "/")
            if not path.startswith("bench/"):
                continue
            if "*" in path or "?" in path:
                matches = glob.glob(os.path.join(root, path), recursive=True)
            else:
                matches = [os.path.join(root, path)] if os.path.exists(os.path.join(root, path)) else []
            found += [(path, rel(m, root)) for m in matches]
    return found


def names_beside(root, text, own_folder):
    """The paths a Markdown document's bare names in backticks stand for (see the module's docstring): looked
    up beside the paths its paragraph cites, else beside those its section cites."""
    found = []
    own = set() if own_folder is None else {own_folder}
    for lines in sections(text):
        section_bases = own | bases_of(root, "\n".join(lines))
        if not section_bases:
            continue
        for paragraph in re.split(r"\n\s*\n", "\n".join(lines)):
            bases = own | bases_of(root, paragraph)
            previous = None
            for name in re.findall(r"`([^`\s]+)`", paragraph):
                if re.match(r"^\.\w+$", name) and previous:
                    name = os.path.splitext(previous)[0] + name
                previous = name
                if not re.search(r"[./*]", name) or name[0] in "-$<~/" or re.search(r"[<>$=]", name) \
                        or "bench/" in name[1:]:
                    continue
                found += name_matches(root, name, bases) or name_matches(root, name, section_bases)
    return found


def results_files(root):
    out = []
    for top in sorted(glob.glob(os.path.join(root, "bench", "*", "results"))):
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for f in sorted(files):
                out.append(rel(os.path.join(d, f), root))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 3)[3],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--source-dir", metavar="DIR", default=os.path.dirname(os.path.dirname(here)),
                    help="the repository's root (default: the one holding this script)")
    ap.add_argument("--limit-mb", metavar="MB", type=float, default=LIMIT_MB,
                    help=f"the most bench/*/results may hold, in MiB (default {LIMIT_MB})")
    ap.error = lambda message: ap.exit(2, f"{ap.prog}: {message} (see --help)\n")
    args = ap.parse_args()
    root = os.path.abspath(args.source_dir)

    problems = []
    cited = {}                   # document -> [(variant, path)]: what its citations cover
    docs = documents(root)
    for doc, kind in docs:
        with open(os.path.join(root, doc), encoding="utf-8", errors="replace") as f:
            text = f.read()
        cited[doc] = []
        for number, citation in citations(text):
            templated, variants = resolve(root, citation)
            for variant, matches in variants:
                if not matches:
                    glob_ = " (no file matches)" if "*" in variant or "?" in variant else ""
                    problems.append(f"{doc}:{number}: cites missing {variant}{glob_}")
                cited[doc] += [(variant, m) for m in matches]
        if doc.endswith(".md"):
            cited[doc] += names_beside(root, text, os.path.dirname(doc) if kind == "run-readme" else None)

    files = results_files(root)
    readers = {doc for doc, kind in docs if kind == "doc"}
    run_readmes = {doc for doc, kind in docs if kind == "run-readme"}
    while True:
        prefixes, exact = set(), set()
        for doc in readers:
            for variant, path in cited[doc]:
                if covers(variant, path):
                    if os.path.isdir(os.path.join(root, path)):
                        prefixes.add(path.rstrip("/") + "/")
                    else:
                        exact.add(path)
        covered = {f for f in files if f in exact or any(f.startswith(p) for p in prefixes)}
        # A run's README goes with its run: it is covered, and counts as a document, once a document
        # cites it or anything in its folder.
        more = {r for r in run_readmes - readers
                if any(f.startswith(os.path.dirname(r) + "/") for f in covered)}
        covered |= {r for r in run_readmes if any(f.startswith(os.path.dirname(r) + "/") for f in covered)}
        if not more:
            break
        readers |= more
    total = 0
    for f in files:
        total += os.path.getsize(os.path.join(root, f))
        if f not in covered and not INDEX.match(f):
            problems.append(f"{f}: cited by no document")
    limit = int(args.limit_mb * 1024 * 1024)
    if total > limit:
        problems.append(f"bench/*/results: {total} bytes ({total / 1048576:.1f} MB), over the limit of "
                        f"{args.limit_mb:g} MB ({limit} bytes)")
    for p in problems:
        print(p)
    print(f"check_bench_citations: {len(files)} results files, {total} bytes ({total / 1048576:.1f} MB), "
          f"{len(problems)} problem{'' if len(problems) == 1 else 's'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
