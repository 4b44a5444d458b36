"""Match games as Ray tasks (engine.distributed) on a local 2-CPU cluster:
the same summary, records and progress as the local run for iteration budgets."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from quiltsolve.engine.__main__ import main as engine_main
from quiltsolve.engine.distributed import play_games_ray, run_match_ray
from quiltsolve.engine.match import PlayerError, play_game, run_match
from quiltsolve.engine.players import make_player
from quiltsolve.engine.state import new_game

pytestmark = pytest.mark.usefixtures("ray_cluster")


def without_seconds(summary) -> dict:
    d = summary.to_json()
    d.pop("seconds")
    return d


@pytest.mark.parametrize("a, b, games", [("search:15it", "greedy", 4), ("mcts:12", "search:8it", 2)])
def test_ray_match_is_the_local_match(a, b, games):
    local_records, ray_records = io.StringIO(), io.StringIO()
    local = run_match(a, b, games, seed=5, records=local_records)
    calls: list[int] = []
    remote = run_match(a, b, games, seed=5, records=ray_records, progress=calls.append, ray="auto")
    assert without_seconds(remote) == without_seconds(local)
    assert remote.games == games and remote.wins_a + remote.wins_b == games
    assert ray_records.getvalue() == local_records.getvalue()
    assert len(ray_records.getvalue().splitlines()) == games
    assert calls == list(range(1, games + 1))       # one call per game, as locally


def test_batches_of_games_give_the_same_match():
    pa, pb = make_player("search:10it", 3), make_player("greedy", 4)
    local = run_match(pa, pb, 5, seed=3, names=("s", "g"))
    remote = run_match_ray(make_player("search:10it", 3), make_player("greedy", 4), 5, seed=3, names=("s", "g"),
                           batch=2)
    assert without_seconds(remote) == without_seconds(local)


def test_play_games_ray_keeps_seats_and_deal_order():
    players = (make_player("search:10it", 1), make_player("greedy", 2))
    deals = [11, 12, 13]
    finals = play_games_ray(players, deals)
    assert finals == [play_game((make_player("search:10it", 1), make_player("greedy", 2)), new_game(d))[0]
                      for d in deals]


def test_engine_cli_with_ray_prints_the_local_summary_and_records(tmp_path, capsys):
    args = ["match", "--a", "search:10it", "--b", "greedy", "--games", "4", "--seed", "2", "--json"]
    assert engine_main(args + ["--records", str(tmp_path / "local.jsonl")]) == 0
    local = json.loads(capsys.readouterr().out)
    assert engine_main(args + ["--records", str(tmp_path / "ray.jsonl"), "--ray", "auto"]) == 0
    remote = json.loads(capsys.readouterr().out)
    local.pop("seconds"), remote.pop("seconds")
    assert remote == local and remote["games"] == 4
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()


def test_a_second_driver_joins_the_cluster_by_address(gcs_address):
    """``--ray HOST:PORT`` from another process; random games are reproducible from Ray run to Ray run."""
    here = run_match("greedy", "random", 4, seed=1, ray="auto")
    out = subprocess.run([sys.executable, "-m", "quiltsolve.engine", "match", "--a", "greedy", "--b", "random", "--games", "4",
                          "--seed", "1", "--json", "--ray", gcs_address],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    there = json.loads(out.stdout)
    there.pop("seconds")
    assert there == without_seconds(here)


def test_an_illegal_move_on_a_worker_is_a_player_error():
    from quiltsolve.engine.actions import LEATHER_ACTIONS

    class Cheat:   # defined here, so Ray sends the class itself to the workers
        name = "cheat"

        def choose(self, state):
            return LEATHER_ACTIONS[0]   # no leather patch is pending at the start

    with pytest.raises(PlayerError) as local:
        run_match(Cheat(), "greedy", 1, seed=1)
    with pytest.raises(PlayerError) as remote:
        run_match(Cheat(), "greedy", 1, seed=1, ray="auto")
    assert str(remote.value) == str(local.value) and "cheat" in str(remote.value)
