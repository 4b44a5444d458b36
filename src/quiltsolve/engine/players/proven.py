"""Proven moves: the exact endgame solver's answer, as ranked :class:`MoveSuggestion` values.

:func:`proven_moves` asks :func:`engine.endgame.solve` for the exact value
of every distinct root move (``all_moves=True``: the buys of one patch
collapsed to its best placement) within a time limit and, when the whole
remaining game tree was searched, returns them ranked best first, each with
``proven_margin`` set: the final score of the player to move minus the
other's after that move, both sides playing perfectly to maximise their own
margin (score = buttons + 7 for the bonus tile - 2 per empty cell). Its
``win_chance`` is then certain: 1.0 for a won game, 0.0 for a lost one;
where the margin is 0 the tie rule decides (whoever reached space 53 first).
The tie rule's winner is shown (1.0 or 0.0) only where it is settled: when
somebody has reached 53 already, or the move itself reaches it. Otherwise it
is 0.5 and the reason says that the tie rule decides: the solver proves the
margin, and among the lines that keep it the players may still choose who
reaches 53 first (the move's principal line is one of them, so it only
orders the moves: :func:`tie_winner`). Held-out self-play showed why: 13
proven ties on points shown as won or lost on their line's tie rule were
decided the other way by the line played. ``None`` when the solver could not finish in time
(or was stopped): the caller searches instead.

:func:`proof_limits` is what an answer spends on the attempt. With a fixed
iteration budget (a reproducible answer) it is a node budget
(:class:`NodeBudget`: :data:`PROOF_NODES` near the end, :data:`PROBE_NODES`
before), so that whether a position is proven does not depend on the
machine's speed. With a thinking time it is a share of it: :data:`PROOF_SHARE` (50%) near the end of the game
(:func:`near_end`, a cheap test on the spaces left on the time track), and
:data:`PROBE_SHARE` (10%) before it, which is still enough for a position
whose remaining tree is small, whatever the plies left. Every position the
solver finishes in that time is answered exactly; otherwise the search keeps
the rest (:func:`engine.moves.rank_moves` does both).

>>> from quiltsolve.engine import ADVANCE
>>> proof_reason(3, None, 0), proof_reason(-2, None, 0), proof_reason(0, 0, 0)
('proven: wins by 3 points', 'proven: loses by 2 points', 'proven: a tie on points, won on the tie rule (reached 53 first)')
>>> proof_reason(0, 1, 0)
'proven: a tie on points, lost on the tie rule (the opponent reached 53 first)'
>>> proof_chance(0, None, 0), proof_chance(1, None, 0), proof_chance(-1, None, 1)
(0.5, 1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..endgame import CHECK_EVERY, ENTRY_BYTES, MIN_TABLE_BYTES
from ..endgame import solve as solve_endgame
from ..actions import Action
from ..advisor import Stop
from ..state import GameState
from ..suggest import MoveSuggestion
from ..track import END

PROOF_SHARE = 0.5
"""Part of an answer's thinking time given to the endgame solver first. Half, since a proof is a move of
perfect value and the search alone finds one in about 80% of the last positions: on the 100 positions of
``python -m bench endgame``, ``search:1`` played one in 97% with 0.3 (mean loss 0.17 points) and in 98% and
96% in two runs with 0.5 (0.10 and 0.22), thinking 70 ms a move instead of 89; the runs differ by about as
much as the settings, so this is the expected gain of more proofs, not a measured one."""
PROBE_SHARE = 0.1
"""Part of it given to the solver before the end is near (:func:`near_end`): a small tree is still proven."""
NEAR_END_SPACES = 30
"""Spaces left on the time track (both players, added up) from which the end is near."""
PROOF_NODES = 200_000
"""With a fixed iteration budget: the solver's node budget near the end (a count, so the answer is reproducible)."""
PROBE_NODES = 50_000
"""With a fixed iteration budget: its node budget before the end is near."""
NODES_PER_SECOND = 2_000_000
"""A generous estimate of the compiled solver's speed, to size its table for a time budget."""
MAX_TABLE_BYTES = 256 * 2**20
"""The solver's table budget when nothing bounds the attempt (``engine.endgame.solve``'s default)."""


def table_bytes_for(seconds: float | None, nodes: int | None) -> int:
    """The endgame table budget for an attempt of at most ``seconds`` and ``nodes``: a slot for every
    other node it can visit (a power of two), between 1 MiB and :data:`MAX_TABLE_BYTES`.

    Why: the table's memory is zeroed pages the kernel hands out on first touch, and a solve touches
    about a page per stored position; a 50,000-node probe in a 256 MiB table spent about 150 ms in page
    faults for 20 ms of search. Positions repeat, so a smaller table loses little: over 40 seeded
    endgames, 8 MiB instead of 256 MiB took 0.2% more nodes and a quarter of the time. A proven value
    never depends on the table; only the work to reach it does.

    >>> table_bytes_for(None, 50_000) // 2**20, table_bytes_for(0.1, None) // 2**20
    (16, 64)
    >>> table_bytes_for(None, None) == table_bytes_for(60.0, None) == MAX_TABLE_BYTES
    True
    >>> table_bytes_for(None, 10) // 2**20
    1
    """
    bound = float("inf")
    if nodes is not None:
        bound = nodes
    if seconds is not None:
        bound = min(bound, seconds * NODES_PER_SECOND)
    if bound == float("inf"):
        return MAX_TABLE_BYTES
    size = max(2**20, MIN_TABLE_BYTES)
    while size < MAX_TABLE_BYTES and 2 * size < bound * ENTRY_BYTES:
        size *= 2
    return size


@dataclass(frozen=True)
class ProofLimits:
    """What a proof attempt may spend: ``seconds`` (None: no time limit) and ``nodes`` (None: no node
    budget; a count makes whether the position is proven a function of the position alone)."""

    seconds: float | None
    nodes: int | None


class NodeBudget:
    """A stop token that is set once the solver has searched about ``nodes`` positions (or ``stop`` is set).

    Both solver backends look at their stop token every ``engine.endgame.CHECK_EVERY`` nodes, so counting
    the looks counts the nodes: a budget in nodes, the same on every run and machine.

    >>> b = NodeBudget(3 * CHECK_EVERY)
    >>> [b.is_set() for _ in range(4)], b.spent
    ([False, False, False, True], True)
    """

    def __init__(self, nodes: int, stop: Stop | None = None) -> None:
        self.looks = max(1, nodes // CHECK_EVERY)
        self.stop = stop
        self.spent = False

    def is_set(self) -> bool:
        """Whether the solver must stop now: the budget is spent or the caller's token is set."""
        if self.stop is not None and self.stop.is_set():
            return True
        if self.looks <= 0:
            self.spent = True
            return True
        self.looks -= 1
        return False


@dataclass(frozen=True)
class ProvenMoves:
    """A proven answer: the moves best first (each with ``proven_margin``) and what the proof cost.

    ``value``: the position's game value for the player to move (the best
    move's margin); ``nodes`` and ``elapsed``: the solver's work (all the
    calls: a tie on points may take one more, to follow a move's line).
    """

    moves: list[MoveSuggestion]
    value: int
    nodes: int
    elapsed: float
    table_full: bool


def spaces_left(state: GameState) -> int:
    """Time-track spaces both players still have to go, added up (0 when the game is over)."""
    return sum(END - p.position for p in state.players)


def proof_spaces(seconds: float) -> int:
    """The most spaces left at which a proof attempt of ``seconds`` is worth a move's time.

    For a player whose proof time is taken from its search (a time budget):
    on 216 positions of 12 seeded search-vs-search games (14-31 spaces left,
    every distinct move's value, CPU time, 2026-12-04) the solver proved
    within 3 ms 37% of those with 14-15 spaces left, 18% at 16-17 and none
    from 18; within 30 ms 50% at 18-19, 21% at 20-21, 10% at 22-23 and none
    from 24; within 300 ms 57% at 20-21, 20% at 22-23, about half at 24-27,
    10% at 28-29 and none at 30-31. Each tenfold of time buys about 5 spaces
    (capped at :data:`NEAR_END_SPACES`):

    >>> proof_spaces(0.003), proof_spaces(0.03), proof_spaces(0.3), proof_spaces(1e6)
    (17, 22, 27, 30)
    """
    return min(NEAR_END_SPACES, int(22 + 5 * math.log10(max(seconds, 1e-6) / 0.03) + 1e-9))


def near_end(state: GameState) -> bool:
    """The cheap test: at most :data:`NEAR_END_SPACES` spaces left in all (then the proof gets
    :data:`PROOF_SHARE` of the time; before that only :data:`PROBE_SHARE`, enough for a small tree)."""
    return spaces_left(state) <= NEAR_END_SPACES


def proof_limits(state: GameState, time_limit: float | None, iterations: int | None,
                 default: float = 1.0) -> ProofLimits:
    """What the proof attempt of an answer may spend. A thinking time (``time_limit``, default
    ``default``): :data:`PROOF_SHARE` of it near the end (:func:`near_end`), :data:`PROBE_SHARE` before.
    A fixed iteration count (a reproducible answer): a node budget instead, :data:`PROOF_NODES` or
    :data:`PROBE_NODES`, and when a time limit caps the wall time, within the same share of it.

    >>> from quiltsolve.engine import new_game
    >>> s = new_game(0)
    >>> proof_limits(s, None, None), proof_limits(s, 2.0, None)
    (ProofLimits(seconds=0.1, nodes=None), ProofLimits(seconds=0.2, nodes=None))
    >>> proof_limits(s, 60.0, 500), proof_limits(s, None, 500)
    (ProofLimits(seconds=6.0, nodes=50000), ProofLimits(seconds=None, nodes=50000))
    """
    share = PROOF_SHARE if near_end(state) else PROBE_SHARE
    if iterations is not None:
        return ProofLimits(None if time_limit is None else share * time_limit,
                           PROOF_NODES if share == PROOF_SHARE else PROBE_NODES)
    return ProofLimits(share * (default if time_limit is None else time_limit), None)


def proof_chance(margin: int, tie_winner: int | None, mover: int) -> float:
    """The certain win chance of a proven margin for ``mover``: 1 or 0 (0.5 only for a tie on points
    whose tie rule could not be followed)."""
    if margin:
        return 1.0 if margin > 0 else 0.0
    if tie_winner is None:
        return 0.5
    return 1.0 if tie_winner == mover else 0.0


def proof_reason(margin: int, tie_winner: int | None, mover: int) -> str:
    """What a proven margin means, in words."""
    if margin > 0:
        return f"proven: wins by {margin} point{'s' if margin != 1 else ''}"
    if margin < 0:
        return f"proven: loses by {-margin} point{'s' if margin != -1 else ''}"
    if tie_winner is None:
        return f"proven: a tie on points; the tie rule (who reaches {END} first) decides"
    if tie_winner == mover:
        return f"proven: a tie on points, won on the tie rule (reached {END} first)"
    return f"proven: a tie on points, lost on the tie rule (the opponent reached {END} first)"


def line_end(state: GameState, line: tuple[Action, ...] | list[Action]) -> GameState | None:
    """The position after playing ``line`` from ``state``: None unless it is a finished game."""
    s = state.clone()
    for a in line:
        if s.is_terminal() or not s.is_legal(a):
            return None
        s.apply_action(a)
    return s if s.is_terminal() else None


def settled_tie_winner(state: GameState, action: Action) -> int | None:
    """Who wins a tie on points after ``action`` whatever is played next: whoever reached space 53 first,
    when somebody has by then (before ``action``, or with it); else None (the players may still choose).

    >>> from quiltsolve.engine import ADVANCE, new_game
    >>> settled_tie_winner(new_game(1), ADVANCE) is None
    True
    """
    if state.first_to_end is not None:
        return state.first_to_end
    after = state.clone()
    after.apply_action(action)
    return after.first_to_end


def tie_winner(state: GameState, action: Action, line: tuple[Action, ...] | None) -> int | None:
    """Who wins a tie on points after ``action`` on ``line`` (the principal line starting with
    ``action``): whoever reached space 53 first — known already when somebody has, else at the end of
    the line; None when neither says. Not a proof (another line of the same margin may end the other
    way): it only orders tied moves; what is shown is :func:`settled_tie_winner`."""
    if state.first_to_end is not None:
        return state.first_to_end
    if line and line[0] == action:
        end = line_end(state, line)
        if end is not None:
            return end.first_to_end
    return None


def proven_moves(state: GameState, *, time_limit: float | None, stop: Stop | None = None,
                 top: int | None = None, nodes: int | None = None,
                 table_bytes: int | None = None) -> ProvenMoves | None:
    """The moves of ``state`` with their proven values, best first, or None when not proven in time.

    ``time_limit`` seconds for the whole attempt (a tie on points may take a
    second solver call, within what is left; None: no time limit); ``nodes``
    a budget in solver nodes instead or as well (:class:`NodeBudget`: then
    whether the position is proven does not depend on the machine's speed);
    ``stop`` ends it early (then None); ``table_bytes`` the solver's table (None:
    :func:`table_bytes_for` the limits). Ranked by proven margin, then the
    tie rule, then the solver's order; ``top`` keeps the best few. A
    finished game: None (no move).
    """
    if state.is_terminal() or (time_limit is not None and time_limit <= 0) or (stop is not None and stop.is_set()):
        return None
    if table_bytes is None:
        table_bytes = table_bytes_for(time_limit, nodes)
    if nodes is not None:
        stop = NodeBudget(nodes, stop)
    result = solve_endgame(state, time_limit=time_limit, stop=stop, all_moves=True, table_bytes=table_bytes)
    if not result.proven or not result.moves or result.value is None:
        return None
    mover = state.current_player()
    nodes, elapsed = result.nodes, result.elapsed
    ranked: list[tuple[int, float, int, int, MoveSuggestion]] = []
    for i, pm in enumerate(result.moves):
        winner: int | None = None      # the tie rule's winner where it is settled: what is shown
        on_line: int | None = None     # on the move's line: only an order among tied moves
        if pm.margin == 0:
            winner = settled_tie_winner(state, pm.action)
            on_line = winner if winner is not None else tie_winner(state, pm.action, result.line)
            left = None if time_limit is None else time_limit - elapsed
            if on_line is None and (left is None or left > 0):
                on_line, n, took = _tie_after(state, pm.action, left, stop, table_bytes)
                nodes += n
                elapsed += took
        chance = proof_chance(pm.margin, winner, mover)
        m = MoveSuggestion(pm.action, chance, proof_reason(pm.margin, winner, mover), proven_margin=int(pm.margin))
        ranked.append((-pm.margin, -chance, -int(on_line == mover), i, m))
    ranked.sort(key=lambda r: r[:4])
    moves = [r[4] for r in ranked]
    return ProvenMoves(moves[:top] if top else moves, int(result.value), nodes, elapsed, result.table_full)


def proven_best_move(state: GameState, *, time_limit: float | None, stop: Stop | None = None,
                     nodes: int | None = None) -> ProvenMoves | None:
    """A move of perfect value in ``state`` (the tie rule too, where it can be followed in the time), as a
    one-move :class:`ProvenMoves`, or None when the solver does not prove the position within
    ``time_limit`` seconds / ``nodes`` (as :func:`proven_moves`).

    Cheaper than ``proven_moves(..., top=1)``: the solver proves the value and one move reaching it
    (``all_moves=False``); only when that value is a tie on points and the move's line loses the tie
    rule are the other moves ranked, with the time left (else the move stands: its margin is perfect).
    """
    if state.is_terminal() or (time_limit is not None and time_limit <= 0) or (stop is not None and stop.is_set()):
        return None
    table_bytes = table_bytes_for(time_limit, nodes)
    token: Stop | None = NodeBudget(nodes, stop) if nodes is not None else stop
    result = solve_endgame(state, time_limit=time_limit, stop=token, table_bytes=table_bytes)
    if not result.proven or not result.moves or result.value is None:
        return None
    mover = state.current_player()
    best = result.moves[0].action
    on_line = tie_winner(state, best, result.line) if result.value == 0 else None
    winner = settled_tie_winner(state, best) if result.value == 0 else None
    left = None if time_limit is None else time_limit - result.elapsed
    if result.value == 0 and on_line != mover and (left is None or left > 0):
        ranked = proven_moves(state, time_limit=left, stop=stop, top=1,
                              nodes=None if nodes is None else max(CHECK_EVERY, nodes - result.nodes))
        if ranked is not None:
            return ProvenMoves(ranked.moves, ranked.value, result.nodes + ranked.nodes,
                               result.elapsed + ranked.elapsed, result.table_full or ranked.table_full)
    move = MoveSuggestion(best, proof_chance(result.value, winner, mover), proof_reason(result.value, winner, mover),
                          proven_margin=int(result.value))
    return ProvenMoves([move], int(result.value), result.nodes, result.elapsed, result.table_full)


def _tie_after(state: GameState, action: Action, time_limit: float | None,
               stop: Stop | None, table_bytes: int) -> tuple[int | None, int, float]:
    """(tie winner, nodes, seconds): the tie rule after ``action``, from the solved line of the position it
    leads to."""
    after = state.clone()
    after.apply_action(action)
    if after.is_terminal():
        return after.first_to_end, 0, 0.0
    r = solve_endgame(after, time_limit=time_limit, stop=stop, table_bytes=table_bytes)
    if not r.proven:
        return None, r.nodes, r.elapsed
    end = line_end(after, r.line)
    return (None if end is None else end.first_to_end), r.nodes, r.elapsed


__all__ = ["NEAR_END_SPACES", "NodeBudget", "PROBE_NODES", "PROBE_SHARE", "PROOF_NODES", "PROOF_SHARE", "ProofLimits",
           "ProvenMoves", "line_end", "near_end", "proof_chance", "proof_limits", "proof_reason", "proof_spaces",
           "proven_best_move", "proven_moves", "settled_tie_winner", "spaces_left", "tie_winner"]
