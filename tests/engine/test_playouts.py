"""Invariants over many seeded random and greedy playouts, plus golden legal-action counts."""

import json
import random
from pathlib import Path

import pytest

from quiltsolve.engine import ADVANCE, Buy, GameState, PlaceLeather, new_game, parse_action, replay
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer
from quiltsolve.engine.track import END, INCOME_SPACES, LEATHER_SPACES
from quiltsolve.solver import PATCHES

GOLDEN = [json.loads(line) for line in (Path(__file__).parents[1] / "data" / "golden-games.jsonl").open()]


def expected_buttons(s: GameState, action) -> int:
    """Independent button bookkeeping for one action."""
    cur = s.current_player()
    p, o = s.players[cur], s.players[1 - cur]
    if isinstance(action, PlaceLeather):
        return p.buttons
    if isinstance(action, Buy):
        pt = PATCHES[action.patch_id]
        start, end = p.position, min(END, p.position + pt.time)
        return p.buttons - pt.buttons + (p.income + pt.income) * sum(start < x <= end for x in INCOME_SPACES)
    end = min(END, o.position + 1)
    return p.buttons + (end - p.position) + p.income * sum(p.position < x <= end for x in INCOME_SPACES)


def check_invariants(s: GameState, edition: str) -> None:
    owned = []
    for p in s.players:
        assert p.buttons >= 0
        assert 0 <= p.position <= END
        assert p.board.bit_count() == sum(PATCHES[i].area for i in p.patches) + p.leather
        assert p.income == sum(PATCHES[i].income for i in p.patches)
        owned += p.patches
    assert sorted(owned + s.circle) == list(range(33))
    far = max(p.position for p in s.players)
    assert list(s.leather) == [x for x in LEATHER_SPACES[edition] if x > far]
    assert s.players[0].leather + s.players[1].leather + s.leather_to_place + len(s.leather) <= 5
    assert sum(p.bonus for p in s.players) <= 1
    if not s.is_terminal() and s.pending_leather is None:
        me, other = s.players[s.current_player()], s.players[1 - s.current_player()]
        assert me.position <= other.position
    d = s.to_json()
    back = GameState.from_json(json.loads(json.dumps(d)))
    assert back.to_json() == d and back == s


@pytest.mark.parametrize("edition", ["revised", "original"])
@pytest.mark.parametrize("kind", ["random", "greedy-vs-random"])
def test_playout_invariants(edition, kind):
    for seed in range(40 if kind == "random" else 15):
        s = new_game(seed, edition)
        players = (RandomPlayer(seed), RandomPlayer(seed + 1000)) if kind == "random" else \
            (GreedyPlayer(), RandomPlayer(seed)) if seed % 2 else (RandomPlayer(seed), GreedyPlayer())
        bonus_seen = None
        for _ in range(400):
            if s.is_terminal():
                break
            cur = s.current_player()
            action = players[cur].choose(s)
            want = expected_buttons(s, action)
            positions = [p.position for p in s.players]
            s.apply_action(action)
            assert s.players[cur].buttons == want
            assert all(p.position >= q for p, q in zip(s.players, positions))
            if bonus_seen is not None:
                assert s.bonus_owner == bonus_seen        # never taken back
            bonus_seen = s.bonus_owner
            check_invariants(s, edition)
        assert s.is_terminal(), "a game must end"
        assert all(p.position == END for p in s.players)
        assert s.winner() in (0, 1) and s.first_to_end in (0, 1)


def test_random_player_only_plays_legal_actions_and_is_reproducible():
    def game(seed):
        s, r, acts = new_game(seed), RandomPlayer(seed), []
        while not s.is_terminal():
            a = r.choose(s)
            if len(acts) % 7 == 0:
                assert a in s.legal_actions()
            s.apply_action(a)
            acts.append(a.to_str())
        return acts
    assert game(5) == game(5) != game(6)


def test_clones_are_independent():
    s = new_game(11)
    r = RandomPlayer(3)
    for _ in range(15):
        s.apply_action(r.choose(s))
    snapshot = s.to_json()
    c = s.clone()
    while not c.is_terminal():
        c.apply_action(r.choose(c))
    assert s.to_json() == snapshot and not s.is_terminal()
    assert c.to_json() != snapshot
    s.apply_action(ADVANCE) if s.pending_leather is None else s.apply_action(s.legal_actions()[0])
    assert c.is_terminal()


def test_every_legal_action_applies_and_illegal_ones_raise():
    s = new_game(2)
    r = RandomPlayer(2)
    rng = random.Random(0)
    for step in range(60):
        if s.is_terminal():
            break
        acts = s.legal_actions()
        assert len(acts) == s.num_legal_actions() == len(set(acts))
        for a in rng.sample(acts, min(10, len(acts))):
            s.clone().apply_action(a)
        if s.pending_leather is None:
            assert acts[0] == ADVANCE
            buyable = {a.patch_id for a in acts if isinstance(a, Buy)}
            assert buyable == set(s.buyable_patches())
            for pid in buyable:
                assert len(s.placements(pid)) == sum(1 for a in acts if isinstance(a, Buy) and a.patch_id == pid)
        s.apply_action(r.choose(s))


# Golden legal-action counts along golden record 0 (seed 101), one per decision.
RECORD0_COUNTS = [432, 383, 1, 767, 332, 1, 965, 270, 561, 80, 1, 973, 1, 973, 127, 753, 130, 162, 405, 302,
                  61, 48, 349, 47, 246, 53, 12, 84, 12, 84, 46, 36, 99, 32, 99, 39, 43, 48, 46, 39, 46, 17, 28,
                  4, 2, 7]


def test_golden_legal_action_counts():
    assert new_game(1).num_legal_actions() == 869          # advance + 224 (27) + 448 (18) + 196 (12)
    assert len(new_game(1, "original").legal_actions()) == 869
    r = GOLDEN[0]
    s = GameState.from_circle(r["circle"], r["edition"])
    counts = []
    for a in r["actions"]:
        counts.append(len(s.legal_actions()))
        s.apply_action(parse_action(a))
    assert counts == RECORD0_COUNTS
    leather_counts = [counts[i] for i, a in enumerate(r["actions"]) if a.startswith("leather")]
    assert leather_counts == [61, 53, 46, 39, 28]           # the empty cells at each leather placement


def test_golden_actions_are_in_legal_actions():
    for r in GOLDEN[::10]:
        s = GameState.from_circle(r["circle"], r["edition"])
        for text in r["actions"]:
            a = parse_action(text)
            assert a in set(s.legal_actions()), text
            s.apply_action(a)
        assert s == replay(r)
