"""``suggest review`` and the clients' ``analyze_game``: a game of the search
player against ``random``, reviewed in-process and through a real server
(the AnalyzeGame stream), gives the same per-move results for the same seed
and iterations, and shows the random side losing far more per move."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from quiltsolve import engine
from quiltsolve.clients import AsyncPlacementClient, InvalidArgument
from quiltsolve.engine.match import play_game
from quiltsolve.engine.players import make_player
from ..aio import run_coroutine

SUGGEST = Path(sys.executable).parent / "suggest"
ITERATIONS = "100"


@pytest.fixture(scope="module")
def game() -> dict:
    """search (a fixed budget, so the game repeats) as player 0 against random."""
    final, record = play_game((make_player("search:100it", 3), make_player("random", 3)), engine.new_game(3))
    record["players"] = ["search:100it", "random"]
    assert final.winner() == 0
    return record


@pytest.fixture()
def game_file(tmp_path, game) -> Path:
    other = dict(game, players=["a", "b"], actions=game["actions"][:6])
    del other["result"]
    f = tmp_path / "games.jsonl"
    f.write_text(json.dumps(other) + "\n\n" + json.dumps(game) + "\n")      # the game is record 2
    return f


def _review(cli, *argv: str, stdin: str | None = None) -> tuple[list[dict], dict]:
    r = cli("review", *argv, "--json", stdin=stdin)
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    return lines[:-1], lines[-1]


@pytest.fixture(scope="module")
def embedded_review(game, tmp_path_factory):
    from .conftest import run_cli

    f = tmp_path_factory.mktemp("review") / "game.jsonl"
    f.write_text(json.dumps(game) + "\n")
    return _review(run_cli, str(f), "--iterations", ITERATIONS, "--seed", "4")


def test_random_loses_far_more_per_move(game, embedded_review):
    moves, summary = embedded_review
    assert [m["ply"] for m in moves] == list(range(len(game["actions"])))
    assert [m["played"] for m in moves] == game["actions"]
    for m in moves:
        assert m["loss"] == pytest.approx(max(0.0, m["value_best"] - m["value_played"]), abs=1e-4)
        assert m["large"] == (m["loss"] >= 0.1)
        assert (m["loss"] == 0) or m["best"] != m["played"]
    search, rand = summary["summary"]
    assert (search["name"], rand["name"]) == ("search:100it", "random")
    assert search["moves"] + rand["moves"] == len(game["actions"])
    assert rand["mean_loss"] > 3 * search["mean_loss"] and rand["mean_loss"] > 0.02
    assert rand["large_mistakes"] >= 2 and rand["large_mistakes"] > search["large_mistakes"]
    assert summary["iterations"] == int(ITERATIONS) and summary["seed"] == 4


def test_the_service_gives_the_same_review(cli, port, game, embedded_review, tmp_path):
    f = tmp_path / "game.jsonl"
    f.write_text(json.dumps(game) + "\n")
    moves, summary = _review(cli, str(f), "--iterations", ITERATIONS, "--seed", "4",
                             "--server", f"127.0.0.1:{port}", "--deadline", "60")
    assert (moves, summary) == embedded_review


def test_human_output_marks_mistakes_and_sums_up(cli, game, game_file):
    r = cli("review", str(game_file), "--line", "2", "--iterations", "60")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("review of ") and "line 2" in lines[0] and "60 iterations per position" in lines[0]
    assert "player 1 = search:100it, player 2 = random" in lines[0]
    assert len(lines) == 1 + len(game["actions"]) + 2
    assert any("?? blunder, large mistake" in line or "? mistake, large mistake" in line for line in lines)
    assert lines[-2].startswith("player 1 (search:100it): ") and "mean loss" in lines[-2]
    assert lines[-1].startswith("player 2 (random): ") and "large mistake" in lines[-1] and "accuracy " in lines[-1]


def test_line_selects_the_record_and_stdin_works(cli, game_file):
    moves, summary = _review(cli, str(game_file), "--iterations", "30")
    assert len(moves) == 6 and [s["name"] for s in summary["summary"]] == ["a", "b"]
    moves2, _ = _review(cli, "-", "--iterations", "30", stdin=game_file.read_text())
    assert moves2 == moves


@pytest.mark.skipif(not SUGGEST.exists(), reason="the suggest console script is not installed")
def test_each_move_is_printed_as_soon_as_it_is_reviewed(game, game_file):
    p = subprocess.Popen([str(SUGGEST), "review", str(game_file), "--line", "2", "--iterations", "200", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(p.stdout.readline())
        assert first["ply"] == 0
        assert p.poll() is None            # still reviewing the other moves
        rest = p.stdout.read().splitlines()
        assert p.wait(timeout=300) == 0
        assert len(rest) == len(game["actions"]) - 1 + 1 and "summary" in json.loads(rest[-1])
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("make, needle", [
    (lambda g, d: _write(d / "x.jsonl", json.dumps(g) + "\n"), None),
    (lambda g, d: _write(d / "x.jsonl", "{not json\n"), "line 1: not JSON"),
    (lambda g, d: _write(d / "x.jsonl", json.dumps(dict(g, actions=["advance", "buy 99 0,0"])) + "\n"),
     "record.actions[1]: patch 99"),
    (lambda g, d: _write(d / "x.jsonl", json.dumps(dict(g, actions=[])) + "\n"), "record.actions: no moves to review"),
    (lambda g, d: _write(d / "x.jsonl", json.dumps(engine.new_game(1).to_json()) + "\n"),
     "this is a game state"),
    (lambda g, d: _write(d / "x.jsonl", "\n\n"), "holds no record"),
    (lambda g, d: str(d), "directory"),
    (lambda g, d: "/dev/zero", "longer than 1 MiB"),
    (lambda g, d: str(d / "missing.jsonl"), "No such file"),
])
def test_bad_records_are_one_line(cli, game, tmp_path, make, needle):
    path = make(game, tmp_path)
    if needle is None:          # a good file, bad options
        for extra, why in ((["--line", "2"], "--line 2: "), (["--large-loss", "2"], "large_loss: 2; must be in (0, 1]"),
                           (["--large-loss", "0"], "large_loss: 0 cannot be sent"),
                           (["--iterations", "0"], "iterations: 0 cannot be sent"),
                           (["--iterations", "-3"], "iterations: -3; must be 0"),
                           (["--seed", "-1"], "seed: must be >= 0"),
                           (["--time-limit", "61"], "time_per_move: 61 s is more than the maximum")):
            r = cli("review", path, *extra)
            assert r.code == 2 and why in r.err and "Traceback" not in r.err, r.err
        return
    r = cli("review", path, "--iterations", "10")
    assert r.code == 2 and r.out == "", (r.code, r.out)
    assert len(r.err.strip().splitlines()) == 1 and needle in r.err, r.err


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


# ------------------------------------------------------------ the clients
def test_all_three_clients_review_alike(game, remote, embedded, port):
    short = dict(game, actions=game["actions"][:8])
    del short["result"]
    a = list(embedded.analyze_game(short, iterations=60, seed=2))
    b = list(remote.analyze_game(json.dumps(short), iterations=60, seed=2))

    async def aio():
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=60) as c:
            return [r async for r in c.analyze_game(short, iterations=60, seed=2)]

    c = run_coroutine(aio())
    assert a == b == c and len(a) == 8
    from quiltsolve.engine.review import MoveReview

    assert all(isinstance(r, MoveReview) for r in a)
    assert [r.played.to_str() for r in a] == short["actions"]


def test_a_bad_record_is_refused_before_anything_runs(remote, embedded, port):
    bad = {"circle": [1, 2], "actions": ["advance"]}
    for client in (embedded, remote):
        with pytest.raises(InvalidArgument, match="record.circle: ") as e:
            client.analyze_game(bad)           # at the call, not at the first move
        assert e.value.field == "record.circle"
        with pytest.raises(InvalidArgument, match="iterations") as e:
            client.analyze_game(dict(circle=engine.new_game(1).circle, actions=["advance"]), iterations=0)
        assert e.value.field == "iterations"
        with pytest.raises(InvalidArgument, match="large_loss") as e:
            client.analyze_game(dict(circle=engine.new_game(1).circle, actions=["advance"]), large_loss=3)
        assert e.value.field == "large_loss"

    async def aio():
        async with AsyncPlacementClient(f"127.0.0.1:{port}") as c:
            with pytest.raises(InvalidArgument, match="large_loss: 0 cannot be sent"):
                c.analyze_game(dict(circle=engine.new_game(1).circle, actions=["advance"]), large_loss=0)
            # What only the service refuses comes at the first step, before any move is reviewed.
            reviews = c.analyze_game(dict(circle=engine.new_game(1).circle, actions=["advance"]), large_loss=3)
            with pytest.raises(InvalidArgument, match="large_loss") as e:
                await reviews.__anext__()
            assert e.value.field == "large_loss"

    run_coroutine(aio())


def test_stopping_early_cancels_the_stream(remote, game):
    it = remote.analyze_game(game, iterations=30)
    first = next(it)
    assert first.ply == 0
    it.close()                          # the call is cancelled; the client still works
    assert len(list(remote.analyze_game(dict(game, actions=game["actions"][:2]), iterations=20))) == 2


def test_default_budgets_match_the_service():
    from quiltsolve.clients.inputs import DEFAULT_LARGE_LOSS, DEFAULT_TIME_PER_MOVE
    from quiltsolve.server import service

    assert DEFAULT_TIME_PER_MOVE == service.DEFAULT_REVIEW_LIMIT
    assert DEFAULT_LARGE_LOSS == service.DEFAULT_LARGE_LOSS


def test_a_record_too_long_is_the_services_refusal(embedded, remote):
    from quiltsolve.solver.limits import MAX_RECORD_ACTIONS

    long = dict(circle=engine.new_game(1).circle, actions=["advance"] * (MAX_RECORD_ACTIONS + 1))
    for client in (embedded, remote):
        with pytest.raises(InvalidArgument, match=f"{MAX_RECORD_ACTIONS + 1} moves; at most") as e:
            client.analyze_game(long, iterations=10)
        assert e.value.field == "record.actions"


def test_labels_and_accuracy_in_the_json(game, embedded_review):
    from quiltsolve.engine.review import label_of, player_accuracy

    moves, summary = embedded_review
    assert [m["label"] for m in moves] == [label_of(m["loss"]) for m in moves]
    for i, entry in enumerate(summary["summary"]):
        mine = [m for m in moves if m["player"] == i]
        assert entry["accuracy"] == player_accuracy(m["loss"] for m in mine)
        assert 0 <= entry["accuracy"] <= 100
        for key, label in (("inaccuracies", "inaccuracy"), ("mistakes", "mistake"), ("blunders", "blunder")):
            assert entry[key] == sum(m["label"] == label for m in mine)
    search, rand = summary["summary"]
    assert rand["accuracy"] < search["accuracy"]


def test_web_link_save_and_svg(cli, game, tmp_path):
    from quiltsolve.clients.links import read_review_link
    from quiltsolve.engine import replay

    f = tmp_path / "game.jsonl"
    short = dict(game, actions=game["actions"][:8])
    del short["result"]
    f.write_text(json.dumps(short) + "\n")
    saved, pic = tmp_path / "saved.jsonl", tmp_path / "review.svg"
    r = cli("review", str(f), "--iterations", "30", "--seed", "5", "--web", "http://example.org:9000/",
            "--save", str(saved), "--svg", str(pic))
    assert r.code == 0, r.err
    web = [line for line in r.out.splitlines() if line.startswith("web: ")]
    assert len(web) == 1 and web[0].startswith("web: http://example.org:9000/#review?rec=")
    link = read_review_link(web[0].removeprefix("web: "))
    assert link.record == short and (link.ply, link.iterations, link.seed) == (0, 30, 5)
    record = json.loads(saved.read_text())
    assert [e["ply"] for e in record["evaluations"]] == list(range(8))
    assert {k: v for k, v in record.items() if k != "evaluations"} == short
    replay(record, check_result=False)           # the extension replays
    text = pic.read_text()
    assert text.startswith("<svg") and "accuracy" in text and "</svg>" in text
    # --json carries the link in the summary; the default web address
    moves, summary = _review(cli, str(f), "--iterations", "30", "--seed", "5", "--web")
    assert summary["link"].startswith("http://127.0.0.1:8080/#review?rec=")
    assert read_review_link(summary["link"]).record == short


def web_sample_game() -> dict:
    """The game of the web app's "Load a sample game" (web/static/js/review.js): deal 11, greedy first,
    random second, the engine move of ply i seeded i."""
    state = engine.new_game(11, "revised")
    start, actions = state.clone(), []
    while not state.is_terminal():
        action = make_player("greedy" if state.current_player() == 0 else "random", len(actions)).choose(state)
        state.apply_action(action)
        actions.append(action.to_str())
    return dict(engine.make_record(start, actions, state), players=["greedy", "random"])


def test_the_sample_game_shows_one_value_per_move_and_none_above_the_best(cli, tmp_path):
    # Issue 36, 5: the old review showed a move played above the move named best (11 of 42 moves here).
    f = tmp_path / "sample.jsonl"
    f.write_text(json.dumps(web_sample_game()) + "\n")
    moves, _ = _review(cli, str(f), "--iterations", ITERATIONS)
    assert moves and all(m["value_played"] <= m["value_best"] for m in moves)
    r = cli("review", str(f), "--iterations", ITERATIONS)
    assert r.code == 0, r.err
    lines = r.out.splitlines()[1:-2]
    assert len(lines) == len(moves)
    for line, m in zip(lines, moves):
        # one figure per move: the move played's value, then the best's unless it is the same move
        values = [float(v) for v in re.findall(r"\((\d\.\d{3})", line)]
        shown = [m["value_played"]] if m["best"] == m["played"] else [m["value_played"], m["value_best"]]
        assert values == [round(v, 3) for v in shown]
        assert values == sorted(values), line
        assert line.split()[1] == ("P1", "P2")[m["player"]]
