"""Players, the registry and the match runner."""

import io
import json
from collections import Counter

import pytest
from engine_helpers import build

from quiltsolve.engine import ADVANCE, Buy, new_game, replay
from quiltsolve.engine.match import PlayerError, play_game, run_match, wilson_interval
from quiltsolve.engine.board import contacts
from quiltsolve.engine.players import GreedyPlayer, Player, RandomPlayer, make_player, register_player


def test_make_player_specs():
    assert isinstance(make_player("random", 1), RandomPlayer)
    assert isinstance(make_player(" greedy ", 1), GreedyPlayer)
    assert isinstance(make_player("random", 1), Player)
    with pytest.raises(ValueError, match="unknown player 'alphazero'; known: .*greedy, .*random"):
        make_player("alphazero", 1)
    with pytest.raises(ValueError, match="takes no argument"):
        make_player("random:5", 1)
    with pytest.raises(ValueError, match="empty player spec"):
        make_player("", 1)


def test_register_player_passes_arg_seed_and_advisor():
    seen = []

    class Fixed:
        name = "fixed"

        def choose(self, state):
            return ADVANCE if state.pending_leather is None else state.legal_actions()[0]

    def factory(arg, seed, advisor):
        seen.append((arg, seed, advisor))
        return Fixed()

    register_player("test-fixed", factory)
    p = make_player("test-fixed:abc", 7, advisor="adv")
    assert seen == [("abc", 7, "adv")] and p.name == "fixed"
    with pytest.raises(ValueError, match="bad player name"):
        register_player("a:b", factory)


def test_random_player_is_uniform_over_advance_and_patches():
    s = build({"buttons": 5}, {"position": 1}, front=[0, 1, 32])    # 32 costs 10: not affordable
    r = RandomPlayer(0)
    kinds = Counter(a.patch_id if isinstance(a, Buy) else "advance" for a in (r.choose(s) for _ in range(3000)))
    assert set(kinds) == {"advance", 0, 1}
    assert all(900 < n < 1100 for n in kinds.values())


def test_random_player_finds_the_last_placement():
    full_but_two = ((1 << 81) - 1) ^ 0b11
    s = build({"board": full_but_two, "bonus": True}, {"position": 1}, front=[0])
    picks = {RandomPlayer(i).choose(s) for i in range(20)}
    assert picks == {ADVANCE, Buy(0, 0b11)}


def test_greedy_places_tightly_and_is_deterministic():
    s = new_game(5)
    a, b = GreedyPlayer().choose(s), GreedyPlayer().choose(s.clone())
    assert a == b
    if isinstance(a, Buy):
        assert contacts(a.mask, 0) == max(contacts(m, 0) for m in s.placements(a.patch_id))
    assert contacts(0, 1) == 2 and contacts(0, 1 << 40) == 0


def test_greedy_advances_when_nothing_is_worth_buying():
    # Late, patches 28, 18 and 4 add at most 6 points for 5-6 spaces of time: advancing pays as much.
    late = build({"buttons": 9, "position": 48}, {"position": 52}, front=[28, 18, 4])
    assert GreedyPlayer().choose(late) == ADVANCE
    # Early, its income makes it worth buying.
    early = build({"buttons": 9, "position": 2}, {"position": 6}, front=[28])
    assert GreedyPlayer().choose(early).patch_id == 28
    poor = build({"buttons": 0}, {"position": 1}, front=[32, 6, 19])
    assert GreedyPlayer().choose(poor) == ADVANCE


def test_greedy_beats_random():
    summary = run_match("greedy", "random", games=20, seed=3)
    assert summary.wins_a >= 16 and summary.mean_margin_a > 0


def test_run_match_alternates_and_writes_records():
    out = io.StringIO()
    summary = run_match("random", "greedy", games=4, seed=2, records=out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(records) == 4
    assert [r["players"] for r in records] == [["random", "greedy"], ["greedy", "random"]] * 2
    assert records[0]["circle"] == records[1]["circle"] != records[2]["circle"]   # pairs share a deal
    for r in records:
        replay(r)
    assert summary.wins_a + summary.wins_b == 4
    again = run_match("random", "greedy", games=4, seed=2)
    assert (again.wins_a, again.mean_score_a) == (summary.wins_a, summary.mean_score_a)
    assert summary.to_json()["games"] == 4 and "win rate" in summary.table()


def test_illegal_player_is_reported():
    class Cheat:
        name = "cheat"

        def choose(self, state):
            return Buy(99, 3)

    with pytest.raises(PlayerError, match="player cheat chose illegal 'buy 99 0,0;0,1'"):
        play_game((Cheat(), Cheat()), new_game(1))


def test_wilson_interval():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == 1.0


@pytest.mark.parametrize("old, new", [("quiltsolve.engine.search", "quiltsolve.engine.players.search"), ("quiltsolve.engine.mcts", "quiltsolve.engine.players.mcts"),
                                      ("quiltsolve.engine.service_player", "quiltsolve.engine.players.service")])
def test_moved_modules_still_import_as_themselves_with_a_warning(old, new):
    import subprocess
    import sys

    code = (f"import warnings; warnings.simplefilter('always')\n"
            f"with warnings.catch_warnings(record=True) as w:\n    import {old}\n"
            f"import {new} as moved, {old.rpartition('.')[0]}\n"
            f"assert sys.modules['{old}'] is moved and {old} is moved\n"
            f"assert any(issubclass(x.category, DeprecationWarning) and '{new}' in str(x.message) for x in w), w\n")
    r = subprocess.run([sys.executable, "-c", "import sys\n" + code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_old_contacts_keeps_its_argument_order_with_a_warning():
    from quiltsolve.engine import players

    with pytest.deprecated_call():
        assert players.contacts(1 << 1, 1) == contacts(1, 1 << 1) == 2


def test_every_built_in_player_is_registered_on_import():
    from quiltsolve.engine.players import known_players
    assert {"greedy", "mcts", "random", "search", "service"} <= set(known_players())
