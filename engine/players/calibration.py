"""The search's reward as a win chance: a monotone logistic calibration fitted on self-play.

The search's mean playout reward (``0.75 × win + 0.25 × a margin term``,
shrunk towards the parent's mean for rarely visited moves) ranks moves well
but is not a probability: a reward of 0.8 does not mean four wins in five.
:func:`win_chance` maps it through ``σ(z(logit(reward)))``, where ``z`` is
piecewise linear in ``x = logit(reward)`` with bends at the logits of the
rewards :data:`CALIBRATION_KNOTS`:
``z(x) = a + b·x + Σ c_k·max(0, x − logit(knot_k))``. Every segment's slope
(``b`` plus the bends so far) is positive, so the map is increasing and never
changes a ranking; the fitted slopes rise towards an even reward and fall in
the tails (a reward near 0.5 says more than the logistic thought, one near 0
or 1 less). The constants are fitted by maximum likelihood on
search-vs-search games (``python -m bench review --fit``; the fit and the
check of the calibrated chances, bucket by bucket against the observed win
rates, are in docs/players.md).

>>> win_chance(0.5) < 0.5 < win_chance(0.6)
True
>>> round(win_chance(0.9), 4), round(win_chance(0.1), 4)
(0.9595, 0.0229)
>>> win_chance(0.0), win_chance(1.0)
(0.0, 1.0)
>>> all(s > 0 for s in segment_slopes())
True
"""

from __future__ import annotations

import math

CALIBRATION_KNOTS: tuple[float, ...] = (0.2, 0.35, 0.5, 0.65, 0.8)
"""The rewards at which the calibration's slope (in logit space) may change."""
CALIBRATION_COEFFICIENTS: tuple[float, ...] = (-0.5119, 1.4754, 0.1550, 0.0917, 0.2520, -0.4848, -0.2058)
"""``(a, b, c_1, …, c_5)`` of :func:`win_chance`: intercept, slope below the first knot and the change of
slope at each knot; fitted by ``python -m bench review --fit`` (docs/players.md)."""
FIT_ITERATIONS = 300
"""The search budget (iterations per move) of the games the constants were fitted on."""


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


def segment_slopes(coefficients: tuple[float, ...] = CALIBRATION_COEFFICIENTS) -> list[float]:
    """The slope of ``z`` in ``logit(reward)`` on each segment, lowest rewards first (all positive: increasing)."""
    slopes = [coefficients[1]]
    for c in coefficients[2:]:
        slopes.append(slopes[-1] + c)
    return slopes


def win_chance(reward: float, coefficients: tuple[float, ...] = CALIBRATION_COEFFICIENTS) -> float:
    """The calibrated chance (0-1) that the player to move wins, from the search's mean reward (0-1):
    ``σ(a + b·x + Σ c_k·max(0, x − logit(knot_k)))`` with ``x = logit(reward)``.

    0 and 1 (a reward that only a certain result gives) stay 0 and 1.
    """
    if reward <= 0.0:
        return 0.0
    if reward >= 1.0:
        return 1.0
    z = sum(c * f for c, f in zip(coefficients, features(logit(reward))))
    return sigmoid(z)
