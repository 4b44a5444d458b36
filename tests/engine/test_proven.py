"""Proven endgame answers (engine.players.proven, engine.moves.rank_moves) and exact reviews."""

from __future__ import annotations

import pytest

from quiltsolve.engine import ADVANCE, MoveSuggestion, new_game
from quiltsolve.engine.moves import rank_moves
from quiltsolve.engine import endgame as solver
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.engine.players.proven import (
    PROBE_NODES, PROBE_SHARE, PROOF_NODES, PROOF_SHARE, NodeBudget, ProofLimits, near_end, proof_chance,
    proof_limits, proof_reason, proven_moves, spaces_left,
)
from quiltsolve.engine.endgame import CHECK_EVERY
from quiltsolve.engine.review import review_game, review_move, summarize


def greedy_states(seed: int):
    state, greedy, states = new_game(seed), GreedyPlayer(), []
    while not state.is_terminal():
        states.append(state.clone())
        state.apply_action(greedy.choose(state))
    return states, state


ENDGAME = greedy_states(1)[0][-3]      # a won move and a tie on points (won on the tie rule)


def margins_of(result) -> dict:
    return {m.action: m.margin for m in result.moves}


@pytest.mark.parametrize("seed, back", [(0, 2), (0, 4), (1, 3), (1, 5), (2, 3)])
def test_proven_margins_are_the_solvers(seed, back):
    state = greedy_states(seed)[0][-back]
    answer = proven_moves(state, time_limit=30.0)
    assert answer is not None
    exact = solver.solve(state, time_limit=30.0, all_moves=True)
    assert exact.proven
    assert {m.action: m.proven_margin for m in answer.moves} == margins_of(exact)
    assert answer.value == exact.value == answer.moves[0].proven_margin == max(margins_of(exact).values())
    margins = [m.proven_margin for m in answer.moves]
    assert margins == sorted(margins, reverse=True)
    for m in answer.moves:
        assert m.win_chance in (0.0, 0.5, 1.0) and m.reason.startswith("proven: ")
        if m.proven_margin > 0:
            assert m.win_chance == 1.0 and f"wins by {m.proven_margin}" in m.reason
        elif m.proven_margin < 0:
            assert m.win_chance == 0.0 and f"loses by {-m.proven_margin}" in m.reason
        else:
            assert "tie on points" in m.reason and "tie rule" in m.reason


@pytest.mark.parametrize("back, settled_ties", [(3, True), (5, False)])
def test_a_tie_on_points_shows_the_tie_rule_only_where_it_is_settled(back, settled_ties):
    """The solver proves the margin, not who reaches 53 first: a tie on points is shown won or lost on the
    tie rule only when somebody has reached 53 (before the move or with it); otherwise 0.5, "the tie rule
    decides". The move's principal line only orders the tied moves (those whose line wins it first).
    Seed 1, 3 plies from the end: the tied moves reach 53 themselves; 5 plies: one does not."""
    state = greedy_states(1)[0][-back]
    answer = proven_moves(state, time_limit=30.0)
    assert answer is not None
    ties = [m for m in answer.moves if m.proven_margin == 0]
    assert ties, [m.reason for m in answer.moves]
    assert all(m.win_chance != 0.5 for m in ties) is settled_ties
    mover = state.current_player()
    on_line = []
    for m in ties:
        after = state.clone()
        after.apply_action(m.action)
        settled = after.first_to_end
        if settled is None:
            assert m.win_chance == 0.5 and "the tie rule" in m.reason and "decides" in m.reason
        else:
            assert m.win_chance == (1.0 if settled == mover else 0.0)
            assert ("won on the tie rule" if settled == mover else "lost on the tie rule") in m.reason
        line = solver.solve(after, time_limit=30.0).line
        for a in line:
            after.apply_action(a)
        assert after.is_terminal() and after.scores()[0] == after.scores()[1]
        on_line.append((m.win_chance, after.first_to_end == mover))
    assert on_line == sorted(on_line, reverse=True)


def test_a_settled_tie_rule_is_shown():
    """Once somebody has reached 53 the tie rule's winner is known: a proven tie on points shows it."""
    from quiltsolve.engine.players.proven import settled_tie_winner
    states, _end = greedy_states(1)
    late = next(s for s in states if s.first_to_end is not None and not s.is_terminal())
    action = late.legal_actions()[0]
    assert settled_tie_winner(late, action) == late.first_to_end
    assert proof_chance(0, settled_tie_winner(late, action), late.first_to_end) == 1.0


def test_top_and_finished_and_stopped():
    full = proven_moves(ENDGAME, time_limit=30.0)
    assert full is not None and len(full.moves) >= 2
    assert proven_moves(ENDGAME, time_limit=30.0, top=1).moves == full.moves[:1]
    states, over = greedy_states(1)
    assert proven_moves(over, time_limit=1.0) is None

    class Set:
        def is_set(self) -> bool:
            return True
    assert proven_moves(ENDGAME, time_limit=30.0, stop=Set()) is None


def test_a_mid_game_position_is_not_proven():
    s = new_game(3)
    assert not near_end(s) and spaces_left(s) == 106
    assert proven_moves(s, time_limit=0.05) is None
    r = rank_moves(s, iterations=30)
    assert not r.proven and r.searched and r.iterations == 30
    assert all(m.proven_margin is None for m in r.moves)


def test_rank_moves_proves_an_endgame_and_skips_the_search():
    r = rank_moves(ENDGAME, iterations=50)
    assert r.proven and r.iterations == 0 and r.searched and r.proof_nodes > 0
    assert all(m.proven_margin is not None for m in r.moves)
    exact = solver.solve(ENDGAME, time_limit=30.0, all_moves=True)
    assert r.moves[0].proven_margin == exact.value
    assert rank_moves(ENDGAME, iterations=50, top=1).moves == r.moves[:1]
    unproven = rank_moves(ENDGAME, iterations=50, prove=False)
    assert not unproven.proven and unproven.iterations == 50


def test_proof_limits_and_words():
    s = new_game(0)
    end = greedy_states(0)[0][-3]
    assert near_end(end) and not near_end(s)
    assert proof_limits(end, None, None) == ProofLimits(pytest.approx(PROOF_SHARE), None)
    assert proof_limits(s, 2.0, None) == ProofLimits(pytest.approx(2 * PROBE_SHARE), None)
    # a fixed iteration budget: a node budget (reproducible), the time limit only a cap
    assert proof_limits(end, 60.0, 400) == ProofLimits(pytest.approx(60.0 * PROOF_SHARE), PROOF_NODES)
    assert proof_limits(s, None, 400) == ProofLimits(None, PROBE_NODES)
    assert proof_chance(3, None, 0) == 1.0 and proof_chance(0, 1, 1) == 1.0 and proof_chance(0, 0, 1) == 0.0
    assert proof_reason(1, None, 0) == "proven: wins by 1 point"
    assert "lost on the tie rule" in proof_reason(0, 1, 0)


def test_a_node_budget_decides_alike_on_every_run():
    # a position the solver needs more than a tiny budget for: not proven within it, every time, however fast
    states = greedy_states(2)[0]
    hard = next(s for s in reversed(states) if solver.solve(s, time_limit=30.0, all_moves=True).nodes > 20 * CHECK_EVERY)
    assert all(proven_moves(hard, time_limit=None, nodes=4 * CHECK_EVERY) is None for _ in range(3))
    assert proven_moves(hard, time_limit=None, nodes=10**9) is not None
    budget = NodeBudget(2 * CHECK_EVERY)
    assert not budget.is_set() and not budget.is_set() and budget.is_set() and budget.spent


def test_move_suggestion_carries_a_whole_proven_margin():
    m = MoveSuggestion(ADVANCE, 1.0, "proven: wins by 2 points", proven_margin=2)
    assert m.proven_margin == 2 and m != MoveSuggestion(ADVANCE, 1.0, "proven: wins by 2 points")
    with pytest.raises(ValueError, match="proven_margin"):
        MoveSuggestion(ADVANCE, 1.0, "x", proven_margin=2.5)    # type: ignore[arg-type]


# ---------------------------------------------------------------- review

def test_review_of_a_proven_position_gives_the_exact_loss_in_points():
    exact = solver.solve(ENDGAME, time_limit=30.0, all_moves=True)
    margins = margins_of(exact)
    best = max(margins, key=margins.get)
    worst = min(margins, key=margins.get)
    good = review_move(ENDGAME, best, iterations=20)
    assert good.loss_points == 0 and good.best == best and good.margin_best == exact.value
    assert good.margin_played == exact.value and good.loss == 0.0
    bad = review_move(ENDGAME, worst, iterations=20)
    assert bad.margin_best == exact.value and bad.margin_played == margins[worst]
    assert bad.loss_points == exact.value - margins[worst]
    assert bad.value_best in (0.0, 0.5, 1.0) and bad.value_played in (0.0, 0.5, 1.0)
    assert f"proven {exact.value:+d}" in bad.to_str()
    assert bad.to_json()["loss_points"] == bad.loss_points


def test_review_of_a_move_at_another_placement_solves_the_position_after_it():
    # a buy at a placement other than the solver's: its value is the position after it, solved
    exact = solver.solve(ENDGAME, time_limit=30.0, all_moves=True)
    listed = set(margins_of(exact))
    other = next((a for a in ENDGAME.legal_actions() if a not in listed), None)
    if other is None:
        pytest.skip("every legal move is one of the solver's")
    r = review_move(ENDGAME, other, iterations=20)
    after = ENDGAME.clone()
    after.apply_action(other)
    if after.is_terminal():
        sc = after.scores()
        value = sc[ENDGAME.current_player()] - sc[1 - ENDGAME.current_player()]
    else:
        v = solver.solve(after, time_limit=30.0).value
        value = v if after.current_player() == ENDGAME.current_player() else -v
    assert r.margin_played == value and r.loss_points == exact.value - value >= 0


def test_review_of_a_game_proves_its_end_and_not_its_start():
    states, over = greedy_states(1)
    reviews = list(review_game(states[-4:] + [over], iterations=20))
    assert len(reviews) == 4 and all(r.loss_points is not None for r in reviews)
    s = summarize(reviews)
    assert s[0].proven + s[1].proven == 4 and s[0].loss_points + s[1].loss_points == sum(r.loss_points for r in reviews)
    first = review_move(new_game(1), ADVANCE, iterations=20)
    assert first.loss_points is None and first.margin_best is None and first.margin_played is None
    assert review_move(ENDGAME, ADVANCE, iterations=20, prove=False).loss_points is None


@pytest.mark.parametrize("seed, back", [(0, 2), (1, 3), (2, 3)])
def test_the_search_player_plays_a_proven_best_move_near_the_end(seed, back):
    from quiltsolve.engine.players import SearchPlayer

    state = greedy_states(seed)[0][-back]
    assert near_end(state)
    exact = solver.solve(state, time_limit=30.0, all_moves=True)
    assert exact.proven
    for player in (SearchPlayer(iterations=2000, seed=3), SearchPlayer(time_limit=5.0, seed=3, lookahead=False)):
        action = player.choose(state)
        assert player.last_proven
        after = state.clone()
        after.apply_action(action)
        mover = state.current_player()
        value_after = solver.solve(after, time_limit=30.0)
        assert value_after.proven
        # value_after is for the player to move after the action: turn it into the root mover's view
        v = value_after.value if after.is_terminal() or after.current_player() == mover else -value_after.value
        if after.is_terminal():
            s = after.scores()
            v = s[mover] - s[1 - mover]
        assert v == exact.value


def test_the_search_player_does_not_prove_when_told_not_to_or_far_from_the_end():
    from quiltsolve.engine.players import SearchPlayer

    state = greedy_states(0)[0][-2]
    p = SearchPlayer(iterations=50, seed=1, prove=False)
    p.choose(state)
    assert not p.last_proven and p.last_iterations == 50
    q = SearchPlayer(iterations=50, seed=1)
    q.choose(new_game(5))
    assert not q.last_proven and q.last_iterations == 50
