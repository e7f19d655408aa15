#!/usr/bin/env python3
"""No two sources under src/ give one name to something local, and none opens a namespace to the next.

The libraries compile in batches (HERALD_UNITY_BUILD): the sources of a batch become one translation unit,
so what one source keeps to itself (in an unnamed namespace, or static) is seen by the sources after it.
Two local functions of one name are then overloads of each other, and a call may bind to the other file's
function without a word from the compiler; a constant of one name in an inner namespace hides the other;
two types or variables of one name fail to compile once a change of files puts them in one batch. A
`using namespace` or `using enum` at namespace scope brings its names into every later source of the batch.

It reads the sources as text. A declaration is the first line of a statement at an unnamed namespace's own
level (or a static function at namespace scope); its name is the identifier before the first `(`, `{`,
`=`, `[`, `;` or `:` of its statement, or after struct/class/enum/union/using. Braces and parentheses in
comments and literals are skipped (tests/settings/check_registry.py's lexer).
"""
import argparse
import collections
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "settings"))
from check_registry import lex  # noqa: E402  the C++ lexer the settings check reads sources with

ATTRIBUTES = re.compile(r"^(?:\[\[[^\]]*\]\]\s*|__attribute__\s*\(\(.*?\)\)\s*)+")
TYPE = re.compile(r"^(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)")
ALIAS = re.compile(r"^using\s+(\w+)\s*=")
OPENS = re.compile(r"^using\s+(?:namespace|enum)\b")
NAME = re.compile(r"([A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*$")  # the last identifier, past template arguments
KEYWORDS = {"operator", "const", "constexpr", "static", "inline", "noexcept", "return", "template", "typename"}
NAMESPACE = re.compile(r"^\s*(?:inline\s+)?namespace\s*([\w:]*)\s*\{")


def declared_name(statement):
    """The name a namespace-scope statement (its attributes stripped, no using-directive) declares, or None."""
    s = re.sub(r"^template\s*<.*?>\s*", "", statement)
    m = TYPE.match(s) or ALIAS.match(s)
    if m:
        return m.group(1)
    if s.startswith(("using", "typedef", "static_assert", "extern", "friend")):
        return None
    cut = re.search(r"[({=\[;:]", s.replace("::", "  "))
    m = NAME.search(s[:cut.start()] if cut else s)
    return m.group(1) if m and m.group(1) not in KEYWORDS else None


def locals_of(text):
    """(name, line) of what a source declares with internal linkage, and the lines of its using-directives at
    namespace scope."""
    names, opens = [], []
    depth = parens = 0
    scopes = [(0, False)]  # namespace bodies: (brace depth of the body, unnamed)
    statement, first_line = None, 0  # the statement at the innermost namespace's level, once it begins
    recorded = False
    bodies = []  # per brace opened at that level: whether it closes the statement (a body, not an initializer)
    for number, line in enumerate(lex(text)[0].splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for ch in line:
            here = depth == scopes[-1][0]
            if here and statement is None and not ch.isspace() and ch not in ";}":
                statement, first_line, recorded = "", number, False
            if here and statement is not None:
                statement += ch
            if ch == "(":
                parens += 1
            elif ch == ")":
                parens -= 1
            elif ch == "{":
                if here and statement is not None:
                    head = statement[:-1]
                    if not recorded:
                        record(head, first_line, scopes[-1][1], names, opens)
                        recorded = True
                    opened = NAMESPACE.match(head + "{")
                    if opened:
                        scopes.append((depth + 1, not opened.group(1)))
                        statement = None
                    else:
                        plain = re.sub(r"operator\s*[^\s(]+", "operator", head)  # operator= is no initializer
                        bodies.append(bool(TYPE.match(head.strip())) or ("(" in plain and "=" not in plain.split("(")[0]))
                depth += 1
            elif ch == "}":
                depth -= 1
                if len(scopes) > 1 and depth < scopes[-1][0]:
                    scopes.pop()
                    statement = None
                elif depth == scopes[-1][0] and bodies and bodies.pop():
                    statement = None  # a function's or a type's body ends its statement
            elif ch == ";" and here and parens == 0 and statement is not None:
                if not recorded:
                    record(statement[:-1], first_line, scopes[-1][1], names, opens)
                statement = None
        if statement is not None:
            statement += " "
    return names, opens


def record(statement, line, unnamed, names, opens):
    """Notes what one namespace-scope statement declares local, or its using-directive."""
    s = ATTRIBUTES.sub("", statement.strip())
    if s.startswith(("namespace", "inline namespace")):
        return
    if OPENS.match(s):
        opens.append(line)
        return
    if unnamed or s.startswith("static "):
        name = declared_name(s)
        if name:
            names.append((name, line))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", type=pathlib.Path, required=True, help="the repository")
    args = parser.parse_args()
    where = collections.defaultdict(list)
    problems = []
    for source in sorted((args.source_dir / "src").rglob("*.cpp")):
        rel = source.relative_to(args.source_dir).as_posix()
        names, opens = locals_of(source.read_text())
        for name, line in names:
            where[name].append(f"{rel}:{line}")
        problems += [f"{rel}:{line}: a using-directive at namespace scope brings its names into the sources "
                     "batched after this one; put it inside the functions that need it" for line in opens]
    for name, places in sorted(where.items()):
        files = {p.rsplit(":", 1)[0] for p in places}
        if len(files) > 1:
            problems.append(f"'{name}' is declared local in {len(files)} sources: {', '.join(places)}; rename all "
                            "but one (a batched build puts them in one translation unit)")
    for p in problems:
        print(p, file=sys.stderr)
    if not where:
        print("found nothing local under src/: the check reads nothing", file=sys.stderr)
        return 1
    if problems:
        return 1
    print(f"{len(where)} local names under src/, each declared in one source")
    return 0


if __name__ == "__main__":
    sys.exit(main())
