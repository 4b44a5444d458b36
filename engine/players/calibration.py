"""The search's reward as a win chance: a logistic calibration fitted on self-play.

The search's mean playout reward (``0.75 × win + 0.25 × a margin term``,
shrunk towards the parent's mean for rarely visited moves) ranks moves well
but is not a probability: a reward of 0.8 does not mean four wins in five.
:func:`win_chance` maps it through ``lapse + (1 - 2·lapse)·σ(a + b·logit(reward))``
(a logistic in the reward's logit that never quite reaches certainty) with
constants fitted by maximum likelihood on search-vs-search games
(``python -m bench review --fit``; the fit and the check of the calibrated
chances, bucket by bucket against the observed win rates, are in
docs/players.md). The map is increasing, so it never changes a ranking.

>>> win_chance(0.5) < 0.5 < win_chance(0.6)
True
>>> round(win_chance(0.9), 4), round(win_chance(0.1), 4)
(0.9686, 0.0241)
>>> win_chance(0.0), win_chance(1.0)
(0.0, 1.0)
"""

from __future__ import annotations

import math

CALIBRATION_A = -0.2133
"""Intercept of the calibration, fitted by ``python -m bench review --fit`` (docs/players.md)."""
CALIBRATION_B = 1.8272
"""Slope on ``logit(reward)`` of the calibration, fitted by ``python -m bench review --fit``."""
CALIBRATION_LAPSE = 0.0100
"""The chance that even a game the search calls decided turns (the calibrated chance stays within
``[lapse, 1 - lapse]``), fitted by ``python -m bench review --fit``."""
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


def win_chance(reward: float, a: float = CALIBRATION_A, b: float = CALIBRATION_B,
               lapse: float = CALIBRATION_LAPSE) -> float:
    """The calibrated chance (0-1) that the player to move wins, from the search's mean reward (0-1):
    ``lapse + (1 - 2·lapse)·σ(a + b·logit(reward))``.

    0 and 1 (a reward that only a certain result gives) stay 0 and 1.
    """
    if reward <= 0.0:
        return 0.0
    if reward >= 1.0:
        return 1.0
    return lapse + (1.0 - 2.0 * lapse) * sigmoid(a + b * logit(reward))
