"""``suggest review`` and ``suggest state`` give what ``python -m quiltsolve.engine review`` and ``state`` give,
through the client path and the codecs, so the engine's two commands can give way to them."""

from __future__ import annotations

import json

import pytest
from pathlib import Path

from quiltsolve.engine.__main__ import main as engine_main
from quiltsolve.server import records

GOLDEN = Path(__file__).parents[1] / "data" / "golden-games.jsonl"


def test_suggest_review_gives_the_engines_review(cli, capsys):
    argv = ["review", str(GOLDEN), "--line", "3", "--iterations", "30", "--plies", "3", "--json", "--seed", "4"]
    assert engine_main(argv) == 0
    engine_lines = capsys.readouterr().out.splitlines()
    r = cli(*argv)
    assert r.code == 0 and r.err == ""
    assert r.out.splitlines() == engine_lines and len(engine_lines) == 4


def test_plies_reviews_a_shorter_game_and_saves_it(cli, tmp_path):
    saved = tmp_path / "reviewed.jsonl"
    r = cli("review", str(GOLDEN), "--iterations", "10", "--plies", "2", "--save", str(saved))
    assert r.code == 0 and " line 1: 2 moves, " in r.out.splitlines()[0]
    record = json.loads(saved.read_text())
    assert len(record["actions"]) == len(record["evaluations"]) == 2 and "result" not in record
    golden = json.loads(GOLDEN.read_text().splitlines()[0])
    assert record["actions"] == golden["actions"][:2] and record["circle"] == golden["circle"]
    assert list(records.from_json(record).actions) == golden["actions"][:2]     # a record the codec reads


GOLDEN_LINE_2 = json.loads(GOLDEN.read_text().splitlines()[1])


@pytest.mark.parametrize("argv", [
    ["--seed", "7"],
    ["--seed", "7", "--plies", "20", "--format", "notation"],
    ["--seed", "3", "--edition", "original", "--plies", "300"],
    ["--record", str(GOLDEN), "--line", "2", "--plies", "5", "--format", "notation"],
    ["--record", str(GOLDEN), "--line", "2", "--plies", str(len(GOLDEN_LINE_2["actions"]))],
])
def test_suggest_state_gives_the_engines_state(cli, capsys, argv):
    assert engine_main(["state", *argv]) == 0
    r = cli("state", *argv)
    assert (r.code, r.out, r.err) == (0, capsys.readouterr().out, "")


def test_suggest_state_from_a_position_and_in_json(cli, capsys):
    notation = cli("state", "--seed", "7", "--plies", "4", "--format", "notation").out.strip()
    assert engine_main(["state", "--notation", notation, "--plies", "6"]) == 0
    r = cli("state", "--position", notation, "--plies", "6")
    assert r.code == 0 and r.out == capsys.readouterr().out
    both = cli("state", "--position", notation, "--json").json()
    assert both["notation"] == notation and both["state"]["current_player"] in (0, 1)


@pytest.mark.parametrize("record, argv, needle", [
    (dict(GOLDEN_LINE_2, colour="red"), [], "record.colour: unknown field of a game record"),
    (dict(GOLDEN_LINE_2, actions=["advance", "jump"]), ["--plies", "2"], "record.actions[1]: "),
    (dict(GOLDEN_LINE_2, actions=["advance", "advance", "jump"]), ["--plies", "1"], "record.actions[2]: "),
    (GOLDEN_LINE_2, ["--plies", "5000"], f"--plies 5000: the record has {len(GOLDEN_LINE_2['actions'])} actions"),
])
def test_suggest_state_refuses_a_bad_record_in_one_line(cli, tmp_path, record, argv, needle):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(record) + "\n")
    r = cli("state", "--record", str(path), *argv)
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1 and needle in r.err, r.err
