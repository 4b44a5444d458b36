"""State JSON all the way down: bounds, types, hostile keys and nesting, boards as row strings,
and a JavaScript-style round trip (every number a double)."""

from __future__ import annotations

import copy
import json

import pytest
from engine_helpers import build, rows

from quiltsolve.engine import GameState, StateError, new_game
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer
from quiltsolve.engine.state_json import MAX_BUTTONS, quote
from quiltsolve.solver import board_to_rows

BASE = build({"position": 30, "buttons": 4, "patches": [32], "board": rows("#####", "####")},
             {"position": 31}, front=[1, 2, 3]).to_json()
DEPTH = 100_000


def deep(n: int = DEPTH) -> list:
    v: list = []
    for _ in range(n):
        v = [v]
    return v


def put(path, value):
    def f(d):
        node = d
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return f


def add_key(path, key, value=1):
    def f(d):
        node = d
        for k in path:
            node = node[k]
        node[key] = value
    return f


P0 = ["players", 0]
BAD = [
    # (name, change, the field path the message must start with, text it must contain)
    ("buttons huge", put(P0 + ["buttons"], 10 ** 400), "players[0].buttons", "must be an integer 0-1000, got 1000"),
    ("buttons beyond int-to-str limit", put(P0 + ["buttons"], 10 ** 5000), "players[0].buttons", "0-1000"),
    ("buttons infinite", put(P0 + ["buttons"], float("inf")), "players[0].buttons", "got Infinity"),
    ("buttons nan", put(P0 + ["buttons"], float("nan")), "players[0].buttons", "got NaN"),
    ("buttons integral float", put(P0 + ["buttons"], 3.0), "players[0].buttons", "got 3.0 (write integers"),
    ("buttons string", put(P0 + ["buttons"], "5"), "players[0].buttons", 'got "5"'),
    ("buttons bool", put(P0 + ["buttons"], True), "players[0].buttons", "got true"),
    ("buttons null", put(P0 + ["buttons"], None), "players[0].buttons", "got null"),
    ("buttons above bound", put(P0 + ["buttons"], MAX_BUTTONS + 1), "players[0].buttons", "got 1001"),
    ("position negative", put(["players", 1, "position"], -1), "players[1].position", "0-53, got -1"),
    ("position fraction", put(P0 + ["position"], 30.5), "players[0].position", "got 30.5"),
    ("income huge", put(P0 + ["income"], 10 ** 30), "players[0].income", "0-38"),
    ("income list", put(P0 + ["income"], [3]), "players[0].income", "got [3]"),
    ("leather bool", put(P0 + ["leather"], False), "players[0].leather", "got false"),
    ("patch id float", put(P0 + ["patches"], [32, 1.0]), "players[0].patches[1]", "a patch id 0-32"),
    ("too many patch ids", put(P0 + ["patches"], list(range(33)) * 2), "players[0].patches", "at most 33"),
    ("patches object", put(P0 + ["patches"], {"a": 1}), "players[0].patches", 'got {"a": 1}'),
    ("board one string", put(P0 + ["board"], "#" * 81), "players[0].board", "9 row strings"),
    ("board 8 rows", put(P0 + ["board"], ["#" * 9] * 8), "players[0].board", "9 row strings"),
    ("board bad char", put(P0 + ["board"], ["." * 9] * 8 + ["x" * 9]), "players[0].board[8]", '"xxxxxxxxx"'),
    ("board long row", put(P0 + ["board"], ["." * 10] + ["." * 9] * 8), "players[0].board[0]", "9 characters"),
    ("board row null", put(P0 + ["board"], [None] * 9), "players[0].board[0]", "got null"),
    ("board float", put(P0 + ["board"], float(2 ** 81 - 1)), "players[0].board", "9 row strings"),
    ("board int too big", put(P0 + ["board"], 2 ** 81), "players[0].board", "0-2^81-1"),
    ("bonus string", put(P0 + ["bonus"], "yes"), "players[0].bonus", 'got "yes"'),
    ("circle string", put(["circle"], "abc"), "circle", "list of patch ids"),
    ("circle float id", put(["circle"], [1, 2, 3.0]), "circle[2]", "got 3.0"),
    ("circle nested", put(["circle"], [[]]), "circle[0]", "got []"),
    ("leather space float", put(["leather_spaces"], [32.0, 38, 44, 50]), "leather_spaces[0]", "got 32.0"),
    ("leather space bool", put(["leather_spaces"], [True]), "leather_spaces[0]", "got true"),
    ("leather spaces many", put(["leather_spaces"], [32] * 1000), "leather_spaces", "at most 5"),
    ("current player bool", put(["current_player"], True), "current_player", "got true"),
    ("current player float", put(["current_player"], 0.0), "current_player", "got 0.0"),
    ("leather to place negative", put(["leather_to_place"], -1), "leather_to_place", "got -1"),
    ("first to end 2", put(["first_to_end"], 2), "first_to_end", "0, 1 or null, got 2"),
    ("first to end bool", put(["first_to_end"], False), "first_to_end", "got false"),
    ("edition list", put(["edition"], ["revised"]), "edition", 'got ["revised"]'),
    ("edition huge", put(["edition"], "x" * 15_000), "edition", '"xxxx'),
    ("players object", put(["players"], {"0": {}}), "players", "list of two"),
    ("player a string", put(["players", 1], "player"), "players[1]", 'must be an object, got "player"'),
    ("unknown player key", add_key(P0, "colour", "red"), "players[0].colour", "unknown field"),
    ("huge unknown key", add_key([], "k" * 15_000), '"kkkk', "unknown field"),
    ("lone surrogate key", add_key([], "\ud800"), '"\\ud800"', "unknown field"),
    ("odd key", add_key(P0, "a b"), 'players[0]."a b"', "unknown field"),
    ("patches deeply nested", put(P0 + ["patches"], deep()), "players[0].patches[0]", "got [[[["),
    ("circle deeply nested", put(["circle", 0], deep()), "circle[0]", "got [[[["),
    ("board deeply nested", put(P0 + ["board"], deep()), "players[0].board", "got [[[["),
    ("edition deeply nested", put(["edition"], deep()), "edition", "got [[[["),
    ("leather spaces deeply nested", put(["leather_spaces"], deep()), "leather_spaces[0]", "got [[[["),
    ("player deeply nested", put(["players", 0], deep()), "players[0]", "must be an object"),
]


@pytest.mark.parametrize("change,path,text", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_state_names_the_field_in_one_short_line(change, path, text):
    d = copy.deepcopy(BASE)
    change(d)
    with pytest.raises(StateError) as e:
        GameState.from_json(d)
    message = str(e.value)
    assert message.startswith(path) and ": " in message, message
    assert text in message
    assert len(message) < 200 and "\n" not in message
    message.encode("utf-8")          # printable: no lone surrogates
    for internal in ("Error", "Traceback", "<class", "object at 0x"):
        assert internal not in message


def test_the_table_is_big_enough():
    assert len(BAD) >= 25


def test_whole_state_deeply_nested_or_not_an_object():
    for d in (deep(), [1, 2], "state", None, 3.5):
        with pytest.raises(StateError, match=r"^state: must be an object, got "):
            GameState.from_json(d)


def test_quote_cuts_everything_short():
    assert quote("abc") == '"abc"' and quote(None) == "null" and quote(-7) == "-7"
    assert quote(1e400) == "Infinity" and quote(float("-inf")) == "-Infinity"
    for v in ("x" * 15_000, 10 ** 400, 10 ** 5000, -(10 ** 5000), deep(), list(range(10 ** 5)),
              {str(i): i for i in range(10 ** 4)}, ["\ud800" * 500], b"bytes" * 100):
        q = quote(v)
        assert len(q) <= 80
        q.encode("utf-8")
    assert quote("x" * 500).endswith('xxx...')
    assert quote(b"ab") == "<bytes>"
    assert quote({"a": [1, 2]}) == '{"a": [1, 2]}'
    assert len(quote("x" * 100, 30)) == 30


# ------------------------------------------------------------------ boards as row strings
def test_boards_are_written_as_nine_row_strings():
    s = build({"board": rows("#####", "####"), "patches": [32], "position": 3}, {"position": 4})
    board = s.to_json()["players"][0]["board"]
    assert board == ["#####....", "####....."] + ["." * 9] * 7
    assert board == board_to_rows(s.players[0].board)


def test_older_integer_boards_are_still_read():
    s = build({"board": rows("#####", "####"), "patches": [32], "position": 3}, {"position": 4})
    d = s.to_json()
    d["players"][0]["board"] = s.players[0].board
    d["players"][1]["board"] = 0
    assert GameState.from_json(d) == s


def playout_states(n_games: int, seed: int = 0):
    """Every position of seeded random and greedy-vs-random playouts, both editions."""
    for g in range(n_games):
        edition = ("revised", "original")[g % 2]
        s = new_game(seed + g, edition)
        players = (RandomPlayer(g), RandomPlayer(g + 500)) if g % 3 else (GreedyPlayer(), RandomPlayer(g))
        yield s.clone()
        while not s.is_terminal():
            s.apply_action(players[s.current_player()].choose(s))
            yield s.clone()


def js_round_trip(text: str) -> str:
    """What a JavaScript client sends back: JSON.stringify(JSON.parse(text))."""
    def back(v):
        if isinstance(v, float):
            # JSON.stringify writes integral doubles below 1e21 as integers, others in exponent form.
            return int(v) if v.is_integer() and abs(v) < 1e21 else v
        if isinstance(v, list):
            return [back(x) for x in v]
        if isinstance(v, dict):
            return {k: back(x) for k, x in v.items()}
        return v
    return json.dumps(back(json.loads(text, parse_int=float)))


def ints_in(v):
    if type(v) is int:
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from ints_in(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from ints_in(x)


def test_javascript_round_trip_of_many_states():
    n = 0
    pending = finished = 0
    for s in playout_states(30):
        d = s.to_json()
        assert max(abs(i) for i in ints_in(d)) <= 2 ** 53
        back = GameState.from_json(json.loads(js_round_trip(json.dumps(d))))
        assert back == s
        n += 1
        pending += s.pending_leather is not None
        finished += s.is_terminal()
    assert n >= 1000 and pending >= 30 and finished == 30


def test_integer_boards_would_not_survive_javascript():
    # Why boards are strings: an 81-bit mask read as a double loses its low bits.
    s = build({"board": rows("#####", "####", "", "", "", "", "", "#####", "####"), "patches": [32], "position": 3},
              {"position": 4})
    d = s.to_json()
    d["players"][0]["board"] = s.players[0].board
    with pytest.raises(StateError, match=r"^players\[0\]\.board: "):
        GameState.from_json(json.loads(js_round_trip(json.dumps(d))))
