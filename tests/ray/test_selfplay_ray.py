"""bench selfplay on Ray (a local 2-CPU cluster): the same game records as in local processes (an iteration
budget is reproducible), written to the same files."""

from __future__ import annotations

import os

import pytest

from bench import bench_selfplay

pytestmark = pytest.mark.usefixtures("ray_cluster")


def _games(out: str) -> list[dict]:
    recs = bench_selfplay.read_records([os.path.join(out, n) for n in sorted(os.listdir(out))])
    return [{k: v for k, v in r.items() if k not in ("wall", "cpu")} for r in recs]


def test_ray_selfplay_gives_the_local_records(tmp_path, gcs_address):
    spec = ["--games", "7it:5001-5003", "--games", "4it:2000001-2000002"]
    local, remote = str(tmp_path / "local"), str(tmp_path / "ray")
    assert bench_selfplay.main([*spec, "--out", local, "--workers", "2"]) == 0
    assert bench_selfplay.main([*spec, "--out", remote, "--ray", gcs_address]) == 0
    assert sorted(os.listdir(local)) == sorted(os.listdir(remote))
    assert _games(remote) == _games(local) and len(_games(local)) == 5


def test_ray_selfplay_stops_starting_games_at_its_deadline(tmp_path, gcs_address, capsys):
    out = str(tmp_path)
    assert bench_selfplay.main(["--games", "5it:5001-5040", "--out", out, "--ray", gcs_address,
                                "--deadline", "0.001"]) == 0
    text = capsys.readouterr().out
    played = len(_games(out)) if os.listdir(out) else 0
    assert played < 40 and f"{40 - played} not started (deadline)" in text
