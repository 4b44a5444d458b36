"""Position notation: exact round trips over thousands of positions, the documented examples,
and a one-line NotationError naming the field for bad text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from engine_helpers import build, rows

from quiltsolve.engine import GameState, new_game
from quiltsolve.engine.__main__ import main
from quiltsolve.engine.notation import ID_CHARS, NotationError, to_notation
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer

DOCS = Path(__file__).parents[2] / "docs" / "engine.md"


def positions(n_games: int):
    """Every position of seeded random and greedy playouts, both editions."""
    for g in range(n_games):
        edition = ("revised", "original")[g % 2]
        s = new_game(1000 + g, edition)
        players = (GreedyPlayer(), RandomPlayer(g)) if g % 4 == 0 else \
            (GreedyPlayer(), GreedyPlayer()) if g % 4 == 1 else (RandomPlayer(g), RandomPlayer(g + 1))
        yield s.clone()
        while not s.is_terminal():
            s.apply_action(players[s.current_player()].choose(s))
            yield s.clone()


def test_round_trip_of_thousands_of_positions():
    seen = {"n": 0, "pending": 0, "original": 0, "finished": 0, "bonus": 0, "shared": 0}
    longest = 0
    for s in positions(90):
        text = s.to_notation()
        back = GameState.from_notation(text)
        assert back == s, text
        assert back.to_notation() == text and "\n" not in text
        assert GameState.from_notation(text.upper()) == s          # letters in either case
        longest = max(longest, len(text))
        seen["n"] += 1
        seen["pending"] += s.pending_leather is not None
        seen["original"] += s.edition == "original"
        seen["finished"] += s.is_terminal()
        seen["bonus"] += s.bonus_owner is not None
        seen["shared"] += s.players[0].position == s.players[1].position
    assert seen["n"] >= 3000
    assert seen["finished"] == 90 and min(seen.values()) >= 50, seen
    assert longest <= 120


def test_module_functions_match_the_methods():
    s = new_game(3)
    assert to_notation(s) == s.to_notation() and GameState.from_notation(to_notation(s)) == s


def test_leather_pending_and_shared_space():
    s = build({"position": 27}, {"position": 25}, pending=1)      # player 0 just crossed 26
    text = s.to_notation()
    assert text.split()[4] == "0L1"
    assert GameState.from_notation(text) == s
    shared = build({"position": 9}, {"position": 9}, current=1)   # player 1 arrived last, on top
    assert shared.to_notation().split()[4] == "1" and GameState.from_notation(shared.to_notation()) == shared


def test_board_digits_are_three_cells_each():
    s = build({"board": rows("##.#....#", "", "#########"), "patches": [], "position": 3}, {"position": 4})
    p0 = s.to_notation().split()[1]
    board = p0.split(",")[3]
    assert board == "641000777"                   # '##.' = 6, '#..' = 4, '..#' = 1; empty row 000
    full = build({"board": (1 << 81) - 1, "bonus": True, "position": 3}, {"position": 4})
    assert full.to_notation().split()[1].endswith("," + "7" * 27 + "+")


def documented_examples():
    """`$ suggest state ... --format notation` lines of docs/engine.md and the line after each."""
    lines = DOCS.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"\$ suggest (state .*--format notation)$", line.strip())
        if m:
            out.append((m[1].split(), lines[i + 1].strip()))
    return out


def test_documented_examples(capsys):
    examples = documented_examples()
    assert len(examples) >= 2
    for argv, want in examples:
        assert main(argv) == 0
        got = capsys.readouterr().out.strip()
        assert got == want, argv
        assert GameState.from_notation(want).to_notation() == want


def test_grammar_is_documented():
    text = DOCS.read_text()
    for word in ("EDITION", "SPACE", "BUTTONS", "PATCHES", "BOARD", "CIRCLE", "TURN", "FIRST", "octal"):
        assert word in text
    assert ID_CHARS == "0123456789abcdefghijklmnopqrstuvw"


NEW = new_game(7).to_notation()          # r 0,5,-,0 0,5,-,0 takbu...0 0 -
CIRCLE = NEW.split()[3]


def with_field(i: int, value: str) -> str:
    f = NEW.split()
    f[i] = value
    return " ".join(f)


BAD = [
    ("", "notation: must have 6 fields"),
    ("r 0,5,-,0", "notation: must have 6 fields"),
    (NEW + " extra", "notation: must have 6 fields"),
    ("x" * 5000, "notation: at most 400 characters"),
    (with_field(0, "deluxe"), 'edition: must be r (revised) or o (original), got "deluxe"'),
    (with_field(1, "0,5,-"), "player 0: must be SPACE,BUTTONS,PATCHES,BOARD"),
    (with_field(1, "54,5,-,0"), 'player 0 space: must be a number 0-53, got "54"'),
    (with_field(1, "-1,5,-,0"), "player 0 space: must be a number 0-53"),
    (with_field(2, "0,99999,-,0"), "player 1 buttons: must be a number 0-1000"),
    (with_field(2, "0,1e3,-,0"), "player 1 buttons: must be a number 0-1000"),
    (with_field(2, "0,5,-,0x"), "player 1 board: must be 1-27 octal digits"),
    (with_field(2, "0,5,-,8"), "player 1 board: must be 1-27 octal digits"),
    (with_field(2, "0,5,-," + "7" * 28), "player 1 board: must be 1-27 octal digits"),
    (with_field(1, "0,5,z,0"), 'player 0 patches: "z" is not a patch id'),
    (with_field(1, "0,5,t,0"), "player 0 board: covers 0 cells, fewer than the"),
    (with_field(1, "0,5,-,7777"), "player 0 board: covers 12 cells, 12 more than its patches"),
    (with_field(1, "0,5,-,0+"), "player 0 bonus: the board has no completed 7x7 square"),
    (with_field(3, CIRCLE[:-1]), "circle: patch 0 is neither in the circle nor on a board"),
    (with_field(3, CIRCLE[:-1] + CIRCLE[0]), f"circle: patch {ID_CHARS.index(CIRCLE[0])} is listed twice"),
    (with_field(3, "!"), 'circle: "!" is not a patch id'),
    (with_field(4, "2"), 'turn: must be 0 or 1, then L and a count'),
    (with_field(4, "0L0"), "turn: L needs a count"),
    (with_field(4, "0L1"), "turn: placed plus pending leather patches exceed the 0 taken from the track"),
    ("r 0,5,-,0 1,6,-,0 " + CIRCLE + " 1 -", "turn: must be 0, the player further back"),
    ("r 27,5,-,0 25,5,-,0 " + CIRCLE + " 0L2 -", "turn: placed plus pending leather patches exceed the 1 taken"),
    (with_field(5, "2"), 'first to end: must be 0, 1 or -, got "2"'),
    (with_field(5, "0"), "first to end: player 0 is not on space 53"),
    ("r 53,5,-,0 0,5,-,0 " + CIRCLE + " 1 -", "first to end: must be 0, who is on space 53"),
    ("r 0,5,0,6 0,5,0,6 " + CIRCLE.replace("0", "") + " 0 -", "player 1 patches: patch 0 is also in player 0 patches"),
    (with_field(0, "\ud800"), 'edition: must be r (revised) or o (original), got "\\ud800"'),
]


@pytest.mark.parametrize("text,message", BAD, ids=[m for _, m in BAD])
def test_bad_notation_names_the_field(text, message):
    with pytest.raises(NotationError) as e:
        GameState.from_notation(text)
    got = str(e.value)
    assert got.startswith(message), got
    assert len(got) < 200 and "\n" not in got and "Error" not in got
    got.encode("utf-8")
    assert isinstance(e.value, ValueError)


def test_not_a_string():
    with pytest.raises(NotationError, match="^notation: must be a string, got 5"):
        GameState.from_notation(5)


def test_state_command_formats(capsys):
    assert main(["state", "--seed", "7", "--plies", "10", "--format", "notation"]) == 0
    text = capsys.readouterr().out.strip()
    assert main(["state", "--seed", "7", "--plies", "10"]) == 0
    import json
    assert GameState.from_json(json.loads(capsys.readouterr().out)) == GameState.from_notation(text)
    # From a position in notation, as JSON, after two greedy moves.
    assert main(["state", "--notation", text, "--plies", "2", "--format", "notation"]) == 0
    later = GameState.from_notation(capsys.readouterr().out.strip())
    want = GameState.from_notation(text)
    for _ in range(2):
        want.apply_action(GreedyPlayer().choose(want))
    assert later == want
    assert main(["state", "--notation", "r 0,5,-,0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("suggest: error: position: notation: must have 6 fields") and err.count("\n") == 1
