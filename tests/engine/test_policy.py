"""engine.policy, the playout policy below the players, and the deprecated names it moved from (0.3.0)."""

from __future__ import annotations

import random
import warnings

import pytest

from quiltsolve.engine import new_game, policy
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer, greedy_rate, greedy_value
from quiltsolve.engine.players import _search_policy, greedy, random_player

MOVED = {
    greedy: ("ADVANCE_RATE", "GREEDY_RATES", "greedy_rate", "greedy_value"),
    random_player: ("RANDOM_TRIES", "random_action"),
    _search_policy: ("PlacementCache", "RandomSource", "buy_rates", "key_seed", "leather_cell", "leather_scores",
                     "place_pending_leather", "placement_score", "playout", "state_key", "tight_placement"),
}


@pytest.mark.parametrize("module,name", [(m, n) for m, names in MOVED.items() for n in names])
def test_a_moved_name_warns_and_is_the_policy_object(module, name):
    with pytest.warns(DeprecationWarning, match=rf"{name} is deprecated: import it from quiltsolve\.engine\.policy"):
        old = getattr(module, name)
    assert old is getattr(policy, name)
    assert name in policy.__all__


def test_from_import_of_a_moved_name_still_works():
    with pytest.warns(DeprecationWarning, match="tight_placement"):
        from quiltsolve.engine.players._search_policy import tight_placement
    assert tight_placement is policy.tight_placement


@pytest.mark.parametrize("module", list(MOVED))
def test_an_unknown_name_is_still_an_attribute_error(module):
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018


def test_the_players_package_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from quiltsolve.engine import players
        assert players.greedy_rate is greedy_rate is policy.greedy_rate
        assert players.greedy_value is greedy_value is policy.greedy_value


def _positions(n: int, seed: int) -> list:
    """States along a few random games (leather turns included)."""
    rng = random.Random(seed)
    out = []
    for deal in range(n):
        s = new_game(deal)
        while not s.is_terminal():
            out.append(s.clone())
            s.apply_action(rng.choice(s.legal_actions()))
    return out


def test_the_players_move_by_the_policy():
    greedy_player = GreedyPlayer()
    states = _positions(3, 1)
    assert any(s.leather_to_place for s in states)
    for s in states:
        move = greedy_player.choose(s)
        assert move == policy.greedy_action(s)
        assert move in s.legal_actions()
    for seed in range(3):
        player, rng = RandomPlayer(seed), random.Random(seed)
        for s in states[:60]:
            assert player.choose(s) == policy.random_action(s, rng.random)


class _Kid:
    def __init__(self, n: int, w: float) -> None:
        self.n, self.w = n, w


def test_ucb_child_is_the_first_best_ucb1_score():
    import math

    rng = random.Random(3)
    for _ in range(200):
        kids = [_Kid(rng.randint(1, 30), 0.0) for _ in range(rng.randint(1, 8))]
        for k in kids:
            k.w = rng.randint(0, k.n) / 2
        parent = sum(k.n for k in kids) + rng.randint(0, 3)
        c = rng.choice([0.0, 0.5, math.sqrt(2.0)])
        scores = [k.w / k.n + c * math.sqrt(math.log(parent) / k.n) for k in kids]
        assert policy.ucb_child(kids, c, parent) is kids[scores.index(max(scores))]
    # The floor: no child beats it, the first is picked (the C core's -1e9, MCTSPlayer's -1).
    kids = [_Kid(1, 0.0), _Kid(1, 0.5)]
    assert policy.ucb_child(kids, -10.0, 9, floor=-1.0) is kids[0]
    assert policy.ucb_child(kids, -10.0, 9) is kids[1]
    assert policy.ucb_child(kids, 1.0, 1) is kids[1]      # one parent visit: no exploration term
