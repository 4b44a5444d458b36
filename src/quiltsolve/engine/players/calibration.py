"""The search's reward as a win chance: monotone logistic calibrations fitted on self-play, one per budget.

The search's mean playout reward (``0.75 × win + 0.25 × a margin term``,
shrunk towards the parent's mean for rarely visited moves) ranks moves well
but is not a probability: a reward of 0.8 does not mean four wins in five,
and what it means depends on how many playouts stand behind it (a deeper
search's rewards are more decisive). :func:`win_chance` maps it through
``σ(z(logit(reward)))``, where ``z`` is piecewise linear in
``x = logit(reward)`` with bends at the logits of the rewards
:data:`CALIBRATION_KNOTS`:
``z(x) = a + b·x + Σ c_k·max(0, x − logit(knot_k))``, with one set of
constants per search budget in :data:`CALIBRATION_BUDGETS` (iterations a
move). Between two fitted budgets ``z`` is interpolated linearly in
``log(iterations)``; below the first and above the last the nearest map
holds. Every segment's slope (``b`` plus the bends so far) is positive in
every map, so the map is increasing and never changes a ranking. The
constants are fitted by maximum likelihood on search-vs-search games
(``python -m bench review --fit --iterations N``; the fits and the checks of
the calibrated chances, bucket by bucket against the observed win rates,
are in docs/players.md).

>>> win_chance(0.5) < 0.5 < win_chance(0.6)
True
>>> win_chance(0.0), win_chance(1.0)
(0.0, 1.0)
>>> all(s > 0 for b in CALIBRATION_BUDGETS for s in segment_slopes(CALIBRATION_COEFFICIENTS[b]))
True
"""

from __future__ import annotations

import math

CALIBRATION_KNOTS: tuple[float, ...] = (0.2, 0.35, 0.5, 0.65, 0.8)
"""The rewards at which the calibration's slope (in logit space) may change."""
CALIBRATION_BUDGETS: tuple[int, ...] = (200, 300, 500, 1000, 3000, 10000)
"""The search budgets (iterations a move) with a map of their own; in between, interpolated in log(iterations)."""
CALIBRATION_COEFFICIENTS: dict[int, tuple[float, ...]] = {
    200: (0.0017, 1.6594, -0.3833, 0.3710, 0.3912, -0.7420, -0.2293),
    300: (-0.4548, 1.5145, 0.0926, 0.1377, 0.2406, -0.5140, -0.1791),
    500: (-0.3588, 1.7304, 0.1174, 0.0342, 0.0631, -0.1868, -0.1280),
    1000: (-0.4015, 1.7829, 0.1157, 0.1078, 0.2303, -0.4031, -0.2000),
    3000: (-0.7088, 1.6107, 0.1559, 0.6060, 0.0385, -0.4899, -0.1738),
    10000: (-0.7306, 1.5178, -0.1868, 1.3982, 0.1675, -1.5142, 0.2012),
}
"""Per budget, ``(a, b, c_1, …, c_5)`` of :func:`win_chance`: intercept, slope below the first knot and the
change of slope at each knot; fitted by ``python -m bench review --fit --iterations N`` (docs/players.md)."""
FIT_ITERATIONS = 300
"""The budget ``python -m bench review`` checks by default (iterations a move)."""


def logit(p: float) -> float:
    """log(p / (1 - p)) for 0 < p < 1."""
    return math.log(p / (1.0 - p))


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x), without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


_KNOT_LOGITS = tuple(logit(k) for k in CALIBRATION_KNOTS)


def features(x: float, knots: tuple[float, ...] = _KNOT_LOGITS) -> list[float]:
    """``[1, x, max(0, x − k_1), …]``: what the coefficients multiply, for ``x = logit(reward)``."""
    return [1.0, x] + [x - k if x > k else 0.0 for k in knots]


def segment_slopes(coefficients: tuple[float, ...] | None = None) -> list[float]:
    """The slope of ``z`` in ``logit(reward)`` on each segment, lowest rewards first (all positive: increasing);
    of the :data:`FIT_ITERATIONS` map unless ``coefficients`` are given."""
    if coefficients is None:
        coefficients = CALIBRATION_COEFFICIENTS[FIT_ITERATIONS]
    slopes = [coefficients[1]]
    for c in coefficients[2:]:
        slopes.append(slopes[-1] + c)
    return slopes


def _z(x: float, coefficients: tuple[float, ...]) -> float:
    return sum(c * f for c, f in zip(coefficients, features(x)))


def budget_weights(iterations: int) -> list[tuple[int, float]]:
    """The fitted budgets whose maps give ``iterations``'s, with their weights (linear in log(iterations)).

    >>> budget_weights(300), budget_weights(50), budget_weights(10**6)
    ([(300, 1.0)], [(200, 1.0)], [(10000, 1.0)])
    >>> [(b, round(w, 3)) for b, w in budget_weights(400)]
    [(300, 0.437), (500, 0.563)]
    """
    budgets = CALIBRATION_BUDGETS
    if iterations <= budgets[0]:
        return [(budgets[0], 1.0)]
    for lo, hi in zip(budgets, budgets[1:]):
        if iterations == lo:
            return [(lo, 1.0)]
        if iterations < hi:
            t = math.log(iterations / lo) / math.log(hi / lo)
            return [(lo, 1.0 - t), (hi, t)]
    return [(budgets[-1], 1.0)]


def win_chance(reward: float, iterations: int = FIT_ITERATIONS,
               coefficients: tuple[float, ...] | None = None) -> float:
    """The calibrated chance (0-1) that the player to move wins, from the search's mean reward (0-1) after a
    search of ``iterations`` iterations: ``σ(a + b·x + Σ c_k·max(0, x − logit(knot_k)))`` with
    ``x = logit(reward)``, the constants of that budget's map (interpolated between fitted budgets;
    ``coefficients``: these instead).

    0 and 1 (a reward that only a certain result gives) stay 0 and 1.
    """
    if reward <= 0.0:
        return 0.0
    if reward >= 1.0:
        return 1.0
    x = logit(reward)
    if coefficients is not None:
        return sigmoid(_z(x, coefficients))
    return sigmoid(sum(w * _z(x, CALIBRATION_COEFFICIENTS[b]) for b, w in budget_weights(iterations)))
