"""``suggest move`` never degrades silently: a cold process searches its whole
budget, every answer says how much it searched (CLI table, --json, the
clients' MoveSuggestions), and positions come as JSON or notation, in a file,
on stdin or inline."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from quiltsolve import engine
import quiltsolve.engine.players.search
from quiltsolve.clients import EmbeddedClient, MoveSuggestions
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.server.jobs import MovesJob

SUGGEST = Path(sys.executable).parent / "suggest"


def midgame(seed: int = 1, plies: int = 30):
    """A mid-game position with several moves to rank (4 for the default)."""
    s = engine.new_game(seed)
    g = GreedyPlayer()
    for _ in range(plies):
        s.apply_action(g.choose(s))
    return s


def one_line_error(r, code: int = 2) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]




# ------------------------------------------------------------------ cold
@pytest.mark.skipif(not SUGGEST.exists(), reason="the suggest console script is not installed")
def test_a_cold_suggest_move_ranks_by_a_real_search(tmp_path):
    state = midgame()
    assert len(state.buyable_patches()) >= 2
    f = tmp_path / "state.json"
    f.write_text(json.dumps(state.to_json()))
    # A fresh process: nothing imported, no cache warm; the default budget (1 s).
    r = subprocess.run([str(SUGGEST), "move", str(f), "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["searched"] is True
    assert d["iterations"] > 50, d["iterations"]       # hundreds to thousands; 0 when it degrades
    assert 0.5 < d["wall_time"] < 3.0
    assert len(d["moves"]) > 1
    values = [m["value"] for m in d["moves"]]
    assert len(set(values)) > 1 and values == sorted(values, reverse=True)
    assert all("not searched" not in m["reason"] for m in d["moves"])
    assert d["notation"] == state.to_notation()


def test_human_output_says_how_much_it_searched(cli, tmp_path):
    f = tmp_path / "state.json"
    f.write_text(json.dumps(midgame().to_json()))
    r = cli("move", str(f), "--iterations", "150")
    assert r.code == 0, r.err
    assert r.out.count("search: 150 iterations in ") == 1       # once (it was also the table's caption)
    assert f"position: {midgame().to_notation()}" in r.out
    # players are numbered 1 and 2 in text
    assert f"player {midgame().current_player() + 1} to move: " in r.out


def test_human_output_shows_one_win_chance_per_move(cli, tmp_path, monkeypatch):
    # Issue 36, 5: each move's value is the calibrated win chance; the share of playouts it won (a second,
    # raw figure) only with --verbose.
    monkeypatch.setenv("COLUMNS", "300")       # a wide console: no table cell wraps
    f = tmp_path / "state.json"
    f.write_text(json.dumps(midgame().to_json()))
    moves = cli("move", str(f), "--iterations", "150", "--json").json()["moves"]
    assert all(re.search(r": won \d+% of \d+ playouts", m["reason"]) for m in moves)     # JSON keeps it
    plain = cli("move", str(f), "--iterations", "150")
    assert plain.code == 0, plain.err
    assert "% of" not in plain.out and "won " not in plain.out
    assert plain.out.count(" playouts, mean margin ") == len(moves)
    verbose = cli("move", str(f), "--iterations", "150", "--verbose")
    assert verbose.code == 0, verbose.err
    assert len(re.findall(r": won \d+% of \d+ playouts", verbose.out)) == len(moves)


# ------------------------------------------------------- the clients' answer
def test_embedded_answer_is_a_list_with_the_effort(embedded):
    s = midgame()
    moves = embedded.suggest_move(s, iterations=200)
    assert isinstance(moves, MoveSuggestions) and isinstance(moves, list)
    assert moves.iterations == 200 and moves.searched is True and moves.wall_time > 0
    assert moves.moves == list(moves) and len(moves) == 4
    assert moves == embedded.suggest_move(s.to_json(), iterations=200)       # repeatable, list equality
    over = engine.new_game(2)
    g = GreedyPlayer()
    while not over.is_terminal():
        over.apply_action(g.choose(over))
    done = embedded.suggest_move(over)
    assert done == [] and done.searched is False and done.iterations == 0


def test_embedded_answers_as_the_engine_search(embedded):
    s = midgame()
    direct = engine.players.search.search(s, time_limit=60.0, top=None, seed=0, stop=None, iterations=300)
    moves = embedded.suggest_move(s, iterations=300)
    assert list(moves) == list(direct.moves)
    assert moves.iterations == direct.iterations and moves.searched == direct.searched is True


def test_warm_up_comes_before_the_thinking_clock(monkeypatch):
    import quiltsolve.clients.embedded as emb

    order: list[str] = []
    monkeypatch.setattr(emb, "_warm_done", False)
    monkeypatch.setattr(engine.players.search, "warm_up", lambda: order.append("warm"), raising=False)
    real = MovesJob.run

    def search(*a, **kw):
        order.append("search")
        return real(*a, **kw)

    monkeypatch.setattr(MovesJob, "run", search)
    c = EmbeddedClient()
    c.suggest_move(midgame(), iterations=30)
    c.suggest_move(midgame(), iterations=30)
    assert order == ["warm", "search", "search"]     # once per process, and first
    assert c.warm_up() == 0.0


def test_engine_warm_up_runs():
    engine.players.search.warm_up()


def test_remote_answer_says_how_much_the_service_searched(remote, embedded):
    s = midgame()
    r = remote.suggest_move(s, iterations=200)
    assert isinstance(r, MoveSuggestions) and r == embedded.suggest_move(s, iterations=200)
    assert r.searched is True and r.wall_time > 0 and r.iterations == 200


def test_remote_iterations_counted_by_the_service(remote):
    assert remote.suggest_move(midgame(), iterations=150).iterations == 150


def test_an_unsearched_answer_says_so():
    from quiltsolve.clients import wire
    from quiltsolve.clients.render import search_line
    from quiltsolve.patchwork.v1 import placement_pb2 as pb

    move = pb.MoveSuggestion(move=pb.Move(kind=pb.MOVE_KIND_ADVANCE, text="advance"), value=0.5,
                             reason="advance 1 space: not searched (stopped): greedy choice")
    m = wire.move_result(pb.SuggestMoveResponse(suggestions=[move], iterations=0, searched=False))
    assert m.searched is False and m.iterations == 0
    assert "NOT SEARCHED" in search_line(m)
    good = pb.MoveSuggestion(move=pb.Move(kind=pb.MOVE_KIND_ADVANCE, text="advance"), value=0.5,
                             reason="advance 1 space: won 50% of 30 playouts")
    m = wire.move_result(pb.SuggestMoveResponse(suggestions=[good], iterations=30, searched=True))
    assert m.searched is True and m.iterations == 30        # what the service's search reported
    assert "30 iterations" in search_line(m)


def test_cli_through_the_service_reports_the_effort(cli, port, tmp_path):
    f = tmp_path / "state.json"
    f.write_text(midgame().to_notation())
    r = cli("move", str(f), "--json", "--iterations", "100", "--server", f"127.0.0.1:{port}", "--deadline", "30")
    assert r.code == 0, r.err
    d = r.json()
    assert d["searched"] is True and len(d["moves"]) == 4
    assert d["iterations"] == 100


# ------------------------------------------------------- forms of input
def test_every_form_of_the_position_gives_the_same_answer(cli, tmp_path):
    s = midgame()
    text, notation = json.dumps(s.to_json()), s.to_notation()
    (tmp_path / "s.json").write_text(text)
    (tmp_path / "s.txt").write_text("; a position\n" + notation + "\n")
    runs = [
        cli("move", str(tmp_path / "s.json"), "--json", "--iterations", "80"),
        cli("move", str(tmp_path / "s.txt"), "--json", "--iterations", "80"),
        cli("move", "-", "--json", "--iterations", "80", stdin=notation),
        cli("move", "-", "--json", "--iterations", "80", stdin=text),
        cli("move", notation, "--json", "--iterations", "80"),
        cli("move", text, "--json", "--iterations", "80"),
    ]
    answers = []
    for r in runs:
        assert r.code == 0, r.err
        d = r.json()
        d.pop("wall_time")
        answers.append(d)
    assert all(a == answers[0] for a in answers)
    assert answers[0]["notation"] == notation


def test_notation_flag_prints_the_position_only(cli, tmp_path):
    s = midgame()
    f = tmp_path / "s.json"
    f.write_text(json.dumps(s.to_json()))
    r = cli("move", str(f), "--notation")
    assert (r.code, r.out) == (0, s.to_notation() + "\n")
    assert cli("move", str(f), "--notation", "--json").json() == {"notation": s.to_notation()}
    assert engine.GameState.from_notation(r.out.strip()) == s


@pytest.mark.parametrize("notation, needle", [
    ("r 54,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -", 'player 0 space: must be a number 0-53, got "54"'),
    ("r 0,5,-,0 0,5,-,0 tak 0 -", "circle: patch 0 is neither in the circle nor on a board"),
    ("x 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -", "edition: must be r (revised) or o (original)"),
    ("r 0,5,-,0 0,5,-,0", "must have 6 fields"),
])
def test_bad_notation_is_one_line_naming_the_field(cli, notation, needle):
    line = one_line_error(cli("move", notation))
    assert line.startswith("suggest: error: position: ") and needle in line, line
    err = json.loads(one_line_error(cli("move", "-", "--json", stdin=notation)))
    assert err["code"] == 2 and needle in err["error"]


def test_notation_on_two_lines_and_missing_files(cli, tmp_path):
    f = tmp_path / "two.txt"
    f.write_text(midgame().to_notation() + "\n" + midgame().to_notation() + "\n")
    assert "one line of 6 fields, got 2 lines" in one_line_error(cli("move", str(f)))
    assert "No such file" in one_line_error(cli("move", str(tmp_path / "nope.json")))
    assert "position.players: missing" in one_line_error(cli("move", "{\"edition\": 1}"))
