"""``python -m quiltsolve.engine state``: a state JSON to feed ``suggest move``."""

from __future__ import annotations

import json

from quiltsolve.engine import GameState, new_game, parse_action
from quiltsolve.engine.__main__ import main


def test_state_of_a_new_game(capsys):
    assert main(["state", "--seed", "7"]) == 0
    got = GameState.from_json(json.loads(capsys.readouterr().out))
    assert got.to_json() == new_game(7).to_json()


def test_state_after_greedy_plies_is_mid_game(capsys):
    assert main(["state", "--seed", "7", "--plies", "20"]) == 0
    got = GameState.from_json(json.loads(capsys.readouterr().out))
    assert not got.is_terminal() and any(p.board for p in got.players)


def test_state_from_a_record_prefix(capsys, data_dir):
    path = data_dir / "golden-games.jsonl"
    record = json.loads(path.read_text().splitlines()[2])
    assert main(["state", "--record", str(path), "--line", "3", "--plies", "10"]) == 0
    got = GameState.from_json(json.loads(capsys.readouterr().out))
    want = GameState.from_circle(record["circle"], record["edition"])
    for text in record["actions"][:10]:
        want.apply_action(parse_action(text))
    assert got.to_json() == want.to_json()


def test_state_bad_input_is_one_line_exit_2(capsys, data_dir, tmp_path):
    path = data_dir / "golden-games.jsonl"
    for argv in (["state", "--record", str(tmp_path / "missing.jsonl")],
                 ["state", "--record", str(path), "--line", "999"],
                 ["state", "--record", str(path), "--plies", "999"],
                 ["state", "--plies", "-1"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_state_and_review_run_suggests_commands(capsys):
    """The engine's state and review gave way to suggest's (issue 35): the old names run them, found by the
    ``quiltsolve.programs`` entry point, and ``--notation`` is suggest's ``--position``."""
    from quiltsolve.clients.cli import main as suggest

    assert suggest(["state", "--seed", "4", "--plies", "6", "--format", "notation"]) == 0
    text = capsys.readouterr().out.strip()
    for argv in (["state", "--notation", text, "--plies", "2"], ["state", f"--notation={text}", "--plies", "2"]):
        assert main(argv) == 0
        old = capsys.readouterr()
        assert suggest(["state", "--position", text, "--plies", "2"]) == 0
        assert old.out == capsys.readouterr().out and old.err == ""    # no note when stderr is not a terminal
    assert main(["--help"]) == 0
    assert "now `suggest state` and `suggest review`" in " ".join(capsys.readouterr().out.split())
