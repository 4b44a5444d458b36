"""``suggest review`` is the review ``python -m quiltsolve.engine review`` gives, through the client
path: the same lines with ``--json`` (``--plies`` included), so the engine's command can give way to it."""

from __future__ import annotations

import json
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
