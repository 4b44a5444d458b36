"""Proven endgame answers through the Python clients and the ``suggest`` command."""

from __future__ import annotations

import json

from quiltsolve import engine
from quiltsolve.engine import endgame

from ..server.conftest import endgame as endgame_position
from ..server.conftest import greedy_game, play
from ..aio import run_coroutine

END = endgame_position(1, 3)


def exact_margins(state) -> dict[str, int]:
    r = endgame.solve(state, time_limit=30.0, all_moves=True)
    assert r.proven
    return {m.action.to_str(): m.margin for m in r.moves}


def test_clients_answer_proven_margins(embedded, remote):
    want = exact_margins(END)
    for client in (embedded, remote):
        moves = client.suggest_move(END, iterations=40)
        assert moves.proven and moves.iterations == 0 and not moves.terminal
        assert {m.action.to_str(): m.proven_margin for m in moves} == want
        assert all(m.win_chance in (0.0, 0.5, 1.0) and m.reason.startswith("proven: ") for m in moves)
        mid = client.suggest_move(play(11, 14), iterations=30)
        assert not mid.proven and all(m.proven_margin is None for m in mid)


def test_async_client_answers_proven_margins(port):
    from quiltsolve.clients import AsyncPlacementClient

    async def ask():
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=30) as c:
            return await c.suggest_move(END, iterations=40)

    moves = run_coroutine(ask())
    assert moves.proven and {m.action.to_str(): m.proven_margin for m in moves} == exact_margins(END)


def test_suggest_move_json_has_proven(cli, tmp_path):
    f = tmp_path / "end.json"
    f.write_text(json.dumps(END.to_json()))
    d = cli("move", str(f), "--iterations", "40", "--json").json()
    assert d["proven"] is True and d["iterations"] == 0
    assert {m["action"]: m["proven_margin"] for m in d["moves"]} == exact_margins(END)
    mid = tmp_path / "mid.json"
    mid.write_text(json.dumps(play(11, 14).to_json()))
    d = cli("move", str(mid), "--iterations", "30", "--json").json()
    assert d["proven"] is False and all(m["proven_margin"] is None for m in d["moves"])


def test_suggest_move_text_shows_proven(cli, tmp_path):
    f = tmp_path / "end.json"
    f.write_text(json.dumps(END.to_json()))
    r = cli("move", str(f), "--iterations", "40")
    assert r.code == 0, r.err
    assert "proven: the endgame solver found the exact value of every move" in r.out
    best = max(exact_margins(END).values())
    assert f"{best:+d}" in r.out and "proven: wins by" in r.out


def test_play_hint_shows_proven(cli, tmp_path):
    f = tmp_path / "end.json"
    f.write_text(json.dumps(END.to_json()))
    r = cli("play", "--follow", "--position", str(f), "--iterations", "30", stdin="hint\nquit\n")
    assert r.code == 0, r.err
    assert "hint for player" in r.out and "(proven: the endgame solver" in r.out
    best = max(exact_margins(END).values())
    assert f"proven {best:+d}" in r.out


def test_suggest_review_shows_loss_in_points(cli, tmp_path):
    start, actions, states = greedy_game(1)
    final = states[-1].clone()
    final.apply_action(actions[-1])
    rec = engine.make_record(start, [a.to_str() for a in actions], final)
    f = tmp_path / "g.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    r = cli("review", str(f), "--iterations", "10", "--json")
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in r.out.splitlines()]
    reviews, summary = lines[:-1], lines[-1]
    assert len(reviews) == len(actions)
    last = reviews[-3:]
    assert all(x["loss_points"] is not None and x["loss_points"] >= 0 for x in last)
    assert all(x["loss_points"] == x["margin_best"] - x["margin_played"] for x in reviews if x["loss_points"] is not None)
    assert reviews[0]["loss_points"] is None
    assert sum(p["proven"] for p in summary["summary"]) == sum(x["loss_points"] is not None for x in reviews)
