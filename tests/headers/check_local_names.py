#!/usr/bin/env python3
"""No two sources under src/ define a local function of the same name.

The libraries compile in batches (HERALD_UNITY_BUILD): the sources of a batch become one translation unit,
so a function one source keeps to itself (in an unnamed namespace, or static) is seen by the sources after
it. Two such functions of one name are then overloads of each other, and a call may bind to the other
file's function without a word from the compiler where its parameters match better. A second definition
of one signature fails to compile, so only the silent case needs this check. It reads the sources as text:
a definition is a line at the unnamed namespace's own level (or a static one at namespace scope) that names
a function and opens its parameter list.
"""
import argparse
import collections
import pathlib
import re
import sys

DEFINITION = re.compile(
    r"^(?:(?:static|inline|constexpr|template\s*<[^>]*>)\s+)*"  # specifiers
    r"[\w:<>,*&\s]+?[\s*&]"                                     # the return type
    r"(?P<name>[A-Za-z_]\w*)\s*\([^;]*$"                        # the name, then its parameters, not a declaration
)
NOT_A_DEFINITION = ("return", "if", "for", "while", "switch", "else", "using", "case", "throw", "co_return")
UNNAMED = re.compile(r"^\s*namespace\s*\{")


def local_functions(text):
    """The names of the functions a source defines with internal linkage."""
    depth = 0
    unnamed = []  # brace depths at which an unnamed namespace's body starts
    for line in text.splitlines():
        code = line.strip()
        if code and not code.startswith(("//", "#")):
            inside = bool(unnamed) and depth == unnamed[-1]
            static = code.startswith("static ") and depth <= 2  # at most two named namespaces deep
            match = DEFINITION.match(code) if inside or static else None
            if match and not code.startswith(NOT_A_DEFINITION) and "=" not in code.split("(")[0]:
                yield match.group("name")
        if UNNAMED.match(line):
            unnamed.append(depth + 1)
        depth += line.count("{") - line.count("}")
        while unnamed and depth < unnamed[-1]:
            unnamed.pop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", type=pathlib.Path, required=True, help="the repository")
    args = parser.parse_args()
    files = collections.defaultdict(set)
    for source in sorted((args.source_dir / "src").rglob("*.cpp")):
        for name in local_functions(source.read_text()):
            files[name].add(source.relative_to(args.source_dir).as_posix())
    clashes = {name: sorted(where) for name, where in files.items() if len(where) > 1}
    for name, where in sorted(clashes.items()):
        print(f"local function '{name}' is defined in {len(where)} sources: {', '.join(where)}; rename all but "
              "one (a batched build makes them overloads of each other)", file=sys.stderr)
    if not files:
        print("found no local function under src/: the check reads nothing", file=sys.stderr)
        return 1
    if clashes:
        return 1
    print(f"{len(files)} local function names under src/, each defined in one source")
    return 0


if __name__ == "__main__":
    sys.exit(main())
