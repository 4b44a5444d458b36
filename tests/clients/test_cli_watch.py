"""``suggest move --watch``: the analysis drawn as it runs (rich, redrawn five times a second), or NDJSON with
``--json``; until its budget or Ctrl-C."""

from __future__ import annotations

import argparse
import io
import json
import statistics

import pytest

from quiltsolve import engine
from quiltsolve.clients.cli import move
from quiltsolve.clients.cli.output import Out
from quiltsolve.engine.analysis import Analysis, AnalyzedMove
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.server import positions

from .conftest import run_cli


def position(seed: int = 7, plies: int = 20) -> engine.GameState:
    s, greedy = engine.new_game(seed), GreedyPlayer()
    for _ in range(plies):
        s.apply_action(greedy.choose(s))
    return s


def ndjson(out: str) -> list[dict]:
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and [x["final"] for x in lines] == [False] * (len(lines) - 1) + [True]
    return lines


def test_json_watch_is_ndjson_ending_with_suggest_moves_answer():
    notation = positions.to_notation(position())
    r = run_cli("move", notation, "--watch", "--json", "--iterations", "4000", "--top", "2")
    assert r.code == 0, r.err
    lines = ndjson(r.out)
    final = lines[-1]
    answer = run_cli("move", notation, "--json", "--iterations", "4000", "--top", "2").json()
    assert [(m["action"], m["win_chance"], m["proven_margin"]) for m in final["moves"]] == \
        [(m["action"], m["win_chance"], m["proven_margin"]) for m in answer["moves"]]
    assert final["iterations"] == answer["iterations"] == 4000 and final["notation"] == answer["notation"]
    s = position()
    for m in final["moves"]:
        assert m["line"][0] == m["action"] and m["visits"] > 0 and isinstance(m["mean_margin"], float)
        line = s.clone()
        for text in m["line"]:          # the principal variation replays with the rules alone
            a = engine.parse_action(text)
            assert line.is_legal(a)
            line.apply_action(a)


def test_json_watch_comes_at_least_four_times_a_second():
    r = run_cli("move", positions.to_notation(position(3, 12)), "--watch", "--json", "--time-limit", "1.5")
    assert r.code == 0, r.err
    lines = ndjson(r.out)
    times = [x["elapsed"] for x in lines]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(lines) >= 5 and statistics.median(gaps) <= 0.25, times
    assert lines[-1]["searched"] and lines[-1]["iterations"] > 0


def test_human_watch_draws_the_table_and_ends_with_the_final_one():
    r = run_cli("move", positions.to_notation(position()), "--watch", "--iterations", "3000", "--top", "3")
    assert r.code == 0, r.err
    assert "final" in r.out and "visits" in r.out and "line" in r.out and "3000 iterations" in r.out


def test_watch_of_a_finished_game_says_so():
    s = engine.new_game(2)
    while not s.is_terminal():
        s.apply_action(GreedyPlayer().choose(s))
    r = run_cli("move", positions.to_notation(s), "--watch", "--iterations", "100")
    assert r.code == 1 and "game over" in r.out
    r = run_cli("move", positions.to_notation(s), "--watch", "--json", "--iterations", "100")
    assert r.code == 1 and json.loads(r.out.splitlines()[-1])["moves"] == []


def test_a_bad_budget_is_one_line_and_exit_2():
    r = run_cli("move", positions.to_notation(position()), "--watch", "--iterations", "0")
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1 and "iterations" in r.err


class _Interrupted:
    """A client whose analysis sends two updates, then the user presses Ctrl-C."""

    def __init__(self, state: engine.GameState) -> None:
        self.state = state
        self.kwargs: dict = {}
        self.closed = False

    def analyze_position(self, state, **kwargs):
        self.kwargs = kwargs
        client = self
        a = engine.ADVANCE

        class Stream:
            def __iter__(self):
                for n in (10, 20):
                    yield Analysis(state.current_player(), (AnalyzedMove(a, 0.5, "advance", n, 1.0, None, (a,)),),
                                   n, True, False, False, n / 100)
                raise KeyboardInterrupt

            def close(self):
                client.closed = True

        return Stream()


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_ends_the_watch_keeping_the_last_update_and_cancels(as_json):
    s = position()
    client = _Interrupted(s)
    buf = io.StringIO()
    args = argparse.Namespace(json=as_json, iterations=None, time_limit=None, top=None, verbose=False, svg=None)
    code = move.watch(args, client, Out(args, buf), s, positions.to_notation(s))
    assert code == 0 and client.closed
    assert client.kwargs["until_cancelled"] is True and client.kwargs["report_interval"] == move.WATCH_INTERVAL
    if as_json:
        assert [json.loads(x)["iterations"] for x in buf.getvalue().splitlines()] == [10, 20]
    else:
        assert "20 iterations" in buf.getvalue() and "running" in buf.getvalue()
