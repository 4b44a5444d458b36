"""The automatic choice of counting method (``method="auto"``).

Two methods count tilings: the search (``search.py``) visits every tiling,
so its time grows with their number; the frontier DP (``frontier.py``)
never visits one, its time grows with its states (``cells x states x
placements per anchor``). ``auto`` estimates the DP's work from its
problem; the search is tried first, with a node budget worth a fraction
of that estimate (:func:`search_budget`), when the DP would have to count
copies of limited pieces (the case the search usually wins); past the
budget the frontier counts. The formula is in ``docs/puzzle.md``.

>>> from .problem import PuzzleProblem
>>> choose_method(PuzzleProblem.prepare(["." * 8] * 8, [], unlimited=["##"]))
'frontier'
>>> choose_method(PuzzleProblem.prepare(["." * 10] * 6, ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.",
...     "#../##./.##", "#.../####", ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..",
...     ".#../####"]))
'frontier'
>>> choose_method(PuzzleProblem.prepare(["." * 10] * 8, ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.",
...     "#../##./.##", "#.../####", ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..",
...     ".#../####", "####", "##/##", "###/#..", "###/.#.", "##./.##"]))    # and the 5 tetrominoes
'search'
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..types import SolverInputError
from .clock import Clock
from .frontier import HAVE_C_FRONTIER, FrontierProblem, puzzle_problems, tables_for, uses_c

if TYPE_CHECKING:
    from .problem import PuzzleProblem

__all__ = ["METHODS", "check_method", "choose_method", "search_budget", "frontier_work", "frontier_seconds"]

METHODS = ("auto", "search", "frontier")

# The probe's budget (see search_budget): the frontier's time is estimated
# as 10 ** FRONTIER_LOG_SECONDS x (work / |G|) ** FRONTIER_WORK_EXP seconds
# (a fit, in log scale, of C frontier times with the DP's symmetry break
# against frontier_work, 12 cases with limited copies, 2026-12-03: within
# ~3x, 0.5 dex, but for one at 10x), the search runs SEARCH_NODES_PER_S nodes
# a second (C, measured on the 12 pentominoes: 15-18 M), and the probe may
# take PROBE_SHARE of the frontier's estimated time (at least MIN_PROBE_NODES
# nodes).
FRONTIER_LOG_SECONDS = -5.4
FRONTIER_WORK_EXP = 0.33
SEARCH_NODES_PER_S = 1.6e7
PROBE_SHARE = 0.15
MIN_PROBE_NODES = 2_000
# Limited pieces of more than one type with more placements than this: the
# search, without building the DP (20x20 with 64 large pieces: 130k
# placements, a reach of ~100 cells).
BIG_PLACEMENTS = 20_000
# A frontier estimated to take less than this (seconds) runs without a probe.
# On the limited cases measured, every frontier estimated under it took at
# most 0.4 s and was as fast as the search or faster, except on problems of
# a few milliseconds; where the two are close (the 12 pentominoes on 8x8
# minus the centre: 35 ms and 33 ms) an unfinished probe is pure loss. The
# most auto can lose here is about the estimate's error, a fraction of a second.
NO_PROBE_SECONDS = 0.15


def check_method(method) -> str:
    """``method`` checked: ``SolverInputError`` naming it unless one of :data:`METHODS`.

    >>> check_method("frontier")
    'frontier'
    >>> check_method("dp")
    Traceback (most recent call last):
    ...
    quiltsolve.solver.types.SolverInputError: method must be one of 'auto', 'search', 'frontier', not 'dp'
    """
    if not isinstance(method, str) or method not in METHODS:
        raise SolverInputError(f"method must be one of {', '.join(map(repr, METHODS))}, not {method!r}")
    return method


def _frontier_of(problem: PuzzleProblem, clock: Clock | None = None) -> FrontierProblem | None:
    deadline, stop = (math.inf, None) if clock is None else (clock.deadline, clock.stop)
    tables = tables_for(problem.tables, problem.rows, problem.shapes, problem.unlimited, problem.mirror,
                        problem.use_all, deadline=deadline, stop=stop)
    return puzzle_problems(tables, clock, fixed=False)[0]


def frontier_work(prob: FrontierProblem) -> float:
    """A frontier DP's work bound: ``sum over cells a of states(a) x (1 +
    placements anchored at a)``, with ``states(a) = min(2 ** (reach - 1),
    2 ** min(a, n - a)) x prod(copies + 1 of the tracked types)`` (a frontier
    has reach - 1 bits; few states near either end; the type whose copies
    the others imply, ``implied_slot``, left out)."""
    copies = 1
    for k, c in enumerate(prob.caps):
        if k != prob.implied_slot:       # its copies follow from the others': no more states
            copies *= c + 1
    frontiers = 2.0 ** max(0, prob.reach - 1)
    work = 0.0
    for a, g in enumerate(prob.groups):
        near_end = 2.0 ** min(a, prob.n - a, 60)
        work += min(frontiers * copies, near_end * copies) * (1 + len(g))
    return work


def choose_method(problem: PuzzleProblem, clock: Clock | None = None) -> str:
    """``"search"`` or ``"frontier"``: ``"search"`` for a restricted problem,
    one without any tiling by area, one whose DP state does not fit the C
    DP's 64-bit words (pieces reaching more than 64 cells ahead), and one
    where the DP counts copies of limited pieces and is estimated to take
    ``NO_PROBE_SECONDS`` or more (the search is then tried first,
    :func:`search_budget`). Building the DP's tables honours ``clock``
    (``clock.Abort``)."""
    if problem.restricted or not problem.area_ok:
        return "search"
    t = problem.tables
    unl = t.unlimited or (False,) * len(t.counts)
    if t.nplacements > BIG_PLACEMENTS and sum(1 for u in unl if not u) > 1:
        return "search"           # many big limited pieces: a frontier far past its bound, not worth building
    prob = _frontier_of(problem, clock)
    if prob is None:
        return "frontier"         # no tiling: the DP knows at once
    if HAVE_C_FRONTIER and not uses_c(prob):
        return "search"           # a state past the C keys (reach > 64: long pieces): the Python DP, hopeless
    if not prob.caps or frontier_seconds(prob) < NO_PROBE_SECONDS:
        return "frontier"
    return "search"


def search_budget(problem: PuzzleProblem) -> int:
    """Search nodes the search may take before ``auto`` turns to the
    frontier (0: no limit, the search counts alone)."""
    if problem.restricted or not problem.area_ok or problem.tables.nplacements > BIG_PLACEMENTS:
        return 0
    prob = _frontier_of(problem)
    if prob is None or (HAVE_C_FRONTIER and not uses_c(prob)):
        return 0
    return int(max(MIN_PROBE_NODES, PROBE_SHARE * SEARCH_NODES_PER_S * frontier_seconds(prob)))


def frontier_seconds(prob: FrontierProblem) -> float:
    """The frontier DP's estimated time in C (seconds): see ``FRONTIER_LOG_SECONDS``;
    with the DP's symmetry break its work is divided by the symmetry group's
    order (the break keeps about that share of the states: measured 5x
    faster on 6x10, |G| = 4, and 13x on 8x8 minus the centre, |G| = 8)."""
    return 10.0 ** FRONTIER_LOG_SECONDS * (frontier_work(prob) / prob.break_order) ** FRONTIER_WORK_EXP
