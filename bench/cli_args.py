"""The command-line parsing the Python scripts under bench/ share: a module, imported, not run.

A script puts bench/ on sys.path from its own location, then reads its command line with parse_args:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/<name>/x.py
    from cli_args import parse_args  # noqa: E402
"""


def parse_args(parser, argv=None):
    """parser.parse_args(argv), but a refused command line gets one line on stderr and exit 2, and an unknown
    option is named before a missing argument. parser.error stays so: a later parser.error(message) is one
    line and exit 2 as well."""
    parser.error = lambda message: parser.exit(2, f"{parser.prog}: {message} (see --help)\n")
    required = [action for action in parser._actions if action.required]
    for action in required:
        action.required = False
    unknown = parser.parse_known_args(argv)[1]
    for action in required:
        action.required = True
    if unknown:
        parser.error("unrecognized arguments: " + " ".join(unknown))
    return parser.parse_args(argv)
