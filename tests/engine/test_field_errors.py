"""State, notation and record errors carry their field (issue 35): callers read ``field``, never the text."""

from __future__ import annotations

import pickle

import pytest

from quiltsolve.engine import GameState, NotationError, RecordError, StateError, new_game, replay_steps
from quiltsolve.engine.errors import FieldError
from quiltsolve.server.positions import PositionError, from_state_json


def _bad_state(**players0) -> dict:
    d = new_game(3).to_json()
    d["players"][0].update(players0)
    return d


def test_a_state_error_names_its_field_apart_from_the_message():
    with pytest.raises(StateError) as e:
        GameState.from_json(_bad_state(buttons=-1))
    assert (e.value.field, e.value.message) == ("players[0].buttons", "must be an integer 0-1000, got -1")
    assert str(e.value) == "players[0].buttons: must be an integer 0-1000, got -1"


def test_the_position_codec_takes_the_field_not_the_text():
    # A field whose message itself reads like "path: ..." is still placed under the right path.
    with pytest.raises(PositionError) as e:
        from_state_json(_bad_state(board=["#########"] * 8 + ["x: y: z"]), "state")
    assert e.value.field == "state.players[0].board[8]"
    assert e.value.message.startswith("must be 9 characters")


def test_a_notation_error_names_the_notation_field():
    text = new_game(3).to_notation().split()
    text[1] = "0,9999,-,0"
    with pytest.raises(NotationError) as e:
        GameState.from_notation(" ".join(text))
    assert e.value.field == "player 0 buttons"
    # a check of the position behind the notation is worded in the notation's terms
    text = new_game(3).to_notation().split()
    text[1] += "+"                                  # the 7x7 bonus on an empty board
    with pytest.raises(NotationError) as e:
        GameState.from_notation(" ".join(text))
    assert e.value.field == "player 0 bonus"
    assert "square" in e.value.message and "players[" not in str(e.value)


def test_a_record_error_names_the_action():
    record = {"circle": new_game(1).circle, "actions": ["advance", "jump"]}
    with pytest.raises(RecordError) as e:
        list(replay_steps(record))
    assert e.value.field == "actions[1]"
    assert e.value.message.startswith('"jump": unknown action')


@pytest.mark.parametrize("cls", [StateError, NotationError, RecordError])
def test_errors_cross_processes_whole(cls):
    e = cls("circle[3]", "patch 5 is listed twice")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls and (back.field, back.message, str(back)) == (e.field, e.message, str(e))
    assert isinstance(back, FieldError) and isinstance(back, ValueError)


def test_the_one_argument_form_names_no_field():
    e = StateError("a whole message: with a colon")
    assert (e.field, e.message) == ("", "a whole message: with a colon")
