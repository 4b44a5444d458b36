# PYTHON_ARGCOMPLETE_OK
"""The ``suggest`` command: placements, moves and puzzles from the terminal.

    suggest place board.txt --patch 12 --patch "##./.##"
    suggest next board.txt --patch 5 --upcoming 7,9,13 --json
    suggest move state.json --top 3
    suggest solve state.json --time-limit 600
    suggest puzzle region.txt --piece "###/.#." --piece "##" --count
    suggest generate --pieces patches --seed 7
    suggest patches

Exit codes: 0 answer found, 1 no placement possible / infeasible / no move,
2 bad input (one line on stderr), 3 service unavailable or deadline
exceeded, 4 internal error (a bug). See ``docs/cli.md`` for every option and
the JSON shapes. Shell completion: argcomplete (``docs/cli.md``).

One module per command (``place``, ``next``, ``move``, ``solve``, ``review``, ``play``,
``puzzle``, ``generate``, ``patches``), each with ``add_to`` (its options) and
``run(args, client, out)``; ``parser`` builds the parser from them,
``options`` holds the argument types, ``output`` what the commands write
with, ``connection`` the service options. This module is :func:`main`: parse,
connect, run the command, and turn every failure into one line and an exit code.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any, Sequence, TextIO

from .. import connect, errors
from .connection import remote_options
from . import output
from .output import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_NONE, EXIT_OK, EXIT_SERVICE
from .parser import PROG, UsageError, build_parser, version

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_NONE", "EXIT_OK", "EXIT_SERVICE", "PROG", "UsageError",
           "build_parser", "main", "version"]

_MAX_MESSAGE = 500  # characters of an error line

# Names clients/cli.py had before it became a package (issue 35), kept one release: name -> (module, name).
_MOVED = {
    "Out": ("output", "Out"),
    "split_pieces": ("puzzle", "split_pieces"),
    "DEFAULT_ENGINE": ("play", "DEFAULT_ENGINE"),
    "REVIEW_ITERATIONS": ("review", "REVIEW_ITERATIONS"),
    **{f"cmd_{name}": (name, "run") for name in ("place", "next", "move", "review", "play", "puzzle", "generate",
                                                 "patches")},
}


def __getattr__(name: str) -> Any:
    """The deprecated aliases of the names that moved into the command modules."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _MOVED[name]
    warnings.warn(f"quiltsolve.clients.cli.{name} is deprecated: use quiltsolve.clients.cli.{module}.{attr}",
                  DeprecationWarning, stacklevel=2)
    return getattr(sys.modules[f"{__name__}.{module}"], attr)


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether errors should be JSON: --json among the options (before a ``--``)."""
    argv = list(argv)
    if "--" in argv:
        argv = argv[: argv.index("--")]
    return "--json" in argv


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``suggest`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Never raises and never prints a traceback: every failure is one line on
    ``stderr`` (a JSON object ``{"error": ..., "code": ...}`` with ``--json``).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    out_stream = stdout or sys.stdout
    err_stream = stderr or sys.stderr
    json_errors = _wants_json(argv)

    def fail(code: int, message: str, prog: str = PROG) -> int:
        text = " ".join(str(message).split())
        if len(text) > _MAX_MESSAGE:
            text = text[: _MAX_MESSAGE - 3] + "..."
        if json_errors:
            print(json.dumps({"error": text, "code": code}), file=err_stream)
        else:
            print(f"{prog}: error: {text}", file=err_stream)
        return code

    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (argcomplete)
        import argcomplete

        argcomplete.autocomplete(parser)
    try:
        args = parser.parse_args(argv)
    except UsageError as e:
        return fail(EXIT_BAD_INPUT, e.args[1], prog=e.args[0])
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else 0
    client = None
    try:
        client = connect(args.server, deadline=args.deadline, **remote_options(args))
        if getattr(args, "ray", None) is not None:  # puzzle --count --ray, solve --ray (clients/ray_puzzle.py)
            # start-up time: only --ray needs it; solver.ray_count pulls in the puzzle search and split (~20 ms)
            from ..ray_puzzle import ray_client

            client = ray_client(args, client)
        return int(args.func(args, client, output.Out(args, out_stream)))
    except errors.InvalidArgument as e:
        return fail(EXIT_BAD_INPUT, str(e))
    except (errors.ServiceUnavailable, errors.DeadlineExceeded, errors.Unauthenticated) as e:
        return fail(EXIT_SERVICE, str(e))
    except errors.ClientError as e:
        return fail(EXIT_SERVICE, f"service error {e.code}: {e}")
    except (ValueError, ArithmeticError, RecursionError) as e:  # the solver's / engine's narrow input errors
        return fail(EXIT_BAD_INPUT, str(e) or type(e).__name__)
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except BrokenPipeError:  # e.g. suggest patches | head
        if stdout is None:
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - a bug: still one line, never a traceback
        return fail(EXIT_INTERNAL, f"internal error (a bug, please report it): {type(e).__name__}: {e}")
    finally:
        if client is not None:
            client.close()
