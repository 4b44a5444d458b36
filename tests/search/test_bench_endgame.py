"""``python -m bench endgame`` runs with tiny counts and refuses bad options."""

from __future__ import annotations

from bench import bench_endgame


def test_bench_endgame_runs(capsys):
    assert bench_endgame.main(["--games", "1", "--far", "2", "--players", "greedy", "--time-limit", "0.2",
                               "--game-player", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "| plies left |" in out and "| greedy |" in out


def test_bench_endgame_refuses_bad_options(capsys):
    assert bench_endgame.main(["--games", "0"]) == 2
    assert bench_endgame.main(["--time-limit", "0"]) == 2
