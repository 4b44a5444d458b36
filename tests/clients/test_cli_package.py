"""``clients.cli`` is a package, one module per command: what it keeps, and the aliases of what moved."""

from __future__ import annotations

import argparse
import importlib

import pytest

import quiltsolve.clients.cli as cli
from quiltsolve.clients.cli import parser


def test_every_command_is_a_module_with_its_options_and_run():
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == ["place", "next", "move", "solve", "state", "review", "play", "puzzle",
                                  "generate", "patches"]
    for name, command_parser in sub.choices.items():
        module = importlib.import_module(f"quiltsolve.clients.cli.{name}")
        assert command_parser.get_default("func") is module.run, name


@pytest.mark.parametrize("old,module,new", [
    ("cmd_place", "place", "run"), ("cmd_next", "next", "run"), ("cmd_move", "move", "run"),
    ("cmd_review", "review", "run"), ("cmd_play", "play", "run"), ("cmd_puzzle", "puzzle", "run"),
    ("cmd_generate", "generate", "run"), ("cmd_patches", "patches", "run"), ("Out", "output", "Out"),
    ("split_pieces", "puzzle", "split_pieces"), ("DEFAULT_ENGINE", "play", "DEFAULT_ENGINE"),
    ("REVIEW_ITERATIONS", "review", "REVIEW_ITERATIONS"),
])
def test_moved_names_are_deprecated_aliases(old, module, new):
    with pytest.warns(DeprecationWarning, match=rf"clients\.cli\.{old} is deprecated: use .*cli\.{module}\.{new}"):
        value = getattr(cli, old)
    assert value is getattr(importlib.import_module(f"quiltsolve.clients.cli.{module}"), new)


def test_what_stays_needs_no_alias():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from quiltsolve.clients.cli import EXIT_BAD_INPUT, PROG, UsageError, build_parser, main, version  # noqa: F401
    assert build_parser is parser.build_parser and PROG == "suggest" and EXIT_BAD_INPUT == 2
    with pytest.raises(AttributeError):
        cli.no_such_name
