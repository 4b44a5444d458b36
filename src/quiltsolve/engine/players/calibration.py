"""The search's win chance: one model of a move's search statistics and the search's budget, fitted on self-play.

The search's mean playout reward (``0.75 × win + 0.25 × a margin term``,
shrunk towards the root's mean for rarely visited moves) ranks moves well
but is not a probability, and what it means depends on how deep the search
went and how near the end the game is. :func:`win_chance` maps it through
one logistic model (``engine/data/winchance.json``), for every budget:

    x = logit(reward)                         (the reward clipped to [1e-6, 1 - 1e-6])
    r_m = (log10(iterations) - k_(m-1)) / (k_m - k_(m-1))  clamped to [0, 1]  (the budget: iterations reached)
    s = spaces_left / 106                     clamped to [0, 1]  (both players' time-track spaces still to go)
    P(win) = σ( Σ_j (a_j + Σ_m b_mj·r_m + c_j·s + Σ_m e_mj·r_m·s) · B_j(x) )

``B_j`` are cubic B-splines of ``x`` on the fitted knots, continued
linearly beyond the outer knots (scikit-learn's
``SplineTransformer(extrapolation="linear")``, evaluated here in plain
Python: scikit-learn is needed only to fit). ``k`` are the budget knots in
log10(iterations): the outer two the budgets the model was fitted between
(300 iterations to what 1 s reached; beyond them the nearest holds), the
inner ones where the budget's effect may bend; the ``e`` rows (optional)
let the phase weigh differently at each budget. The B-splines sum to 1, so
the model needs no intercept. At every budget knot and phase 0 or 1 the
coefficients never decrease with ``j`` (the fit makes them so), so the
chance never decreases as the reward grows, at any budget and phase
(:func:`is_increasing`; the coefficients are bilinear in the ramps and
``s`` between two knots):
the model never reverses a ranking. It is
fitted by ``python -m bench review --fit`` (scikit-learn's logistic
regression) on self-play games of ``python -m bench selfplay``, and checked
on held-out games by ``python -m bench review`` (docs/players.md).

A reward of 0 or 1 (a result only a certain outcome gives) stays 0 or 1, and
proven moves never come here: the endgame solver's answers show exactly 1, 0
or the tie rule's answer (:func:`engine.players.proven.proof_chance`).

>>> win_chance(0.4, 3000) < win_chance(0.5, 3000) < win_chance(0.6, 3000)
True
>>> win_chance(0.0, 300), win_chance(1.0, 300)
(0.0, 1.0)
>>> is_increasing(MODEL)
True
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

FORMAT = "quiltsolve-winchance/1"
REWARD_EPS = 1e-6
"""Rewards are clipped to [REWARD_EPS, 1 - REWARD_EPS] before their logit."""
STEP_TOLERANCE = 1e-9
"""How far a spline coefficient may fall below the one before it in :func:`is_increasing`: the rounding of
the fit's sums (a step held at 0 can come out as -1e-16 at a corner), far below what a shown chance shows."""
SPACES = 106
"""Time-track spaces both players have to go at the start (53 each): ``s = spaces_left / SPACES``."""


def logit(p: float) -> float:
    """log(p / (1 - p)) for 0 < p < 1."""
    return math.log(p / (1.0 - p))


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x), without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _levels(knots: tuple[float, ...], degree: int, x: float) -> list[list[float]]:
    """The B-spline bases of degree 0…``degree`` at ``x`` (Cox-de Boor), level d holding len(knots) - d - 1."""
    m = len(knots) - 1
    level = [1.0 if knots[i] <= x < knots[i + 1] else 0.0 for i in range(m)]
    out = [level]
    for d in range(1, degree + 1):
        nxt = []
        for i in range(m - d):
            v = 0.0
            if level[i]:
                v += (x - knots[i]) / (knots[i + d] - knots[i]) * level[i]
            if level[i + 1]:
                v += (knots[i + d + 1] - x) / (knots[i + d + 1] - knots[i + 1]) * level[i + 1]
            nxt.append(v)
        level = nxt
        out.append(level)
    return out


def bspline_basis(knots: tuple[float, ...], degree: int, x: float) -> list[float]:
    """The ``len(knots) - degree - 1`` B-splines of ``degree`` on ``knots`` at ``x``, continued linearly
    (value and slope at the nearer outer knot) beyond ``knots[degree]`` and ``knots[-degree - 1]``: what
    scikit-learn's ``SplineTransformer(extrapolation="linear")`` gives.

    >>> k = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0)
    >>> [round(v, 6) for v in bspline_basis(k, 3, 0.5)], round(sum(bspline_basis(k, 3, 9.0)), 12)
    ([0.020833, 0.479167, 0.479167, 0.020833], 1.0)
    """
    lo, hi = knots[degree], knots[-degree - 1]
    if lo <= x < hi:
        return _levels(knots, degree, x)[degree]
    edge = lo if x < lo else hi
    # at the right end evaluate on the last interval (scipy's convention), nudging below hi
    at = edge if edge == lo else math.nextafter(hi, -math.inf)
    levels = _levels(knots, degree, at)
    value = levels[degree]
    if x == hi:
        return value
    lower = levels[degree - 1]
    n = len(value)
    slope = []
    for j in range(n):
        d = 0.0
        if knots[j + degree] != knots[j]:
            d += lower[j] / (knots[j + degree] - knots[j])
        if knots[j + degree + 1] != knots[j + 1]:
            d -= lower[j + 1] / (knots[j + degree + 1] - knots[j + 1])
        slope.append(degree * d)
    return [v + (x - edge) * g for v, g in zip(value, slope)]


def _read_rows(raw: Any) -> tuple[tuple[float, ...], ...]:
    """Coefficient rows, one per budget ramp, from JSON: a list of rows, or one flat row (two budget knots:
    the one ramp, the first format's shape)."""
    rows = raw if raw and isinstance(raw[0], list) else [raw]
    return tuple(tuple(float(v) for v in row) for row in rows)


def _write_rows(rows: tuple[tuple[float, ...], ...]) -> list[Any]:
    """The JSON :func:`_read_rows` reads: one ramp's row flat (as the first format wrote it)."""
    return list(rows[0]) if len(rows) == 1 else [list(row) for row in rows]


def spline_value(coefficients: list[float], basis: list[float]) -> float:
    """``Σ_j c_j·basis_j`` for a basis that sums to 1 (a B-spline basis, continued linearly or not), with the
    coefficients made non-decreasing first (each ``c_j`` at least ``c_(j−1)``) and summed as their steps:
    ``c_f + Σ_(j>f) (c_j − c_(j−1))·Σ_(i≥j) basis_i``, ``f`` the first basis function not 0.

    For the coefficients of a model :func:`is_increasing` accepts, that is the plain sum up to its
    ``STEP_TOLERANCE``. Why not the plain sum: at an increasing model's flat stretch the coefficients, each
    computed from the budget and phase, may fall by their last bit from one to the next, and a total of the
    basis differs from 1 in its last bit from one ``x`` to the next; either could reverse two rewards'
    order. Summed so, a flat stretch is exactly flat and the curve never decreases.

    >>> spline_value([2.0, 2.0, 2.0, 3.0], [0.0, 0.1, 0.7, 0.2])
    2.2
    >>> spline_value([1.0, 1.0 - 1e-16, 1.0], [0.0, 0.5, 0.5])
    1.0
    """
    rising = list(coefficients)
    for j in range(1, len(rising)):
        rising[j] = max(rising[j], rising[j - 1])
    first = next((j for j, v in enumerate(basis) if v != 0.0), 0)
    total, tail = rising[first], 0.0
    for j in range(len(basis) - 1, first, -1):
        tail += basis[j]
        total += (rising[j] - rising[j - 1]) * tail
    return total


@dataclass(frozen=True)
class WinChanceModel:
    """The fitted model (``engine/data/winchance.json``): the spline's knots and degree, the budget's knots in
    log10(iterations) (two or more, rising), and the coefficients ``a`` (base), ``b`` (one row per budget ramp:
    × r_m, see :meth:`ramps`) and ``c`` (× s, the phase). With two budget knots the one ramp is ``t``."""

    knots: tuple[float, ...]
    degree: int
    log_iterations: tuple[float, ...]
    a: tuple[float, ...]
    b: tuple[tuple[float, ...], ...]
    c: tuple[float, ...]
    fitted: dict[str, Any]
    e: tuple[tuple[float, ...], ...] = ()
    """Optional rows × r_m·s (the budget's ramps times the phase: the phase's weight may change with the
    budget); none: the phase's weight is the same at every budget."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "WinChanceModel":
        """The model of a JSON object; ``ValueError`` naming the field when it is not one."""
        if data.get("format") != FORMAT:
            raise ValueError(f"format: expected {FORMAT!r}, not {data.get('format')!r}")
        try:
            knots = tuple(float(k) for k in data["spline"]["knots"])
            degree = int(data["spline"]["degree"])
            budget_knots = tuple(float(v) for v in data["budget"]["log10_iterations"])
            coef = data["coefficients"]
            a, c = (tuple(float(v) for v in coef[k]) for k in ("base", "phase"))
            b = _read_rows(coef["budget"])
            by_phase = _read_rows(coef["budget_phase"]) if "budget_phase" in coef else ()
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise ValueError(f"a win-chance model needs spline.knots, spline.degree, budget.log10_iterations and "
                             f"coefficients.base/budget/phase ({e!r})") from None
        n = len(knots) - degree - 1
        rising = len(budget_knots) >= 2 and all(y > x for x, y in zip(budget_knots, budget_knots[1:]))
        if (degree < 1 or n < 1 or any(len(v) != n for v in (a, c, *b, *by_phase)) or not rising
                or len(b) != len(budget_knots) - 1 or by_phase and len(by_phase) != len(b)):
            raise ValueError(f"coefficients: {n} a kind for {len(knots)} knots of degree {degree}, one budget row "
                             f"per budget interval, and log10_iterations rising")
        return cls(knots, degree, budget_knots, a, b, c, dict(data.get("fitted", {})), by_phase)

    def to_json(self) -> dict[str, Any]:
        """The JSON object :meth:`from_json` reads."""
        coefficients: dict[str, Any] = {"base": list(self.a), "budget": _write_rows(self.b),
                                        "phase": list(self.c)}
        if self.e:
            coefficients["budget_phase"] = _write_rows(self.e)
        return {"format": FORMAT,
                "model": "P(win) = sigmoid(sum_j (base_j + sum_m budget_mj*r_m + phase_j*s + "
                         "sum_m budget_phase_mj*r_m*s) * B_j(logit(reward))) (no budget_phase: 0); "
                         "r_m = (log10(iterations) - k_(m-1)) / (k_m - k_(m-1)) clamped to [0, 1] for the budget "
                         "knots k (one ramp t with two knots); s = spaces_left / 106 clamped to [0, 1]; B_j cubic "
                         "B-splines continued linearly (engine/players/calibration.py)",
                "spline": {"knots": list(self.knots), "degree": self.degree},
                "budget": {"log10_iterations": list(self.log_iterations)},
                "coefficients": coefficients,
                "fitted": self.fitted}

    def ramps(self, iterations: int) -> tuple[float, ...]:
        """The budget's inputs: for each interval m of the budget knots, how far log10(iterations) has gone
        through it (0 below, 1 above), so the coefficients are piecewise linear in log10(iterations), bent at
        the knots and constant beyond the outer two."""
        x = math.log10(max(1, iterations))
        k = self.log_iterations
        return tuple(min(1.0, max(0.0, (x - lo) / (hi - lo))) for lo, hi in zip(k, k[1:]))

    def inputs(self, iterations: int, spaces_left: int | None) -> tuple[tuple[float, ...], float]:
        """(the budget's ramps, s): each in [0, 1] (an unknown phase: the middle, 0.5)."""
        s = 0.5 if spaces_left is None else spaces_left / SPACES
        return self.ramps(iterations), min(1.0, max(0.0, s))

    def corners(self) -> list[tuple[float, ...]]:
        """The ramps at each budget knot: between two the coefficients are affine in log10(iterations)."""
        m = len(self.b)
        return [tuple(1.0 if i < j else 0.0 for i in range(m)) for j in range(m + 1)]

    def coefficients_at(self, ramps: tuple[float, ...] | float, s: float) -> list[float]:
        """The spline's coefficients for the budget's ``ramps`` (a number: ``t`` of the one ramp) and phase
        ``s`` (in [0, 1])."""
        r = (ramps,) if isinstance(ramps, (int, float)) else tuple(ramps)
        return [a + sum(rm * row[j] for rm, row in zip(r, self.b)) + c * s
                + s * sum(rm * row[j] for rm, row in zip(r, self.e))
                for j, (a, c) in enumerate(zip(self.a, self.c))]

    def z(self, reward: float, iterations: int, spaces_left: int | None = None) -> float:
        """The model's log-odds for a reward in (0, 1)."""
        r = min(1.0 - REWARD_EPS, max(REWARD_EPS, reward))
        ramps, s = self.inputs(iterations, spaces_left)
        return spline_value(self.coefficients_at(ramps, s), bspline_basis(self.knots, self.degree, logit(r)))

    def chance(self, reward: float, iterations: int, spaces_left: int | None = None) -> float:
        """The calibrated win chance (see :func:`win_chance`)."""
        if reward <= 0.0:
            return 0.0
        if reward >= 1.0:
            return 1.0
        return sigmoid(self.z(reward, iterations, spaces_left))


def is_increasing(model: WinChanceModel) -> bool:
    """Whether the model's chance never decreases as the reward grows, for every budget and phase, and
    rises somewhere: at each budget knot and phase 0 or 1 its spline coefficients never decrease and do rise
    (they are bilinear in log10(iterations) and s on each rectangle between two budget knots, so then
    everywhere; a spline whose coefficients never decrease never decreases, nor does its linear
    continuation), up to :data:`STEP_TOLERANCE`. The fit makes every model so."""
    for r in model.corners():
        for s in (0.0, 1.0):
            c = model.coefficients_at(r, s)
            if any(hi < lo - STEP_TOLERANCE for lo, hi in zip(c, c[1:])) or not c[-1] > c[0]:
                return False
    return True


def load_model(text: str | None = None) -> WinChanceModel:
    """The committed model (``engine/data/winchance.json``), or the one in ``text`` (JSON)."""
    if text is None:
        text = resources.files("quiltsolve.engine").joinpath("data/winchance.json").read_text(encoding="utf-8")
    return WinChanceModel.from_json(json.loads(text))


MODEL = load_model()
"""The committed model, loaded once."""


def win_chance(reward: float, iterations: int, spaces_left: int | None = None,
               model: WinChanceModel | None = None) -> float:
    """The calibrated chance (0-1) that the player to move wins after a move whose shrunk mean reward (0-1) is
    ``reward``, found by a search of ``iterations`` iterations with ``spaces_left`` time-track spaces to go
    (both players; None: mid-game), by the committed model (or ``model``). 0 and 1 stay 0 and 1."""
    return (model or MODEL).chance(reward, iterations, spaces_left)


__all__ = ["FORMAT", "MODEL", "WinChanceModel", "bspline_basis", "is_increasing", "load_model", "logit", "sigmoid",
           "spline_value", "win_chance"]
