"""Game review: how much each decision of a game gave away, by the search player's judgement.

For every decision (every action of a record, leather placements included)
the position before it is searched with :func:`engine.players.search.search_moves`.
``value_best`` is the value of the search's best move and ``value_played``
the value of the move played:

* the best move: its value, so the loss is 0;
* any other move: the value of the position it leads to, searched in turn
  (1 minus the opponent's best value there, or the mover's own best value
  when the mover is to move again, as after taking a leather patch or while
  still behind on the track; a finished game is valued like a playout that
  ends there); when the move is also one of the searched root moves, the
  larger of that and its root value. UCB can starve a root move after a
  couple of unlucky playouts; this gives it the benefit of the doubt, so a
  large loss means both estimates agree the move was worse. When that
  value is at least ``value_best``, the move played is shown as the best
  (``best`` = ``played``, ``value_best`` = ``value_played``, loss 0), as in
  a proven review: a move played never shows a higher win chance than the
  move named best. The position after the move is the next decision's: a
  review searches it once (:class:`SearchCache`), so it has one value.

Values are the search's estimated win chance for the player to move (0-1),
its reward calibrated into a win rate (:mod:`engine.players.calibration`);
a finished game is 1 or 0.

**Proven moves.** Near the end of a game (at most 30 spaces left on the time
track, both players added up: :func:`engine.players.proven.near_end`) the
exact endgame solver (:func:`engine.players.proven.proven_moves`, with 30%
of the search's budget) may prove the position first: then ``best`` is a move of perfect
value, ``margin_best`` the position's game value and ``margin_played`` the
proven margin after the move played (the position it leads to solved in
turn), both in points for the mover (final score minus the opponent's under
perfect play), ``loss_points = margin_best - margin_played`` the exact loss
in points, and the win chances are certain (1 or 0; a tie on points goes by
the tie rule). Where the solver did not prove both values the three are
None and the review is the search's.

``loss = max(0, value_best - value_played)``. **Labels** (lichess's
thresholds, :func:`label_of`): an *inaccuracy* (``?!``) loses at least 0.05,
a *mistake* (``?``) at least 0.10, a *blunder* (``??``) at least 0.15; apart
from them a move is a *large mistake* (``large``, counted in
``large_mistakes``) when its loss is at least ``large_loss`` (0.1 unless
asked otherwise). **Accuracy** (lichess's formula, :func:`move_accuracy`):
a move scores ``103.1668·e^(−0.04354·loss in percentage points) − 3.1669``,
clamped to 0-100; a player's accuracy (:func:`player_accuracy`, the one
function every face uses) is the mean over their moves, rounded to one
decimal. With an iteration budget (the
default, :data:`DEFAULT_ITERATIONS` per search) a review is reproducible
for a given seed.

>>> from quiltsolve.engine import new_game, make_record, parse_action
>>> s = new_game(3)
>>> start = s.clone()
>>> for a in ("advance", "advance"):
...     s.apply_action(parse_action(a))
>>> reviews = list(review_game(make_record(start, ["advance", "advance"], s), iterations=60))
>>> [(r.ply, r.player, r.played.to_str()) for r in reviews]
[(0, 0, 'advance'), (1, 1, 'advance')]
>>> reviews == list(review_game(make_record(start, ["advance", "advance"], s), iterations=60))
True
>>> sorted(summarize(reviews))
[0, 1]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from .advisor import Stop
from .endgame import solve as solve_endgame
from .players import search
from .players.proven import (NodeBudget, near_end, proof_chance, proof_limits, proven_moves,
                             table_bytes_for)
from .record import _setup, replay_steps
from .state import GameState, IllegalActionError
from .state_json import quote
from .suggest import MoveSuggestion

DEFAULT_ITERATIONS = 500
"""Search iterations per searched position when neither a budget nor a time limit is given."""
DEFAULT_LARGE_LOSS = 0.1
"""A loss of at least this much win chance is a large mistake."""
INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"
LABEL_THRESHOLDS = ((BLUNDER, 0.15), (MISTAKE, 0.10), (INACCURACY, 0.05))
"""Each label and the least loss (win chance, 0-1) that earns it, worst first (lichess's thresholds)."""
GLYPHS = {INACCURACY: "?!", MISTAKE: "?", BLUNDER: "??"}
"""The annotation glyph of each label."""
MAX_ITERATIONS = 10_000_000


def label_of(loss: float) -> str | None:
    """The label of a move that lost ``loss`` win chance: ``"blunder"``, ``"mistake"``, ``"inaccuracy"`` or
    None (a loss under 0.05).

    >>> [label_of(x) for x in (0.0, 0.0499, 0.05, 0.1, 0.1499, 0.15, 1.0)]
    [None, None, 'inaccuracy', 'mistake', 'mistake', 'blunder', 'blunder']
    """
    for label, least in LABEL_THRESHOLDS:
        if loss >= least:
            return label
    return None


def move_accuracy(loss: float) -> float:
    """One move's accuracy, 0-100: ``103.1668·e^(−0.04354·100·loss) − 3.1669`` clamped to 0-100
    (lichess's formula; ``loss`` in win chance, 0-1).

    >>> [round(move_accuracy(x), 4) for x in (0.0, 0.05, 0.1, 0.5, 1.0)]
    [99.9999, 79.817, 63.5826, 8.5303, 0.0]
    """
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * 100.0 * loss) - 3.1669))


def player_accuracy(losses: Iterable[float]) -> float | None:
    """A player's accuracy, 0-100: the mean of :func:`move_accuracy` over their moves' losses, rounded to
    one decimal; None without moves. The one function every face (the engine's review, the service's
    AnalyzeGame, the clients, the CLI) computes accuracy with.

    >>> player_accuracy([0.0, 0.0]), player_accuracy([0.0, 1.0]), player_accuracy([])
    (100.0, 50.0, None)
    """
    scores = [move_accuracy(x) for x in losses]
    return round(sum(scores) / len(scores), 1) if scores else None


class ReviewError(ValueError):
    """Bad review input: a budget, a threshold, or positions that do not follow from one another."""


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One decision: the move played, the search's best move and their values for ``player``."""

    ply: int                 # index of the action in the record's ``actions`` (0 = the first)
    player: int              # who made the decision
    played: Action
    best: Action
    value_played: float      # win chance (0-1) for ``player`` after the move played
    value_best: float        # win chance (0-1) after the search's best move
    loss: float              # max(0, value_best - value_played)
    large: bool              # loss >= the review's large_loss
    margin_played: int | None = None   # proven final margin (points) for ``player`` after the move played
    margin_best: int | None = None     # proven final margin after the best move (the position's value)
    loss_points: int | None = None     # margin_best - margin_played; None unless both are proven

    @property
    def label(self) -> str | None:
        """``"inaccuracy"``, ``"mistake"``, ``"blunder"`` or None, by the loss (:func:`label_of`)."""
        return label_of(self.loss)

    @property
    def accuracy(self) -> float:
        """The move's accuracy, 0-100 (:func:`move_accuracy` of the loss)."""
        return move_accuracy(self.loss)

    def to_json(self) -> dict[str, Any]:
        """The review as a JSON object (moves in their text form), as ``python -m quiltsolve.engine review --json`` prints;
        the proven margins and ``loss_points`` are null unless the endgame solver proved both moves; ``label``
        null for a move under every label's threshold."""
        return {"ply": self.ply, "player": self.player, "played": self.played.to_str(), "best": self.best.to_str(),
                "value_played": self.value_played, "value_best": self.value_best, "loss": self.loss,
                "label": self.label, "large": self.large, "margin_played": self.margin_played,
                "margin_best": self.margin_best, "loss_points": self.loss_points}

    def to_str(self) -> str:
        """One line: ply, player (P1 moves first, P2 second: ``player`` + 1, as every human-readable text
        numbers them), the move played and its value, the best move and its value, the loss.

        >>> from quiltsolve.engine import ADVANCE, parse_action
        >>> MoveReview(12, 1, ADVANCE, parse_action("buy 0 4,2;4,3"), 0.3, 0.52, 0.22, True).to_str()
        ' 12  P2  advance (0.300)  best buy 0 4,2;4,3 (0.520)  loss 0.220  ?? blunder, large mistake'
        >>> MoveReview(13, 0, ADVANCE, parse_action("buy 0 4,2;4,3"), 0.44, 0.5, 0.06, False).to_str()
        ' 13  P1  advance (0.440)  best buy 0 4,2;4,3 (0.500)  loss 0.060  ?! inaccuracy'
        >>> MoveReview(50, 0, ADVANCE, parse_action("buy 0 4,2;4,3"), 0.0, 1.0, 1.0, True, -2, 3, 5).to_str()
        ' 50  P1  advance (0.000, proven -2)  best buy 0 4,2;4,3 (1.000, proven +3)  loss 1.000, 5 points  ?? blunder, large mistake'
        """
        played = f"{self.value_played:.3f}" + (f", proven {self.margin_played:+d}" if self.margin_played is not None
                                               else "")
        best = f"{self.value_best:.3f}" + (f", proven {self.margin_best:+d}" if self.margin_best is not None else "")
        best = "same" if self.best == self.played else f"{self.best.to_str()} ({best})"
        line = f"{self.ply:>3}  P{self.player + 1}  {self.played.to_str()} ({played})  best {best}  loss {self.loss:.3f}"
        if self.loss_points is not None:
            line += f", {self.loss_points} point{'s' if self.loss_points != 1 else ''}"
        notes = [f"{GLYPHS[self.label]} {self.label}"] if self.label else []
        if self.large:
            notes.append("large mistake")
        return line + (f"  {', '.join(notes)}" if notes else "")


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's decisions in a review."""

    moves: int
    mean_loss: float
    large_mistakes: int
    proven: int = 0          # moves whose loss in points the endgame solver proved
    loss_points: int = 0     # their losses in points, added up
    accuracy: float | None = None   # player_accuracy of the moves (0-100, one decimal); None without moves
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0

    def to_str(self) -> str:
        """One line: moves, accuracy, label counts, mean loss, large mistakes and the proven losses.

        >>> PlayerSummary(40, 0.031, 2, 3, 4, 88.25, 5, 2, 1).to_str()
        '40 moves, accuracy 88.2, 5 inaccuracies, 2 mistakes, 1 blunder, mean loss 0.031, 2 large mistakes; \
4 points lost in 3 proven moves'
        """
        def n(k: int, word: str, plural: str = "") -> str:
            return f"{k} {word if k == 1 else (plural or word + 's')}"
        acc = "-" if self.accuracy is None else f"{self.accuracy:.1f}"
        line = (f"{n(self.moves, 'move')}, accuracy {acc}, {n(self.inaccuracies, 'inaccuracy', 'inaccuracies')}, "
                f"{n(self.mistakes, 'mistake')}, {n(self.blunders, 'blunder')}, mean loss {self.mean_loss:.3f}, "
                f"{n(self.large_mistakes, 'large mistake')}")
        if self.proven:
            line += f"; {n(self.loss_points, 'point')} lost in {n(self.proven, 'proven move')}"
        return line

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON object."""
        return {"moves": self.moves, "accuracy": self.accuracy, "inaccuracies": self.inaccuracies,
                "mistakes": self.mistakes, "blunders": self.blunders, "mean_loss": self.mean_loss,
                "large_mistakes": self.large_mistakes, "proven": self.proven, "loss_points": self.loss_points}


def summarize(reviews: Iterable[MoveReview]) -> dict[int, PlayerSummary]:
    """Per player (0 and 1, always both): decisions reviewed, accuracy (:func:`player_accuracy`), how many
    inaccuracies, mistakes and blunders, mean loss, large mistakes, and the proven losses in points (how
    many moves, how many points in all).

    >>> summarize([])[0]
    PlayerSummary(moves=0, mean_loss=0.0, large_mistakes=0, proven=0, loss_points=0, accuracy=None, \
inaccuracies=0, mistakes=0, blunders=0)
    """
    losses: list[list[float]] = [[], []]
    large = [0, 0]
    proven = [0, 0]
    points = [0, 0]
    labels: list[dict[str | None, int]] = [{}, {}]
    for r in reviews:
        losses[r.player].append(r.loss)
        large[r.player] += r.large
        labels[r.player][r.label] = labels[r.player].get(r.label, 0) + 1
        if r.loss_points is not None:
            proven[r.player] += 1
            points[r.player] += r.loss_points
    return {i: PlayerSummary(len(losses[i]), round(sum(losses[i]) / len(losses[i]), 4) if losses[i] else 0.0,
                             large[i], proven[i], points[i], player_accuracy(losses[i]),
                             labels[i].get(INACCURACY, 0), labels[i].get(MISTAKE, 0), labels[i].get(BLUNDER, 0))
            for i in (0, 1)}


def evaluation(review: MoveReview) -> dict[str, Any]:
    """A review as an entry of a game record's ``evaluations`` (``engine.record``)."""
    return {"ply": review.ply, "player": review.player, "best": review.best.to_str(),
            "value_played": review.value_played, "value_best": review.value_best, "loss": review.loss,
            "label": review.label, "loss_points": review.loss_points}


def with_evaluations(record: dict[str, Any], reviews: Iterable[MoveReview]) -> dict[str, Any]:
    """A copy of ``record`` with ``evaluations``: one entry per review, in the order of the actions.

    >>> from quiltsolve.engine import new_game, make_record, replay
    >>> s = new_game(3)
    >>> rec = make_record(s.clone(), ["advance"], (s.apply_action(ADVANCE), s)[1])
    >>> out = with_evaluations(rec, review_game(rec, iterations=30))
    >>> [(e["ply"], e["player"]) for e in out["evaluations"]], "evaluations" in rec
    ([(0, 0)], False)
    >>> replay(out, check_result=False) == s
    True
    """
    return {**record, "evaluations": [evaluation(r) for r in sorted(reviews, key=lambda r: r.ply)]}


def _terminal_value(state: GameState, player: int) -> float:
    """A finished game's win chance for ``player``: 1 or 0 (the tie rule decides a tie)."""
    return 1.0 if state.winner() == player else 0.0


def action_between(before: GameState, after: GameState) -> Action:
    """The action that turns ``before`` into ``after`` (ReviewError if no single action does)."""
    cur = before.current_player()
    p, q = before.players[cur], after.players[cur]
    added = q.board & ~p.board
    if before.leather_to_place:
        action: Action = LEATHER_ACTIONS[added.bit_length() - 1] if added.bit_count() == 1 else ADVANCE
    elif len(q.patches) == len(p.patches) + 1:
        action = Buy(q.patches[-1], added)
    else:
        action = ADVANCE
    t = before.clone()
    try:
        t.apply_action(action)
    except IllegalActionError:
        raise ReviewError("the positions do not follow from one another by single actions") from None
    if t != after:
        raise ReviewError("the positions do not follow from one another by single actions")
    return action


def _decisions(game: Any) -> Iterator[tuple[int, GameState, Action]]:
    """The (ply, position, action) of each decision; the record or the states are checked first."""
    if isinstance(game, dict):
        _setup(game)                   # a malformed record fails now, not at the first review
        return replay_steps(game)
    if isinstance(game, (str, bytes)) or not isinstance(game, Sequence):
        raise ReviewError(f"review_game takes a game record (dict) or a list of GameStates, got {quote(game)}")
    for i, s in enumerate(game):
        if not isinstance(s, GameState):
            raise ReviewError(f"states[{i}]: must be a GameState, got {quote(s)}")
    out = []
    for i in range(len(game) - 1):
        try:
            action = action_between(game[i], game[i + 1])
        except ReviewError:
            raise ReviewError(f"states[{i + 1}]: does not follow from states[{i}] by one action") from None
        out.append((i, game[i].clone(), action))
    return iter(out)


def _check(time_limit: Any, iterations: Any, seed: Any, large_loss: Any) -> tuple[float | None, int | None]:
    if iterations is not None and (type(iterations) is not int or not 1 <= iterations <= MAX_ITERATIONS):
        raise ReviewError(f"iterations: must be an integer 1-{MAX_ITERATIONS}, got {quote(iterations)}")
    if time_limit is not None and (type(time_limit) not in (int, float) or not 0 < time_limit <= 3600):
        raise ReviewError(f"time_limit: must be seconds in (0, 3600], got {quote(time_limit)}")
    if type(seed) is not int:
        raise ReviewError(f"seed: must be an integer, got {quote(seed)}")
    if type(large_loss) not in (int, float) or not 0 < large_loss <= 1:
        raise ReviewError(f"large_loss: must be in (0, 1], got {quote(large_loss)}")
    if time_limit is None and iterations is None:
        iterations = DEFAULT_ITERATIONS
    return time_limit, iterations


def review_game(game: dict[str, Any] | Sequence[GameState], *, time_limit: float | None = None,
                iterations: int | None = None, seed: int = 0,
                large_loss: float = DEFAULT_LARGE_LOSS) -> Iterator[MoveReview]:
    """Review every decision of ``game``, yielding each :class:`MoveReview` as soon as it is computed.

    ``game`` is a game record (``engine.record``; it may be unfinished) or a
    list of consecutive positions. ``iterations`` is the search budget per
    searched position (reproducible); ``time_limit`` seconds instead, or, with
    ``iterations``, a cap on each search's wall time; neither:
    :data:`DEFAULT_ITERATIONS`. ``RecordError`` for a malformed record (an
    illegal action only when the review reaches it), ``ReviewError`` for bad
    arguments or positions.
    """
    time_limit, iterations = _check(time_limit, iterations, seed, large_loss)
    return _review(_decisions(game), time_limit, iterations, seed, large_loss)


class SearchCache:
    """The last few positions a review searched and the search's ranked moves there.

    A move played that is not the best is valued by searching the position after it, which is the next
    decision's position: one search serves both, so that position has one value in the review (with a time
    limit two searches of it would differ) and costs one search.
    """

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._entries: list[tuple[GameState, list[MoveSuggestion]]] = []

    def get(self, position: GameState) -> list[MoveSuggestion] | None:
        """The ranked moves of ``position`` when it was searched, else None."""
        return next((ranked for state, ranked in self._entries if state == position), None)

    def put(self, position: GameState, ranked: list[MoveSuggestion]) -> None:
        """Keep the ranked moves of ``position`` (the oldest entry goes when the cache is full)."""
        self._entries = [(position.clone(), ranked)] + self._entries[: self.size - 1]


def _review(decisions: Iterator[tuple[int, GameState, Action]], time_limit: float | None, iterations: int | None,
            seed: int, large_loss: float) -> Iterator[MoveReview]:
    cache = SearchCache()
    for ply, state, played in decisions:
        yield review_move(state, played, ply=ply, time_limit=time_limit, iterations=iterations, seed=seed,
                          large_loss=large_loss, cache=cache)


def review_move(state: GameState, played: Action, *, ply: int = 0, time_limit: float | None = None,
                iterations: int | None = None, seed: int = 0, large_loss: float = DEFAULT_LARGE_LOSS,
                stop: Stop | None = None, prove: bool = True, cache: SearchCache | None = None) -> MoveReview:
    """The review of one decision: ``played`` in ``state`` against the search's best move.

    The unit of work of :func:`review_game` (and of the service's AnalyzeGame,
    one worker job per move); ``stop`` (a ``solver.StopToken``) ends its
    searches early. Near the end (:func:`engine.players.proven.near_end`), when
    the endgame solver proves both values within its share of the budget
    (:func:`engine.players.proven.proof_limits`), the review is exact (module
    docstring); ``prove=False`` skips the attempt. (Before the end is near a
    review does not probe: its searches are short, and a game's review would
    pay the probe at every move.) ``cache`` (a :class:`SearchCache`) reuses
    the search of a position already searched, as :func:`review_game` does.
    """
    if prove and near_end(state):
        limits = proof_limits(state, time_limit, iterations)
        exact = proven_review(state, played, ply=ply, time_limit=limits.seconds, nodes=limits.nodes,
                              large_loss=large_loss, stop=stop)
        if exact is not None:
            return exact

    def best_of(position: GameState) -> list[MoveSuggestion]:
        ranked = cache.get(position) if cache is not None else None
        if ranked is None:
            ranked = search.search_moves(position, time_limit=time_limit, iterations=iterations, seed=seed,
                                         stop=stop)
            if cache is not None and ranked and (stop is None or not stop.is_set()):
                cache.put(position, ranked)
        return ranked

    mover = state.current_player()
    ranked = best_of(state)
    best = ranked[0]
    value_best = _chance(best)
    value_played = next((_chance(m) for m in ranked if m.action == played), None)
    best_action = best.action
    if played != best_action:
        after = state.clone()
        after.apply_action(played)
        if after.is_terminal():
            value_after = _terminal_value(after, mover)
        else:
            reply = _chance(best_of(after)[0])
            value_after = reply if after.current_player() == mover else round(1.0 - reply, 4)
        # A root move the search barely tried (UCB can starve a move after a
        # couple of unlucky playouts) gets the benefit of the doubt.
        value_played = value_after if value_played is None else max(value_played, value_after)
        if value_played >= value_best:
            # The second search rates the move played at least as high as the root's best: then it is the
            # best move shown, with its one value (as proven_review does), so a played move never shows a
            # higher win chance than the move named best.
            best_action, value_best = played, value_played
    else:
        assert value_played is not None     # the best move is a searched root move
    loss = round(max(0.0, value_best - value_played), 4)
    return MoveReview(ply, mover, played, best_action, value_played, value_best, loss, loss >= large_loss)


def proven_review(state: GameState, played: Action, *, ply: int = 0, time_limit: float | None,
                  nodes: int | None = None, large_loss: float = DEFAULT_LARGE_LOSS,
                  stop: Stop | None = None) -> MoveReview | None:
    """The exact review of ``played`` in ``state`` when the endgame solver proves the position and the
    move's value within ``time_limit`` seconds and ``nodes`` solver nodes (in all; None: no such limit),
    else None."""
    t0 = time.perf_counter()
    if nodes is not None:
        stop = NodeBudget(nodes, stop)     # one budget for both solves
    table_bytes = table_bytes_for(time_limit, nodes)    # both solves: a table sized to the budget
    answer = proven_moves(state, time_limit=time_limit, stop=stop, table_bytes=table_bytes)
    if answer is None:
        return None
    mover = state.current_player()
    best = answer.moves[0]
    assert best.proven_margin is not None and best.win_chance is not None
    mine = next((m for m in answer.moves if m.action == played), None)
    if mine is not None:
        assert mine.proven_margin is not None and mine.win_chance is not None
        margin, chance = mine.proven_margin, mine.win_chance
    else:
        after = state.clone()
        after.apply_action(played)
        if after.is_terminal():
            sc = after.scores()
            margin = sc[mover] - sc[1 - mover]
        else:
            left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
            if left is not None and left <= 0:
                return None
            r = solve_endgame(after, time_limit=left, stop=stop, table_bytes=table_bytes)
            if not r.proven or r.value is None:
                return None
            margin = r.value if after.current_player() == mover else -r.value
        # The tie rule only where it is settled (see players.proven.settled_tie_winner): after the move played.
        chance = proof_chance(margin, after.first_to_end, mover)
    best_action, value_best, margin_best = best.action, best.win_chance, best.proven_margin
    if (margin, chance) >= (best.proven_margin, best.win_chance):
        # the move played is of perfect value: it is the best move, with its own values
        best_action, value_best, margin_best = played, chance, margin
    loss = round(max(0.0, value_best - chance), 4)
    return MoveReview(ply, mover, played, best_action, chance, value_best, loss, loss >= large_loss,
                      margin, margin_best, max(0, margin_best - margin))


def _chance(m: MoveSuggestion) -> float:
    """A search suggestion's win chance (the search always estimates one)."""
    assert m.win_chance is not None
    return m.win_chance
