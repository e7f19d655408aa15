#!/usr/bin/env python3
"""Writes each bench/*/results/README.md: one line per run, with the commit that added it and its command.

    bench/results_index.py [--source-dir DIR] [--check] [FOLDER ...]

FOLDER is a results folder (bench/cholesky/results); the default is every bench/*/results. Run it once a
run's files are committed: a file not committed yet shows "not committed".

A run is a file in a results folder, the files of one name with several extensions (cholesky-smpi.{csv,md}),
or a folder. A folder that groups runs (two or more folders in it, or a README.md and a folder) is not one
line: its files and folders are listed, its README.md aside.

The commit is the last one that added the file (git log --diff-filter=A --format=%h -1 -- PATH, a move
counted as adding), for several files or a folder the last one that added any of them.

The command, the first found of:
  1. a command in the first lines of the run's files (a folder's command.txt, then its README.md, then its
     other files): a "# Command:", "Command:" or "$ " line, a "# " line that starts with a command, else a
     line or `span` that is a command with its options. A command starts with a bench/, scripts/ or tests/
     script, mpiexec, smpirun, ctest, valgrind, python3 or a herald program, perhaps after VAR=value;
  2. a command a document shows writing the run (its path after --out, -o, --csv, --json or >, or in the
     comment after the command), followed by the document's name;
  3. for a folder in a group, the first command of the group's README.md, followed by its name;
  4. the first command of the run's bench folder (bench/<name>/... for bench/<name>/results) in a paragraph
     that cites the run (by its path, or by its name in backticks beside its folder's path) or in the sh
     block right before that paragraph, followed by the document's name; not one that reads the run;
  5. "command: not recorded".
Commands longer than 120 characters end in "...".

--check writes nothing and exits 1 when a README differs from what it would write (naming it).
"""

import argparse
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_args import parse_args  # noqa: E402

NOTE = "Made by bench/results_index.py; new runs replace what they supersede."
HEAD_LINES = 20          # lines of each file searched for a command
MAX_COMMAND = 120        # characters of a command kept on its line
TEXT = re.compile(r"\.(txt|md|csv|log|json|sh|patch|def|xml)$|(^|/)[^./]+$")
PROGRAM = (r"(?:(?:bench|scripts|tests|\.\./shared/tools)/\S+\.(?:sh|py)|\.ci/run"
           r"|(?:\S*/)?(?:mpiexec|mpirun|smpirun|ctest|cmake|valgrind|herald-[\w-]+)(?=\s+-)"
           r"|(?:/usr/bin/)?python3 \S+\.py)")
COMMAND = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*" + PROGRAM + r"(?:\s|$)")
MARKED = re.compile(r"^\s*(?:#\s*)?(?:[Cc]ommand(?:\s*\([^)]*\))?:|\$)\s*(?P<rest>.*)$")


def git_added(root):
    """{path: (commit, order)}: the last commit that added each file under bench/ (order 1 the newest)."""
    try:
        out = subprocess.run(["git", "-C", root, "log", "--no-renames", "--diff-filter=A", "--name-only",
                              "--format=@%h", "--", "bench"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    added, commit, order = {}, None, 0
    for line in out.splitlines():
        if line.startswith("@"):
            commit, order = line[1:], order + 1
        elif line and line not in added:
            added[line] = (commit, order)
    return added


class Run:
    """A file or files of one stem (cholesky-smpi.{csv,md,png}), or a folder, in a results folder."""

    def __init__(self, paths, folder=None, notes=None):
        self.paths = paths       # the files, relative to the root
        self.folder = folder     # the folder, for a folder's run
        self.notes = notes       # the README.md of the folder grouping this run, if any

    def name(self, base):
        if self.folder:
            return self.folder[len(base) + 1:] + "/"
        names = [p[len(base) + 1:] for p in self.paths]
        if len(names) == 1:
            return names[0]
        head = names[0].split(".", 1)[0]
        return head + ".{" + ",".join(n[len(head) + 1:] for n in names) + "}"


def runs(root, folder, notes=None):
    """The runs in a folder, in name order."""
    out, stems = [], {}
    full = os.path.join(root, folder)
    for name in sorted(os.listdir(full)):
        path = f"{folder}/{name}"
        if name == "README.md" and (notes is not None or re.match(r"^bench/[^/]+/results$", folder)):
            continue              # the index, or a group's own notes
        if os.path.isfile(os.path.join(root, path)):
            stem = name.split(".", 1)[0]
            if stem in stems:
                stems[stem].paths.append(path)
            else:
                stems[stem] = Run([path], notes=notes)
                out.append(stems[stem])
            continue
        inner = os.listdir(os.path.join(root, path))
        dirs = [n for n in inner if os.path.isdir(os.path.join(root, path, n))]
        if len(dirs) >= 2 or (dirs and "README.md" in inner):
            out.append((path, f"{path}/README.md" if "README.md" in inner else ""))
        else:
            out.append(Run(files_of(root, path), folder=path, notes=notes))
    # A group's runs come in its place, in name order.
    result = []
    for item in out:
        result += runs(root, item[0], item[1]) if isinstance(item, tuple) else [item]
    return result


def files_of(root, folder):
    out = []
    for d, dirs, files in os.walk(os.path.join(root, folder)):
        dirs.sort()
        out += [os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/") for f in sorted(files)]
    return out


def joined(lines, i):
    """Line i with the lines it continues onto (a trailing backslash)."""
    text = lines[i].rstrip()
    while text.endswith("\\") and i + 1 < len(lines):
        i += 1
        text = text[:-1].rstrip() + " " + lines[i].strip()
    return text


def is_command(text, marked=False):
    """Whether text is a command line: a program (with its options, unless the text was marked as a command)."""
    words = text.split()
    settings = 0
    while settings < len(words) and re.match(r"^[A-Z_][A-Z0-9_]*=", words[settings]):
        settings += 1
    return bool(COMMAND.match(text)) and (marked or len(words) > settings + 1)


def trimmed(command):
    """A command without the notes a header puts after it ("(commit 6c03e54); 2 cores")."""
    command = re.split(r" \(|; |, | # ", command, maxsplit=1)[0]
    return " ".join(command.strip().strip("`").split())


def command_in(text):
    """The first command of a text's first lines: a marked line ("# Command:", "Command:", "$ ", or "# "
    and a command), else a line or `span` that is a command with its options. None when there is none."""
    lines = text.split("\n")[:HEAD_LINES]
    for i in range(len(lines)):
        line = joined(lines, i)
        m = MARKED.match(line)
        if m:
            rest = m.group("rest").strip()
            # "# Command (from the repository root):" with the command on the next line.
            if not rest and i + 1 < len(lines):
                rest = joined(lines, i + 1).lstrip("#$ ").strip()
            if is_command(trimmed(rest), marked=True):
                return trimmed(rest)
        elif line.startswith("#") and is_command(trimmed(line.lstrip("# ")), marked=True):
            return trimmed(line.lstrip("# "))
    head = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    for line in head.split("\n"):
        if is_command(trimmed(line.strip())):
            return trimmed(line.strip())
    for span in re.findall(r"`([^`]+)`", head.replace("\n", " ")):
        if is_command(trimmed(span)):
            return trimmed(span)
    return None


def command_of_files(root, files):
    def rank(path):
        base = os.path.basename(path)
        return (0 if base == "command.txt" else 1 if base == "README.md" else 2 if base.endswith(".md") else 3,
                path.count("/"), path)

    for path in sorted(files, key=rank):
        if not TEXT.search(path):
            continue
        with open(os.path.join(root, path), "rb") as f:
            head = f.read(16384)
        if b"\0" in head:
            continue
        c = command_in(head.decode("utf-8", errors="replace"))
        if c:
            return c
    return None


def documents(root):
    docs = set()
    for pattern in ("README.md", "docs/**/*.md", "bench/**/README.md"):
        docs |= {os.path.relpath(p, root).replace(os.sep, "/")
                 for p in glob.glob(os.path.join(root, pattern), recursive=True)}
    return sorted(d for d in docs if not re.match(r"^bench/[^/]+/results/README\.md$", d))


def doc_blocks(root):
    """[(document, [block])]: each document's paragraphs and fenced blocks, doc-test markers left out."""
    out = []
    for doc in documents(root):
        with open(os.path.join(root, doc), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        blocks, current, fenced = [], [], False
        for line in lines:
            if not fenced and re.match(r"^\s*<!--\s*doc-test", line):
                continue
            if re.match(r"^\s*(```|~~~)", line):
                if not fenced and current:
                    blocks.append("\n".join(current))
                    current = []
                current.append(line)
                fenced = not fenced
                if not fenced:
                    blocks.append("\n".join(current))
                    current = []
                continue
            if not fenced and not line.strip():
                if current:
                    blocks.append("\n".join(current))
                current = []
                continue
            current.append(line)
        if current:
            blocks.append("\n".join(current))
        out.append((doc, blocks))
    return out


def commands_in_block(block):
    """The commands a document block shows: its sh lines, or its `spans`."""
    text = re.sub(r"\\\n\s*", " ", block)
    if re.match(r"^\s*(```|~~~)\s*(sh|bash|shell|console)", block):
        found = [re.sub(r"\s+#\s.*$", "", line.strip().lstrip("$ ").strip()) for line in text.split("\n")[1:]]
    else:
        found = [span.strip() for span in re.findall(r"`([^`]+)`", text.replace("\n", " "))]
    return [" ".join(c.split()) for c in found if is_command(" ".join(c.split()))]


OUTPUT = re.compile(r"(?:--out|--output|--csv|--json|-o|>)[= ]\s*(\S+)")


def citing(run):
    """Patterns of the run's paths as documents cite them: the path, or its name in backticks beside a citation
    of its folder."""
    paths = [run.folder] if run.folder else run.paths
    out = []
    for p in paths:
        full = re.compile(r"(?<![\w/.-])(?:\.\./)*" + re.escape(p) + r"/?(?![\w.-])")
        folder = os.path.dirname(p)
        bare = re.compile(r"`" + re.escape(os.path.basename(p)) + r"/?`")
        out.append((full, folder, bare))
    return out


def command_in_docs(blocks, run, near):
    """(command, document) of a command that a document shows writing the run (steps 2 and, with near, 4
    of the module's docstring), or None."""
    patterns = citing(run)
    own = run.paths[0].split("/")[1]

    def reads(c):
        return any(full.search(c) for full, _, _ in patterns)

    def ours(c):
        words = [w for w in c.split() if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
        return bool(words) and re.match(r"^(?:\./)?bench/" + re.escape(own) + r"/", words[0]) is not None \
            and not reads(c)

    for doc, paragraphs in blocks:
        for i, text in enumerate(paragraphs):
            if not any(full.search(text) or (folder in text and bare.search(text))
                       for full, folder, bare in patterns):
                continue
            fenced = text.lstrip().startswith(("```", "~~~"))
            if not near:
                for c in commands_in_block(text):
                    if any(full.fullmatch(out) for out in OUTPUT.findall(c) for full, _, _ in patterns):
                        return c, doc
                if fenced:
                    for line in re.sub(r"\\\n\s*", " ", text).split("\n")[1:]:
                        command, _, comment = line.partition(" # ")
                        if comment and reads(comment) and is_command(command.strip(), marked=True):
                            return " ".join(command.split()), doc
                continue
            if fenced:
                continue
            for span in re.findall(r"`([^`]+)`", text.replace("\n", " ")):
                c = " ".join(span.split())
                if is_command(c, marked=True) and ours(c):
                    return c, doc
            if i > 0 and paragraphs[i - 1].lstrip().startswith(("```", "~~~")):
                for c in commands_in_block(paragraphs[i - 1]):
                    if ours(c):
                        return c, doc
    return None


def short(command):
    command = " ".join(command.replace("`", "").split())
    return command if len(command) <= MAX_COMMAND else command[:MAX_COMMAND - 4].rstrip() + " ..."


def index(root, folder, added, blocks):
    lines = [f"# {folder}", "", NOTE, "",
             "One line per run: the file or folder, the commit that added it, the command that made it.", ""]
    for run in runs(root, folder):
        known = [added[f] for f in run.paths if f in added]
        commit = min(known, key=lambda c: c[1])[0] if known else "not committed"
        found = command_of_files(root, run.paths)
        found = (found, None) if found else command_in_docs(blocks, run, near=False)
        if not found and run.folder and run.notes:
            notes = command_of_files(root, [run.notes])
            found = (notes, run.notes) if notes else None
        found = found or command_in_docs(blocks, run, near=True)
        if found:
            command, source = found
            if source and source.startswith(folder + "/"):
                source = source[len(folder) + 1:]
            shown = f"`{short(command)}`" + (f" ({source})" if source else "")
        else:
            shown = "command: not recorded"
        lines.append(f"- {run.name(folder)} — {commit} — {shown}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 3)[3],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-dir", metavar="DIR", default=os.path.dirname(os.path.dirname(os.path.abspath(
        __file__))), help="the repository's root (default: the one holding this script)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when a README is out of date")
    ap.add_argument("folders", nargs="*", metavar="FOLDER",
                    help="results folders (default: every bench/*/results)")
    args = parse_args(ap)
    root = os.path.abspath(args.source_dir)
    folders = [f.rstrip("/") for f in args.folders] or sorted(os.path.relpath(p, root).replace(os.sep, "/")
                                                              for p in glob.glob(os.path.join(root, "bench", "*",
                                                                                              "results")))
    added, blocks = git_added(root), doc_blocks(root)
    stale = 0
    for folder in folders:
        if not re.match(r"^bench/[^/]+/results$", folder) or not os.path.isdir(os.path.join(root, folder)):
            ap.error(f"{folder}: not a results folder (bench/<name>/results)")
        text = index(root, folder, added, blocks)
        path = os.path.join(root, folder, "README.md")
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        if args.check:
            print(f"{folder}/README.md: out of date (bench/results_index.py writes it)")
            stale += 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {folder}/README.md")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
