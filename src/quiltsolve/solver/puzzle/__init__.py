"""Exact tiling puzzles: tile a region with pieces from a multiset.

``solve_puzzle`` finds one tiling (or a few), or counts them all: the raw
count and the count up to the region's symmetries. ``PuzzleProblem`` is the
same solver as an object: prepare a puzzle once, then count it, find
tilings, or cut its count into sub-problems (``solver.split``, the Ray
counter).

>>> r = solve_puzzle(["...", "..."], ["##", "##", "##"], count=True)
>>> r.status.name, r.count, r.distinct
('OPTIMAL', 3, 2)
>>> r = solve_puzzle("###/#.#/###", ["#"])
>>> r.status.name, [p.cells for p in r.tilings[0]]
('OPTIMAL', [[(1, 1)]])

How it works (see ``docs/puzzle.md``): the region's cells are numbered in
scan order along its shorter side; every placement of every piece type is
listed under its *anchor* (lowest-numbered cell). The search always fills the
lowest empty cell with each placement anchored there whose piece is still
available, so each tiling is met exactly once. Identical pieces form one type
with a count, so they are never permuted. The search runs in the C extension
``solver._exactcover`` when it is built, else in an identical pure-Python
search (same order, same answers).

Symmetry: G is the set of square symmetries (rotations only when
``mirror=False``) mapping the region onto itself. Distinct tilings are counted
by Burnside: ``distinct = sum over tilings T of |Stab(T)| / |G|``. When every
piece must be used and some piece occurs once, that piece is restricted to one
placement per G-orbit (the usual symmetry break) and every tiling found stands
for ``|G| / |Stab(P)|`` raw tilings, which makes counting up to |G| times faster.

>>> p = PuzzleProblem.prepare(["...", "..."], ["##", "##", "##"])
>>> [p.restrict(pre).count().count for pre in p.extensions()], p.count().count
([1, 2], 3)

Modules (each does one job): ``region`` (input parsing, symmetries),
``tables`` (the flat placement tables and their cache), ``search`` (the C
search ``solver._exactcover`` and its pure-Python twin, restarts), ``result``
(tilings as ``PlacedPatch`` tuples, count tallies), ``clock`` (time limit,
stop token, status codes), ``problem`` (``PuzzleProblem``, ``solve_puzzle``), ``generate``
(``generate_puzzle``: puzzles with exactly one solution), ``frontier`` (counting
by dynamic programming over a frontier, C twin ``solver._frontier``),
``choose`` (the automatic choice between the two counting methods).
"""

from ..types import CountTableFull
from .choose import METHODS, check_method
from .frontier import DEFAULT_TABLE_BYTES, HAVE_C_FRONTIER
from .generate import GeneratedPuzzle, generate_puzzle, plan_puzzle
from .problem import PrepareInterrupted, PuzzleProblem, check_options, solve_puzzle
from .region import TRANSFORM_NAMES, parse_pieces, parse_region, region_symmetries
from .result import CountTally
from .search import ENGINES, HAVE_C_SEARCH, check_engine

__all__ = ["solve_puzzle", "region_symmetries", "HAVE_C_SEARCH", "ENGINES", "PuzzleProblem", "CountTally",
           "PrepareInterrupted", "check_options", "check_engine", "parse_region", "parse_pieces", "TRANSFORM_NAMES",
           "generate_puzzle", "GeneratedPuzzle", "plan_puzzle", "CountTableFull", "DEFAULT_TABLE_BYTES", "METHODS",
           "check_method", "HAVE_C_FRONTIER"]
