"""The exact solve of a position on Ray (a local 2-CPU cluster started by the test): the root's moves and
their replies as tasks on two solver actors give the local value, the interval narrowing all the way; a time
limit ends it with an interval that holds the value; ``suggest solve --ray`` prints what the local run does."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from quiltsolve.clients.cli import main as suggest_main
from quiltsolve.engine import GameState
from quiltsolve.engine.ray_solve import solve_position_ray
from quiltsolve.engine.solve import solve_exact

pytestmark = pytest.mark.usefixtures("ray_cluster")

POSITIONS = [   # seeded search:200it self-play (bench endgame's games): 8, 10 and 12 plies before the end
    "r 47,37,tirvpmf2w3g,777577557557777077077005005 46,12,l97aq0u6k8n,777777777743741740770774770 j4he1odbsc5 1 -",
    "r 45,22,tirvpmf2w3g,777577557557777077077005005 44,10,l97aq0u6k8n,777777777743741740770774770 j4he1odbsc5 1 -",
    "r 44,22,ch7iumr1fkd,507727777771777777764700700 43,15,2lnvagw3ts5,770375777776777577477416010 pe6oq0j894b 1 -",
]


ENGLISH = {**{k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")},
           "LANG": "C"}


def replays_to(state: GameState, line, value: int) -> bool:
    s = state.clone()
    for a in line:
        if s.is_terminal() or not s.is_legal(a):
            return False
        s.apply_action(a)
    a, b = s.scores()
    return s.is_terminal() and (a - b if state.current_player() == 0 else b - a) == value


@pytest.mark.parametrize("notation", POSITIONS, ids=["8 plies", "10 plies", "12 plies"])
def test_the_ray_solve_gives_the_local_value(notation):
    state = GameState.from_notation(notation)
    local = solve_exact(state, time_limit=120)
    updates = list(solve_position_ray(state, address="auto", workers=2, time_limit=120, report_interval=0.05))
    last = updates[-1]
    assert local.exact and last.final and last.exact and last.reason == "solved"
    assert last.value == local.value and last.workers == 2
    assert all(u.lower <= last.value <= u.upper for u in updates)
    for a, b in zip(updates, updates[1:]):
        assert a.lower <= b.lower and b.upper <= a.upper
    assert replays_to(state, last.line, last.value)


def test_one_actor_gives_the_value_too():
    state = GameState.from_notation(POSITIONS[1])
    last = list(solve_position_ray(state, address="auto", workers=1, time_limit=120, report_interval=None))[-1]
    assert last.exact and last.value == solve_exact(state).value and last.workers == 1


def test_a_time_limit_on_ray_ends_with_an_interval_holding_the_value():
    state = GameState.from_notation(POSITIONS[1])
    value = solve_exact(state, time_limit=120).value
    last = list(solve_position_ray(state, address="auto", workers=2, time_limit=0.05, report_interval=None))[-1]
    assert last.final and last.reason in ("time", "solved") and last.lower <= value <= last.upper


def test_suggest_solve_with_ray_prints_the_local_value(gcs_address):
    args = ["solve", POSITIONS[0], "--json", "--report-interval", "0.1"]
    local_out, ray_out = io.StringIO(), io.StringIO()
    assert suggest_main(args, stdout=local_out) == 0
    assert suggest_main(args + ["--ray", "auto", "--workers", "2"], stdout=ray_out) == 0
    local, remote = (json.loads(out.getvalue().splitlines()[-1]) for out in (local_out, ray_out))
    assert (remote["value"], remote["exact"], remote["workers"]) == (local["value"], True, 2)
    out = subprocess.run([sys.executable, "-m", "quiltsolve.clients.cli", "solve", POSITIONS[0], "--ray", gcs_address],
                         capture_output=True, text=True, timeout=180, env=ENGLISH)
    assert out.returncode == 0, out.stderr
    assert f"exact value: +{local['value']}: player 2 wins by {local['value']} points" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "quiltsolve.clients.cli", "solve", POSITIONS[0], "--ray", "auto",
                          "--server", "127.0.0.1:1"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--ray and --server cannot be combined" in bad.stderr
