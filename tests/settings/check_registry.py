#!/usr/bin/python3
"""The settings registry, the code and docs/configuration.md agree.

    check_registry.py SOURCE_DIR HERALD_INFO

  (a) herald reads its environment through the registry: no getenv( or setenv( in src/ or apps/ but in
      src/core/settings.cpp (the registry) and src/core/config.cpp, whose only getenv reads the launchers'
      rank variables (OMPI_COMM_WORLD_RANK, ...), never a HERALD_ one;
  (b) every HERALD_ name in a string literal of src/, apps/ or include/ (C and C++ sources, comments left
      out) is a setting `herald-info --json` lists, or its former name; a literal prefix ("HERALD_BALANCE_")
      must start one, HERALD_TEST_ (the test suite's own) excepted;
  (c) docs/configuration.md has a table row for every registered setting, in the section of its component
      ("## Broadcast (coll)", ...) and in the registry's order, and every HERALD_ variable its tables' rows
      name is registered (HERALD_TEST_* excepted).

Prints every disagreement and exits 1 if there is one.
"""

import json
import os
import re
import subprocess
import sys

C_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp")
NAME = re.compile(r"HERALD_[A-Z0-9_]+")
# The docs' section of each component: "## Broadcast (coll)".
SECTION = re.compile(r"^##\s+.*\((?P<component>[a-z]+)\)\s*$")

problems = []


def problem(text):
    print("FAILED: " + text)
    problems.append(text)


def files(root, suffixes=None):
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if suffixes is None or name.endswith(suffixes):
                yield os.path.join(folder, name)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def lex(text):
    """A C or C++ source as (code, literals): the code with comments and literals blanked (line breaks
    kept), and each string literal's text with its line number."""
    code, literals = [], []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            code.append("\n" * text.count("\n", i, end))
            line += text.count("\n", i, end)
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
                                                         or text[i - 1] in "uUL8"):
            match = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if not match:
                code.append(c)
                i += 1
                continue
            close = ")" + match.group(1) + '"'
            start = i + match.end()
            end = text.find(close, start)
            end = n if end < 0 else end
            literals.append((line, text[start:end]))
            code.append('""' + "\n" * text.count("\n", i, end))
            line += text.count("\n", i, end)
            i = end + len(close)
        elif c in "\"'":
            # A quote after a digit is a digit separator (1'000), not a character literal.
            if c == "'" and i > 0 and text[i - 1].isdigit():
                code.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                literals.append((line, text[i + 1:j]))
            code.append(c + c)
            i = j + 1
        else:
            if c == "\n":
                line += 1
            code.append(c)
            i += 1
    return "".join(code), literals


def getenv_outside_registry(src, apps):
    """(a)"""
    allowed = {os.path.join(src, "core", "settings.cpp"), os.path.join(src, "core", "config.cpp")}
    call = re.compile(r"\b(getenv|setenv)\s*\(")
    for root in (src, apps):
        for path in files(root):
            text = read(path)
            if path.endswith(C_SUFFIXES):
                code, _ = lex(text)
            else:  # scripts: leave their comment lines out
                code = "\n".join("" if l.lstrip().startswith("#") else l for l in text.split("\n"))
            for match in call.finditer(code):
                where = "%s:%d" % (os.path.relpath(path, os.path.dirname(src)), code.count("\n", 0, match.start()) + 1)
                if path not in allowed:
                    problem("%s calls %s(): read HERALD_ settings through the registry (herald::environment, "
                            "herald::setting_value)" % (where, match.group(1)))
    # config.cpp's getenv reads the names of a loop over non-HERALD literals: the launchers' rank variables.
    code, _ = lex(read(os.path.join(src, "core", "config.cpp")))
    text = read(os.path.join(src, "core", "config.cpp"))
    for match in call.finditer(code):
        where = "src/core/config.cpp:%d" % (code.count("\n", 0, match.start()) + 1)
        if match.group(1) == "setenv":
            problem("%s calls setenv()" % where)
            continue
        argument = re.match(r"\s*([A-Za-z_]\w*)\s*\)", code[match.end():])
        if not argument:
            problem("%s: getenv's argument is not a name this test can follow" % where)
            continue
        # The lexed code keeps the source's lines, not its columns: look for the loop in the source's lines.
        before = "\n".join(text.split("\n")[:code.count("\n", 0, match.start()) + 1])
        loops = re.findall(r"for\s*\(\s*const\s+char\s*\*\s*%s\s*:\s*\{([^}]*)\}" % argument.group(1), before)
        loop = loops[-1] if loops else None
        names = re.findall(r'"([^"]*)"', loop) if loop else []
        if not names or any(n.startswith("HERALD_") for n in names):
            problem("%s: getenv(%s) reads more than the launchers' rank variables (%s)"
                    % (where, argument.group(1), names or "not a loop over names"))


def names_in_literals(roots):
    """(b): every HERALD_ name in a string literal, with where it is."""
    found = []
    for root in roots:
        for path in files(root, C_SUFFIXES):
            _, literals = lex(read(path))
            for line, literal in literals:
                for name in NAME.findall(literal):
                    found.append((name, "%s:%d" % (path, line)))
    return found


def docs_rows(path):
    """(c): every table row's first cell's HERALD_ names, with the component of the section it is in."""
    rows, component = [], None
    for number, line in enumerate(read(path).split("\n"), 1):
        if line.startswith("## "):
            match = SECTION.match(line)
            component = match.group("component") if match else None
        elif line.startswith("|") and not re.match(r"^\|[\s|:-]*$", line):
            first = line.split("|")[1]
            for name in re.findall(r"`(HERALD_[A-Z0-9_]+)`", first):
                rows.append((name, component, number))
    return rows


def main(source, program):
    src, apps, include = (os.path.join(source, d) for d in ("src", "apps", "include"))
    done = subprocess.run([program, "--json"], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("HERALD_")})
    if done.returncode != 0:
        sys.exit("check_registry.py: %s --json failed: %s" % (program, done.stderr.strip()))
    settings = json.loads(done.stdout)["settings"]
    known = {s["name"] for s in settings} | {s["former_name"] for s in settings if s["former_name"]}

    getenv_outside_registry(src, apps)

    literals = names_in_literals((src, apps, include))
    for name, where in literals:
        if name.endswith("_"):
            if name != "HERALD_TEST_" and not any(k.startswith(name) for k in known):
                problem("%s: the prefix %s starts no registered setting" % (os.path.relpath(where, source), name))
        elif name not in known and not name.startswith("HERALD_TEST_"):
            problem("%s: %s is not a registered setting (src/core/settings.cpp; herald-info lists them)"
                    % (os.path.relpath(where, source), name))

    docs = os.path.join(source, "docs", "configuration.md")
    rows = docs_rows(docs)
    documented = {}
    for name, component, line in rows:
        if name.startswith("HERALD_TEST_"):
            continue
        if name in documented:
            problem("docs/configuration.md:%d: %s has a second row (line %d)" % (line, name, documented[name][1]))
        documented.setdefault(name, (component, line))
        if name not in {s["name"] for s in settings}:
            problem("docs/configuration.md:%d: %s is not a registered setting%s" % (
                line, name, " (a former name: document the new one)" if name in known else ""))
    order = {}
    for s in settings:
        if s["name"] not in documented:
            problem("docs/configuration.md has no row for %s (%s: %s)" % (s["name"], s["component"], s["doc"]))
            continue
        component, line = documented[s["name"]]
        if component != s["component"]:
            problem("docs/configuration.md:%d: %s is in the section of %s, not of its component %s"
                    % (line, s["name"], component, s["component"]))
        previous = order.get(s["component"])
        if previous and line < previous[1]:
            problem("docs/configuration.md:%d: %s comes before %s (line %d), the registry's order is the other"
                    % (line, s["name"], previous[0], previous[1]))
        order[s["component"]] = (s["name"], line)

    print("check_registry.py: %d settings, %d HERALD_ names in literals, %d documented rows: %d problems"
          % (len(settings), len(literals), len(rows), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
