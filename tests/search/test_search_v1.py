"""``search-v1``, the bench's baseline (bench/search_v1.py since 0.3.0): its doctests, its spec, where it went."""

from __future__ import annotations

import doctest

import pytest

from quiltsolve.engine import Buy, new_game
from quiltsolve.engine import players
from quiltsolve.engine.policy import tight_placement

from bench import search_v1
from bench.search_v1 import SearchPlayerV1

from .test_search import _UnfinishedAdvisor


def test_doctests():
    # bench/ is not among pytest's testpaths: run the module's examples here.
    failed, tried = doctest.testmod(search_v1, optionflags=doctest.ELLIPSIS)
    assert tried and not failed


def test_importing_the_bench_module_registers_the_spec():
    p = players.make_player("search-v1:5it", 1)
    assert isinstance(p, SearchPlayerV1) and "search-v1" in players.known_players()


def test_search_v1_keeps_trusting_an_unfinished_lookahead():
    """As in 0.2 (``search`` takes the snug placement instead: test_search.py)."""
    s = new_game(6)
    board = s.players[0].board
    v1 = SearchPlayerV1(iterations=30, seed=0, advisor=_UnfinishedAdvisor())
    worst = {b.patch_id: b.mask for b in (m.action for m in v1.search_moves(s)) if isinstance(b, Buy)}
    assert worst and all(m != tight_placement(board, pid) for pid, m in worst.items())


def test_the_engine_says_where_it_went():
    with pytest.raises(AttributeError, match="bench.search_v1.SearchPlayerV1"):
        players.SearchPlayerV1  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        players.nope  # noqa: B018
    registered = players._REGISTRY.pop("search-v1")
    try:
        with pytest.raises(ValueError, match="moved to the repository's bench"):
            players.make_player("search-v1", 0)
    finally:
        players.register_player("search-v1", registered)
