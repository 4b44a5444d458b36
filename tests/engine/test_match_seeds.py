"""Issue 17 item 10: a match's games depend only on its seed and each game's index, not on
where they run: the local loop of ``run_match`` and the per-game path of the Ray tasks
(``engine.distributed.play_batch``, called here without Ray) give the same records."""

from __future__ import annotations

import io
import json
import pickle

import pytest

from quiltsolve.engine.distributed import play_batch
from quiltsolve.engine.games import jobs, record_players, side_scores, summarize
from quiltsolve.engine.match import run_match
from quiltsolve.engine.players import RandomPlayer, make_player


def _records(a: str, b: str, games: int, seed: int) -> tuple[list[dict], dict]:
    out = io.StringIO()
    summary = run_match(a, b, games, seed=seed, records=out).to_json()
    summary.pop("seconds")
    return [json.loads(line) for line in out.getvalue().splitlines()], summary


def _batch(a: str, b: str, games: int, seed: int, only: list[int] | None = None) -> list[tuple]:
    """The games as the Ray tasks play them: players pickled once as made, a fresh copy per game."""
    blob = pickle.dumps((make_player(a, seed), make_player(b, seed + 1)))
    todo = [j for j in jobs(games, seed) if only is None or j[0] in only]
    return play_batch(blob, "revised", todo)


@pytest.mark.parametrize("a, b", [("greedy", "random"), ("random", "random"), ("mcts:8", "random")])
def test_local_games_are_the_per_game_path_games(a, b):
    records, summary = _records(a, b, 4, seed=3)
    rows = _batch(a, b, 4, seed=3)
    assert [g for g, _, _ in rows] == [0, 1, 2, 3]
    for g, _, record in rows:
        record["players"] = record_players(g, (a, b))
    assert [r for _, _, r in rows] == records
    remote = summarize((a, b), [side_scores(g, final) for g, final, _ in rows], "revised", 3, 0.0).to_json()
    remote.pop("seconds")
    assert remote == summary


def test_the_issue_example_gives_one_summary():
    """``python -m quiltsolve.engine match --a greedy --b random --games 4 --seed 3``, with and without --ray."""
    _, summary = _records("greedy", "random", 4, seed=3)
    rows = _batch("greedy", "random", 4, seed=3)
    scores = [side_scores(g, final) for g, final, _ in rows]
    assert summary["mean_score_a"] == sum(s[0] for s in scores) / 4
    assert summary["mean_score_b"] == sum(s[1] for s in scores) / 4


def test_game_k_does_not_depend_on_the_number_of_games():
    short, _ = _records("greedy", "random", 3, seed=7)
    long, _ = _records("greedy", "random", 6, seed=7)
    assert long[:3] == short
    alone = _batch("greedy", "random", 6, seed=7, only=[4])
    assert alone[0][2]["actions"] == long[4]["actions"]


def test_a_player_object_gives_the_same_games_as_its_spec():
    out = io.StringIO()
    run_match(make_player("greedy", 3), RandomPlayer(4), 4, seed=3, records=out, names=("greedy", "random"))
    records, _ = _records("greedy", "random", 4, seed=3)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == records


def test_the_random_player_restarts_per_game():
    p = RandomPlayer(5)
    p.start_game(2)
    first = [p._rng.random() for _ in range(3)]
    p.start_game(2)
    assert [p._rng.random() for _ in range(3)] == first
    p.start_game(3)
    assert [p._rng.random() for _ in range(3)] != first
