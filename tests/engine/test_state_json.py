"""State JSON: exact round trip and a clear, field-first error for each bad field."""

import copy
import json

import pytest
from engine_helpers import build, rows

from quiltsolve.engine import GameState, StateError, new_game
from quiltsolve.engine.players import RandomPlayer
from quiltsolve.solver import board_from_rows, board_to_rows


def midgame() -> GameState:
    s, r = new_game(4), RandomPlayer(4)
    for _ in range(30):
        s.apply_action(r.choose(s))
    return s


def test_round_trip_is_exact_and_json_safe():
    s = midgame()
    d = s.to_json()
    assert set(d) == {"edition", "players", "circle", "leather_spaces", "current_player", "leather_to_place",
                      "first_to_end"}
    assert set(d["players"][0]) == {"board", "buttons", "position", "income", "patches", "leather", "bonus"}
    back = GameState.from_json(json.loads(json.dumps(d)))
    assert back.to_json() == d
    # The loaded state plays on exactly like the original.
    a, b = s.clone(), back
    ra, rb = RandomPlayer(9), RandomPlayer(9)
    while not a.is_terminal():
        a.apply_action(ra.choose(a))
        b.apply_action(rb.choose(b))
    assert a == b


def test_accessors():
    s = midgame()
    d = s.to_json()
    assert d["players"][1]["board"] == board_to_rows(s.players[1].board)
    assert s.players[1].board == board_from_rows(d["players"][1]["board"])
    assert s.circle == d["circle"] and s.available_patches() == d["circle"][:3]
    assert s.edition == "revised"


def mutate(path, value):
    def f(d):
        target = d
        for k in path[:-1]:
            target = target[k]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return f


BASE = build({"position": 30, "buttons": 4, "patches": [32], "board": rows("#####", "####")},
             {"position": 31}, front=[1, 2, 3]).to_json()

BAD = [
    (mutate(["players", 1, "buttons"], -1), "players[1].buttons: must be an integer 0-1000, got -1"),
    (mutate(["players", 0, "buttons"], 1.5), "players[0].buttons: must be an integer"),
    (mutate(["players", 0, "buttons"], True), "players[0].buttons: must be an integer"),
    (mutate(["players", 0, "board"], 1 << 81),
     "players[0].board: must be 9 row strings or an integer 0-2^81-1, got 2417851639229258349412352"),
    (mutate(["players", 0, "board"], -1), "players[0].board: must be 9 row strings or an integer 0-2^81-1, got -1"),
    (mutate(["players", 0, "board"], 0b111), "players[0].board: covers 3 cells"),
    (mutate(["players", 0, "position"], 54), "players[0].position: must be an integer 0-53, got 54"),
    (mutate(["players", 0, "income"], 0), "players[0].income: must be 3"),
    (mutate(["players", 0, "patches"], [32, 99]), "players[0].patches[1]: must be a patch id 0-32, got 99"),
    (mutate(["players", 0, "patches"], "32"), "players[0].patches: must be a list"),
    (mutate(["players", 1, "patches"], [32]), "players[1].patches[0]: patch 32 is also in players[0].patches"),
    (mutate(["players", 0, "bonus"], 1), "players[0].bonus: must be true or false, got 1"),
    (mutate(["players", 0, "bonus"], True), "players[0].bonus: the board has no completed 7x7 square"),
    (mutate(["players", 0, "leather"], 9), "players[0].leather: must be an integer 0-5, got 9"),
    (mutate(["players", 0, "colour"], "red"), "players[0].colour: unknown field"),
    (mutate(["players", 0, "buttons"], KeyError), "players[0].buttons: missing"),
    (mutate(["players"], []), "players: must be a list of two"),
    (mutate(["circle", 0], 32), "circle[0]: patch 32 is already in players[0].patches"),
    (mutate(["circle", 1], 1), "circle[1]: patch 1 is listed twice"),
    (mutate(["circle"], [1, 2, 3]), "circle: patch 0 is neither in the circle nor on a board"),
    (mutate(["leather_spaces"], [26, 32, 38, 44, 50]), "leather_spaces: must be [32, 38, 44, 50]"),
    (mutate(["current_player"], 1), "current_player: must be 0, the player further back"),
    (mutate(["current_player"], 2), "current_player: must be a player 0-1, got 2"),
    (mutate(["leather_to_place"], 1), "leather_to_place: must be <= 0, the leather spaces between player 1 on 31"),
    (mutate(["first_to_end"], 0), "first_to_end: player 0 is not on space 53"),
    (mutate(["edition"], "deluxe"), "edition: must be one of"),
    (mutate(["turn"], 3), "turn: unknown field"),
]


@pytest.mark.parametrize("change,message", BAD, ids=[m for _, m in BAD])
def test_bad_field_is_named_first(change, message):
    d = copy.deepcopy(BASE)
    GameState.from_json(d)  # the base is valid
    change(d)
    with pytest.raises(StateError) as e:
        GameState.from_json(d)
    assert str(e.value).startswith(message)


def test_not_an_object():
    with pytest.raises(StateError, match="^state: must be an object"):
        GameState.from_json([1, 2])


def test_bonus_must_be_held_when_a_square_is_complete():
    square = sum(1 << (r * 9 + c) for r in range(7) for c in range(7))
    d = build({"board": square, "bonus": True}, {"position": 1}).to_json()
    d["players"][0]["bonus"] = False
    with pytest.raises(StateError, match=r"^players\[0\].bonus: must be true"):
        GameState.from_json(d)


def test_first_to_end_required_when_someone_is_at_53():
    d = build({"position": 40}, {"position": 53}, first_to_end=1).to_json()
    d["first_to_end"] = None
    with pytest.raises(StateError, match="^first_to_end: must be 1"):
        GameState.from_json(d)


def test_terminal_state_round_trips():
    s = build({"position": 53}, {"position": 53}, first_to_end=1)
    assert s.is_terminal() and GameState.from_json(s.to_json()).is_terminal()


def test_pending_leather_checks():
    d = build({"position": 27}, {"position": 25}, pending=1).to_json()     # just crossed 26
    assert GameState.from_json(d).pending_leather == 0
    d["players"][0]["leather"] = 1
    d["players"][0]["board"] = 1
    with pytest.raises(StateError, match="^leather_to_place: placed plus pending leather patches exceed the 1"):
        GameState.from_json(d)
    d = build({"position": 27, "board": (1 << 81) - 1, "bonus": True}, {"position": 25}, current=1).to_json()
    d["leather_to_place"], d["current_player"] = 1, 0
    with pytest.raises(StateError, match="^leather_to_place: must be <= 0, the empty cells of player 0"):
        GameState.from_json(d)
