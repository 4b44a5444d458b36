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
'search'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..types import SolverInputError
from .frontier import FrontierProblem, frontier_problem
from .tables import prepare_tables

if TYPE_CHECKING:
    from .problem import PuzzleProblem

__all__ = ["METHODS", "check_method", "choose_method", "search_budget", "frontier_work"]

METHODS = ("auto", "search", "frontier")

# Search nodes per unit of estimated frontier work (calibrated on the bench
# cases, both in C): the search probe may spend this fraction of the time the
# frontier is estimated to need before the frontier takes over.
NODES_PER_WORK = 0.5
PROBE_SHARE = 0.15
MIN_PROBE_NODES = 20_000


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


def _frontier_of(problem: PuzzleProblem) -> FrontierProblem | None:
    key = "frontier"
    if key not in problem._aux:
        t = problem.tables
        tables = t if t.break_type < 0 else prepare_tables(problem.rows, problem.shapes, problem.mirror,
                                                           problem.use_all, False, unlimited=problem.unlimited)
        problem._aux[key] = frontier_problem(tables)
    return problem._aux[key]


def frontier_work(prob: FrontierProblem) -> float:
    """The estimated work of a frontier DP: ``sum over cells of states x
    (1 + placements anchored there)``, with states bounded by
    ``2 ** (reach - 1)`` frontiers times the copy vectors of the tracked
    types, and by ``4 ** min(a, n - a) ...`` (few states near either end)."""
    copies = 1
    for c in prob.caps:
        copies *= c + 1
    frontiers = 2.0 ** max(0, prob.reach - 1)
    work = 0.0
    for a, g in enumerate(prob.groups):
        near_end = 2.0 ** min(a, prob.n - a, 60)
        work += min(frontiers * copies, near_end * copies) * (1 + len(g))
    return work


def choose_method(problem: PuzzleProblem) -> str:
    """``"search"`` or ``"frontier"``: ``"search"`` for a restricted problem,
    one without any tiling by area, and one where the DP counts copies of
    limited pieces (the search is then tried first, :func:`search_budget`)."""
    if problem.restricted or not problem.area_ok:
        return "search"
    prob = _frontier_of(problem)
    if prob is None:
        return "frontier"         # no tiling: the DP knows at once
    return "search" if prob.caps else "frontier"


def search_budget(problem: PuzzleProblem) -> int:
    """Search nodes the search may take before ``auto`` turns to the
    frontier (0: no limit, the search counts alone)."""
    if problem.restricted or not problem.area_ok:
        return 0
    prob = _frontier_of(problem)
    if prob is None:
        return 0
    return int(max(MIN_PROBE_NODES, PROBE_SHARE * NODES_PER_WORK * frontier_work(prob)))
