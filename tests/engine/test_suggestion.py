"""MoveSuggestion says what its numbers are: win_chance (0-1) or margin_buttons; value is a deprecated alias."""

from __future__ import annotations

import pickle

import pytest

from quiltsolve.engine import ADVANCE, MoveSuggestion, new_game, search_moves, suggest_moves
from quiltsolve.engine.advisor import LocalAdvisor


def test_the_search_fills_a_win_chance():
    moves = search_moves(new_game(2), iterations=60)
    assert moves and all(0.0 <= m.win_chance <= 1.0 and m.margin_buttons is None for m in moves)


def test_the_heuristic_ranking_fills_buttons_and_no_chance():
    moves = suggest_moves(new_game(2), advisor=LocalAdvisor())
    assert moves and all(m.win_chance is None and isinstance(m.margin_buttons, float) for m in moves)
    assert [m.margin_buttons for m in moves] == sorted((m.margin_buttons for m in moves), reverse=True)


def test_value_is_a_deprecated_read_only_alias():
    chance = MoveSuggestion(ADVANCE, 0.75, "r")
    buttons = MoveSuggestion(ADVANCE, None, "r", margin_buttons=-3.5)
    with pytest.deprecated_call():
        assert chance.value == 0.75
    with pytest.deprecated_call():
        assert buttons.value == -3.5
    with pytest.raises(AttributeError):
        chance.value = 0.5  # type: ignore[misc]


def test_value_is_a_deprecated_constructor_keyword():
    with pytest.deprecated_call():
        m = MoveSuggestion(ADVANCE, value=0.5, reason="r")
    assert m == MoveSuggestion(ADVANCE, 0.5, "r")
    with pytest.raises(TypeError), pytest.deprecated_call():
        MoveSuggestion(ADVANCE, 0.5, "r", value=0.5)


def test_a_win_chance_is_a_chance():
    with pytest.raises(ValueError, match="0-1"):
        MoveSuggestion(ADVANCE, 1.5, "r")
    m = MoveSuggestion(ADVANCE, 1.0, "r")
    assert pickle.loads(pickle.dumps(m)) == m
