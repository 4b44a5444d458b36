"""``python -m bench levels``: the Elo fit on synthetic tables of known ordering, its seeded bootstrap, the pairings,
the targets, and a one-pairing run end to end."""

from __future__ import annotations

import json
import math
import random

import pytest

from bench import bench_levels as bl


def synthetic(ratings: list[float], games_per_pair: int, seed: int) -> list[tuple[int, int, float]]:
    """Games drawn from the Elo model itself: ``(i, j, score of i)`` for every pair, from a seeded generator."""
    rng = random.Random(seed)
    out = []
    for i in range(len(ratings)):
        for j in range(i + 1, len(ratings)):
            p = 1.0 / (1.0 + 10 ** ((ratings[j] - ratings[i]) / 400.0))
            out += [(i, j, 1.0 if rng.random() < p else 0.0) for _ in range(games_per_pair)]
    return out


def test_the_fit_recovers_a_known_ladder():
    truth = [0.0, 150.0, 300.0, 500.0, 800.0]
    names = ["a", "b", "c", "d", "e"]
    fitted = bl.fit_elo(names, synthetic(truth, 400, seed=3), anchor="a", anchor_elo=0.0)
    assert fitted["a"] == 0.0
    assert [fitted[n] for n in names] == sorted(fitted.values())        # the known ordering
    for n, want in zip(names, truth):
        assert abs(fitted[n] - want) < 60, (n, fitted[n], want)


def test_the_fit_is_the_closed_form_for_two_players_and_moves_with_the_anchor():
    games = [(0, 1, 1.0)] * 9 + [(0, 1, 0.0)]                 # 9 wins in 10: 400·log10(9) apart
    r = bl.fit_elo(["x", "y"], games, anchor="y", anchor_elo=1000.0, prior=0.0)
    assert r["y"] == 1000.0 and r["x"] - 1000.0 == pytest.approx(400 * math.log10(9), abs=0.5)
    s = bl.fit_elo(["x", "y"], games, anchor="x", anchor_elo=0.0, prior=0.0)
    assert s["x"] - s["y"] == pytest.approx(r["x"] - r["y"], abs=0.5)


def test_a_player_who_wins_every_game_gets_a_finite_rating_above_the_rest():
    games = [(0, 1, 1.0)] * 6 + [(0, 2, 1.0)] * 6 + [(1, 2, 1.0)] * 4 + [(1, 2, 0.0)] * 2
    r = bl.fit_elo(["top", "mid", "low"], games, anchor="mid", anchor_elo=1000.0)
    assert all(math.isfinite(v) for v in r.values())
    assert r["top"] > r["mid"] > r["low"]
    # the prior (one virtual draw a pairing) pulls an unbeaten player in: more of it, a lower rating
    assert bl.fit_elo(["top", "mid", "low"], games, anchor="mid", prior=4.0)["top"] < r["top"]


def test_the_bootstrap_is_seeded_and_its_intervals_hold_the_fit():
    truth = [0.0, 200.0, 400.0]
    names = ["p", "q", "r"]
    games = synthetic(truth, 40, seed=5)
    pairs: dict[tuple[int, int], list[list[float]]] = {}
    for k, (i, j, s) in enumerate(games):
        deals = pairs.setdefault((i, j), [])
        if k % 2 == 0:
            deals.append([])
        deals[-1].append(s)
    a = bl.bootstrap_intervals(names, pairs, rounds=60, seed=9, anchor="p", anchor_elo=0.0)
    assert a == bl.bootstrap_intervals(names, pairs, rounds=60, seed=9, anchor="p", anchor_elo=0.0)
    fitted = bl.fit_elo(names, games, anchor="p", anchor_elo=0.0)
    for n in names[1:]:
        lo, hi = a[n]
        assert lo < fitted[n] < hi and hi - lo > 20
    assert a["p"] == (0.0, 0.0)


def test_level_8_plays_only_its_chosen_opponents():
    players = ["random", "greedy", "level:1", "level:7", "level:8"]
    pairs = bl.pairings(players, ["level:1", "level:7"])
    assert ("level:7", "level:8") in pairs and ("level:1", "level:8") in pairs
    assert not any("level:8" in p and ("random" in p or "greedy" in p) for p in pairs)
    assert len(pairs) == 10 - 2
    assert len(bl.pairings(players, players)) == 10


def test_the_targets_read_the_table():
    def row(elo: float, think: float = 0.1) -> dict:
        return {"elo": elo, "low": elo - 50, "high": elo + 50, "games": 10, "score": 0.5, "think_mean": think,
                "think_p95": think, "cpu_mean": think, "cpu_p95": think, "moves": 20}

    good = {f"level:{n}": row(800 + 200 * n) for n in range(1, 9)}
    head = {"level:1": {"greedy": {"score": 4, "games": 10}}, "level:8": {"level:1": {"score": 10, "games": 10}}}
    met = bl.targets({"players": {**good, "greedy": row(1000)}, "head_to_head": head})
    assert [m for _, m, _ in met] == [True] * 5
    bad = {**good, "level:4": row(1300, think=0.7)}                  # out of order, slow
    head["level:1"]["greedy"]["score"] = 6
    missed = {what: m for what, m, _ in bl.targets({"players": bad, "head_to_head": head})}
    assert missed["ratings increase with the level"] is False
    assert missed["level 1 scores below 50% against greedy"] is False
    assert not missed["each level thinks at most 0.5 s a move (mean and p95)"]
    assert bl.targets({"players": good, "head_to_head": {}})[3][1] is None    # level 8 v level 1 not played


def test_one_pairing_end_to_end(tmp_path, capsys):
    out = tmp_path / "ladder.json"
    rc = bl.main(["--players", "greedy,level:1", "--games", "1", "--workers", "1", "--bootstrap", "20",
                  "--seed", "3", "--json", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    deals = [d for _, d, swap in bl.jobs(2, 3) if not swap]
    assert f"seed 3" in text and str(deals[0]) in text and "targets:" in text
    doc = json.loads(out.read_text())
    assert doc["deals"] == deals and len(doc["games_played"]) == 2
    assert {g["b_first"] for g in doc["games_played"]} == {False, True}
    assert doc["players"]["greedy"]["elo"] == 1000.0 and doc["players"]["level:1"]["moves"] > 0


@pytest.mark.parametrize("args", [["--players", "greedy,level:9"], ["--players", "level:1,level:2"],
                                  ["--games", "0"], ["--players", "greedy,greedy"]])
def test_bad_options_exit_2_with_one_line(args, capsys):
    assert bl.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bench_levels: ")
