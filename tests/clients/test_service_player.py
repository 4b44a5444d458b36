"""engine.suggest, engine.advisor and the ``service`` player."""

from __future__ import annotations

import subprocess
import sys

import pytest

from quiltsolve import engine
from quiltsolve.engine.actions import Advance, Buy, PlaceLeather
from quiltsolve.engine.advisor import LocalAdvisor, SolverAdvisor
from quiltsolve.engine.players import GreedyPlayer, make_player
from quiltsolve.engine.players.service import ServicePlayer
from quiltsolve.engine.suggest import MoveSuggestion, Weights, holes, suggest_moves


def _play(seed: int, plies: int):
    s = engine.new_game(seed)
    g = GreedyPlayer()
    for _ in range(plies):
        if s.is_terminal():
            break
        s.apply_action(g.choose(s))
    return s


def test_terminal_state_has_no_suggestions():
    s = _play(4, 10_000)
    assert s.is_terminal()
    assert suggest_moves(s, advisor=LocalAdvisor()) == []


def test_turn_suggestions_are_legal_sorted_and_explained():
    s = _play(6, 8)
    assert not s.leather_to_place
    moves = suggest_moves(s, advisor=LocalAdvisor())
    assert all(isinstance(m, MoveSuggestion) for m in moves)
    assert [m.value for m in moves] == sorted((m.value for m in moves), reverse=True)
    kinds = [type(m.action) for m in moves]
    assert kinds.count(Advance) == 1
    assert {m.action.patch_id for m in moves if isinstance(m.action, Buy)} == set(s.buyable_patches())
    for m in moves:
        assert s.is_legal(m.action)
        assert "value" in m.reason and "playout margin" in m.reason
        if isinstance(m.action, Buy):
            assert m.reason.startswith(f"buy {m.action.patch_id}: ")
    assert len(suggest_moves(s, advisor=LocalAdvisor(), top=1)) == 1


def test_formula_only_values():
    s = engine.new_game(11)
    moves = suggest_moves(s, advisor=LocalAdvisor(), weights=Weights(immediate=1.0, playout=0.0))
    adv = next(m for m in moves if isinstance(m.action, Advance))
    assert adv.value == 0.0           # 1 space, 1 button, worth exactly its time
    for m in moves:
        if isinstance(m.action, Buy):
            p = engine.state.PATCHES[m.action.patch_id]
            # -cost + income*9 paydays + 2*area - time (empty board: no holes, no lookahead loss)
            assert m.value == pytest.approx(-p.buttons + 9 * p.income + 2 * p.area - p.time)


def test_pending_leather_suggests_cells():
    s = engine.new_game(1)
    while not s.leather_to_place:
        s.apply_action(GreedyPlayer().choose(s))
    moves = suggest_moves(s, advisor=LocalAdvisor())
    board = s.players[s.current_player()].board
    assert all(isinstance(m.action, PlaceLeather) for m in moves)
    assert len(moves) == 81 - board.bit_count()
    best = moves[0].action
    # The best cell cuts off no new pocket.
    assert holes(board | best.mask) <= holes(board)


def test_leather_completes_the_window():
    s = engine.new_game(1)
    full = (1 << 81) - 1
    # The centre cell is the 7x7 window's last gap. (Set up by hand: the
    # JSON checks would want patches that explain the board.)
    s.players[0].board = full & ~(1 << 40) & ~(1 << 80) & ~(1 << 72)
    s._pending = 1
    best = suggest_moves(s, advisor=LocalAdvisor())[0]
    assert best.action == PlaceLeather((4, 4)) and "7×7" in best.reason


def test_stop_token_falls_back_to_local_placement():
    from quiltsolve.solver import StopToken

    class Boom:
        def suggest_placement(self, *a, **k):  # must not be asked once stopped
            raise AssertionError("advisor called after stop")

    t = StopToken()
    t.set()
    state = engine.new_game(2)
    assert state.buyable_patches()
    moves = suggest_moves(state, advisor=Boom(), stop=t)
    assert moves and any(isinstance(m.action, Buy) for m in moves)


def test_failing_advisor_falls_back():
    class Broken:
        def suggest_placement(self, *a, **k):
            raise RuntimeError("down")

    assert suggest_moves(engine.new_game(2), advisor=Broken())


def test_service_player_registry():
    p = make_player("service", 0)
    assert isinstance(p, ServicePlayer) and isinstance(p.advisor, SolverAdvisor)
    assert make_player("service:0.5", 0).time_limit == 0.5
    adv = LocalAdvisor()
    assert make_player("service", 0, adv).advisor is adv
    with pytest.raises(ValueError):
        make_player("service:fast", 0)
    with pytest.raises(ValueError):
        make_player("service:0", 0)


def test_match_smoke_local_advisor():
    from quiltsolve.engine.match import run_match

    s = run_match(ServicePlayer(LocalAdvisor()), "greedy", games=4, seed=1)
    assert s.games == 4 and s.wins_a + s.wins_b == 4


def test_match_cli_embedded(capsys):
    from quiltsolve.engine.__main__ import main

    assert main(["match", "--a", "service:0.05", "--b", "greedy", "--games", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "service:0.05 (a) vs greedy (b): 2 games" in out


def test_match_cli_through_server(port, capsys):
    from quiltsolve.engine.__main__ import main

    assert main(["match", "--a", "service:0.05", "--b", "greedy", "--games", "2", "--seed", "3",
                 "--server", f"127.0.0.1:{port}"]) == 0
    assert "win rate" in capsys.readouterr().out


def test_engine_never_imports_clients():
    code = ("import sys, quiltsolve.engine.suggest, quiltsolve.engine.advisor, quiltsolve.engine.service_player, "
            "quiltsolve.engine.players; from quiltsolve import engine;"
            "engine.players.known_players();"
            "bad = [m for m in sys.modules if m == 'quiltsolve.clients' or m.startswith('quiltsolve.clients.')];"
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
