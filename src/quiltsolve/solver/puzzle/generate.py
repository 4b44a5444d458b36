"""Puzzles with exactly one solution: a seeded generator.

``generate_puzzle`` returns a region and a piece list whose tilings, up to
the region's symmetries, number exactly one, with the proof (the count of
the enumerating search, :class:`PuzzleProblem`), the solution and a
difficulty measure (search nodes to find the solution without hints).

>>> g = generate_puzzle(size=(5, 5), family="tetrominoes", seed=1, time_limit=10.0)
>>> g.status.name, g.distinct, len(g.rows), sum(r.count(".") for r in g.rows) == 4 * len(g.pieces)
('OPTIMAL', 1, 5, True)
>>> g == generate_puzzle(size=(5, 5), family="tetrominoes", seed=1, time_limit=10.0).replace_time(g.wall_time)
True

How (see ``docs/puzzle.md``): a seeded randomised search tiles the box (or
the given region) with pieces from the family's pool, leaving some cells
out as holes (pre-filled quilt cells) when the region is free; the holes
become ``#`` cells of the region and the pieces used become the piece list.
The solver then counts that puzzle's tilings (a second one ends the count
early); with exactly one distinct tiling the puzzle is kept if its
difficulty is in the asked band, else the next random tiling is tried, until
the time limit.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace
from typing import Sequence

from ..geometry import MAX_GRID, Shape
from ..patches import PATCHES
from ..stop import StopToken
from ..types import PlacedPatch, SolverInputError, SolveStatus
from .clock import DONE, ENOUGH
from .problem import PrepareInterrupted, PuzzleProblem
from .region import TRANSFORMS, parse_pieces, parse_region
from .search import search_once

__all__ = ["FAMILIES", "DIFFICULTIES", "DIFFICULTY_BANDS", "PENTOMINOES", "TETROMINOES", "DEFAULT_SIZES",
           "GeneratedPuzzle", "generate_puzzle", "plan_puzzle", "difficulty_label", "family_pieces"]

# The 12 free pentominoes (as in docs/puzzle.md and PuzzleProblem's doctest) and the 5 free tetrominoes.
PENTOMINOES = ("#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
               ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####")
TETROMINOES = ("####", "##/##", "#../###", ".#./###", "##./.##")

FAMILIES = ("pentominoes", "tetrominoes", "patches")
# The box searched when neither a size nor a region is given.
DEFAULT_SIZES = {"pentominoes": (9, 9), "tetrominoes": (6, 6), "patches": (9, 9), "shapes": (8, 8)}

DIFFICULTIES = ("easy", "medium", "hard")
# Difficulty bands: search nodes of the enumerating search to find the
# solution without hints (PuzzleProblem's find, one pass), [low, high).
DIFFICULTY_BANDS = {"easy": (0, 1000), "medium": (1000, 20_000), "hard": (20_000, math.inf)}

# A patches quilt keeps at least this many patches (when the box is big enough).
MIN_PATCHES = 10
# Random tilings: search nodes per attempt before starting over with new choices.
TILING_NODES = 4000


def family_pieces(family: str) -> tuple[tuple[str, ...], bool]:
    """The shapes of a family and whether each may be used any number of times.

    >>> len(family_pieces("pentominoes")[0]), len(family_pieces("patches")[0]), family_pieces("tetrominoes")[1]
    (12, 33, True)
    """
    if family == "pentominoes":
        return PENTOMINOES, False
    if family == "tetrominoes":
        return TETROMINOES, True
    if family == "patches":
        return tuple(p.shape.to_str() for p in PATCHES), False
    raise SolverInputError(f"unknown piece family {family!r}; use one of {', '.join(FAMILIES)}")


def difficulty_label(nodes: int) -> str:
    """The band of a node count.

    >>> difficulty_label(10), difficulty_label(5000), difficulty_label(10**6)
    ('easy', 'medium', 'hard')
    """
    for name, (lo, hi) in DIFFICULTY_BANDS.items():
        if lo <= nodes < hi:
            return name
    raise AssertionError(nodes)


@dataclass(frozen=True)
class GeneratedPuzzle:
    """A generated puzzle and its proof.

    ``status``: OPTIMAL when a puzzle with exactly one distinct tiling was
    found and proven and its difficulty is in the asked band (or none was
    asked); FEASIBLE when only puzzles outside the band were found in time
    (the closest one is returned); UNKNOWN when time ran out before any
    unique puzzle (then the other fields are empty).
    """

    status: SolveStatus
    rows: tuple[str, ...] = ()                 # the region: '.' to tile, '#' not in it (pre-filled)
    pieces: tuple[str, ...] = ()               # one shape string per copy
    solution: tuple[PlacedPatch, ...] = ()     # the one tiling; keys index ``pieces``
    count: int = 0                             # raw tilings (the images of the one under symmetries)
    distinct: int = 0                          # tilings up to the region's symmetries: 1
    nodes: int = 0                             # difficulty: search nodes to find the solution
    difficulty: str = ""                       # its band (DIFFICULTY_BANDS)
    attempts: int = 0                          # random tilings tried
    wall_time: float = 0.0
    width: int = 0
    height: int = 0

    def replace_time(self, wall_time: float) -> GeneratedPuzzle:
        """The same answer with another wall time (to compare two runs)."""
        return replace(self, wall_time=wall_time)


# ----------------------------------------------------------- the pool ---

@dataclass(frozen=True)
class _Type:
    text: str                                       # shape string as handed back
    area: int
    copies: int                                     # available (a large number when unlimited)
    orients: tuple[tuple[tuple[int, int], ...], ...]  # cell offsets from the first cell (row-major)


def _types(pieces: Sequence[str], unlimited: bool, max_cells: int) -> list[_Type]:
    shapes = parse_pieces(list(pieces))
    by_shape: dict[Shape, list] = {}
    for text, s in zip(pieces, shapes):
        key = s.canonical()
        if key in by_shape:
            by_shape[key][1] += 1
        else:
            by_shape[key] = [s.to_str(), 1, s]
    out = []
    for text, copies, s in by_shape.values():
        orients = []
        for o in s.orientations(True):
            r0, c0 = o.cells[0]
            orients.append(tuple((r - r0, c - c0) for r, c in o.cells))
        out.append(_Type(text, s.area, max_cells if unlimited else copies, tuple(orients)))
    return out


def _reachable(types: Sequence[_Type], area: int) -> bool:
    """Some multiset of the pool covers exactly ``area`` cells."""
    ok = 1  # bit k: area k reachable
    full = (1 << (area + 1)) - 1
    for t in types:
        for _ in range(min(t.copies, area // t.area)):
            ok = (ok | ok << t.area) & full
    return bool(ok >> area & 1)


# ------------------------------------------------------- random tiling ---

class _Budget(Exception):
    pass


def _random_tiling(cells: frozenset, types: Sequence[_Type], holes: int,
                   min_pieces: int, rng: random.Random, node_budget: int):
    """A random tiling of ``cells`` by pool pieces and at most ``holes`` holes
    (cells left out), with at least ``min_pieces`` pieces: ``(pieces as
    (type, cells), holes)`` or None when the node budget ran out."""
    order = sorted(cells)
    empty = set(cells)
    copies = [t.copies for t in types]
    pool_area = sum(min(t.copies, len(cells) // t.area + 1) * t.area for t in types)
    placed: list[tuple[int, tuple]] = []
    hole_cells: list = []
    nodes = [0]

    def dfs(i: int, holes_left: int, area_left: int) -> bool:
        nodes[0] += 1
        if nodes[0] > node_budget:
            raise _Budget
        while i < len(order) and order[i] not in empty:
            i += 1
        if i == len(order):
            return len(placed) >= min_pieces
        if len(empty) > holes_left + area_left:
            return False
        r, c = order[i]
        options: list = []
        for k in rng.sample(range(len(types)), len(types)):
            if not copies[k]:
                continue
            t = types[k]
            for o in rng.sample(t.orients, len(t.orients)):
                pc = tuple((r + dr, c + dc) for dr, dc in o)
                if all(q in empty for q in pc):
                    options.append((k, pc))
        hole = holes_left > 0
        if hole and rng.random() < holes_left / len(empty):
            options.insert(0, None)
        elif hole:
            options.append(None)
        for opt in options:
            if opt is None:
                empty.discard((r, c))
                hole_cells.append((r, c))
                if dfs(i + 1, holes_left - 1, area_left):
                    return True
                hole_cells.pop()
                empty.add((r, c))
                continue
            k, pc = opt
            empty.difference_update(pc)
            copies[k] -= 1
            placed.append(opt)
            if dfs(i + 1, holes_left, area_left - types[k].area):
                return True
            placed.pop()
            copies[k] += 1
            empty.update(pc)
        return False

    try:
        found = dfs(0, holes, pool_area)
    except _Budget:
        return None
    return (list(placed), list(hole_cells)) if found else None


# ----------------------------------------------------------- checking ---

def _unique(problem: PuzzleProblem, deadline: float, stop: StopToken | None):
    """``(verdict, count result)``: verdict True when proven exactly one
    distinct tiling, False when more (or none), None when time ran out."""
    remaining = deadline - time.perf_counter()
    if remaining <= 0:
        return None, None
    if problem.order == 1:
        # no symmetry: a second tiling found ends the search early
        status, _raw, _num, sols, _nodes = search_once(problem.tables, count=False, max_tilings=2,
                                                       time_limit=remaining, stop=stop)
        if status == ENOUGH:
            return False, None
        if status != DONE:
            return None, None
        if len(sols) != 1:
            return False, None
    remaining = deadline - time.perf_counter()
    if remaining <= 0:
        return None, None
    result = problem.count(max_tilings=1, time_limit=remaining, stop=stop)
    if result.status not in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE):
        return None, None
    return result.distinct == 1, result


def _solve_nodes(problem: PuzzleProblem, deadline: float, stop: StopToken | None) -> int | None:
    """Search nodes to find the solution without hints: one pass of the find search (None: out of time)."""
    remaining = deadline - time.perf_counter()
    if remaining <= 0:
        return None
    status, _raw, _num, sols, nodes = search_once(problem.tables, count=False, max_tilings=1, time_limit=remaining,
                                                  stop=stop)
    return nodes if status == ENOUGH else None


def _band_distance(nodes: int, band: tuple[float, float]) -> float:
    lo, hi = band
    if nodes < lo:
        return math.log((lo + 1) / (nodes + 1))
    if nodes >= hi:
        return math.log((nodes + 1) / (hi + 1))
    return 0.0


# ------------------------------------------------------------------ API ---

def _box(size, region) -> tuple[tuple[str, ...], bool]:
    """The rows to tile and whether holes may be cut (a size: yes; a region: no)."""
    if region is not None:
        if size is not None:
            raise SolverInputError("give a size or a region, not both")
        rows, _, _ = parse_region(region)
        return rows, False
    h, w = size
    for name, v in (("height", h), ("width", w)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_GRID:
            raise SolverInputError(f"size {name} must be 1-{MAX_GRID}, not {v!r}")
    return tuple("." * w for _ in range(h)), True


@dataclass(frozen=True)
class _Plan:
    rows: tuple[str, ...]       # the box or region
    cells: frozenset            # its cells to tile
    types: tuple[_Type, ...]    # the pool
    holes: int                  # at most this many cells left out
    min_pieces: int


def plan_puzzle(*, size: tuple[int, int] | None = None, region=None, family: str | None = "pentominoes",
                pieces: Sequence[str] | None = None, difficulty: str | None = None) -> _Plan:
    """The checked inputs of :func:`generate_puzzle` (``SolverInputError``
    when they cannot make a puzzle): what the service checks a request with."""
    if pieces is not None:
        if family is not None:
            raise SolverInputError("give a piece family or pieces, not both")
        texts, unlimited, kind = tuple(pieces), False, "shapes"
    elif family is None:
        raise SolverInputError("give a piece family or pieces")
    else:
        (texts, unlimited), kind = family_pieces(family), family
    if difficulty is not None and difficulty not in DIFFICULTY_BANDS:
        raise SolverInputError(f"unknown difficulty {difficulty!r}; use one of {', '.join(DIFFICULTIES)}")
    if size is None and region is None:
        size = DEFAULT_SIZES[kind]
    rows, free = _box(size, region)
    cells = frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == ".")
    types = _types(texts, unlimited, len(cells))
    min_area = min(t.area for t in types)
    pool_area = sum(t.copies * t.area for t in types)
    min_pieces = 1
    if free:
        # cut out up to a quarter of the box (at least what the pool cannot cover), plus slack to
        # round down to a piece area: scattered holes make unique tilings common (a box with only
        # a few holes has tens to thousands of tilings); patches: a third, so that about 10
        # patches fit a 9x9 quilt
        frac = 1 / 3 if kind == "patches" else 1 / 4
        holes = max(len(cells) - pool_area, math.ceil(len(cells) * frac)) + min_area - 1
        if kind == "patches":
            min_pieces = min(MIN_PATCHES, len(cells) // 8)
        holes = min(holes, len(cells) - min_area)
    else:
        holes = 0
        if not _reachable(types, len(cells)):
            raise SolverInputError(f"no choice of the pieces covers exactly the region's {len(cells)} cells")
    if holes < 0 or len(cells) < min_area:
        raise SolverInputError(f"the region has {len(cells)} cells; the smallest piece has {min_area}")
    return _Plan(rows, cells, tuple(types), holes, min_pieces)


def generate_puzzle(*, size: tuple[int, int] | None = None, region=None, family: str | None = "pentominoes",
                    pieces: Sequence[str] | None = None, difficulty: str | None = None, seed: int = 0,
                    time_limit: float = 10.0, stop: StopToken | None = None) -> GeneratedPuzzle:
    """A puzzle whose tilings, up to the region's symmetries, number exactly one.

    ``size`` (height, width): the region is that box with some cells cut out
    (holes, ``#``; for patches the pre-filled quilt cells); ``region`` (rows
    as ``solve_puzzle`` takes them): the region is exactly that and only the
    pieces are chosen. Neither: the family's ``DEFAULT_SIZES`` box.
    ``family``: ``pentominoes`` (each of the 12 at most once),
    ``tetrominoes`` (the 5, any number of copies), ``patches`` (the 33
    Patchwork patches, each at most once; at least 10 on a 9x9 quilt), or
    ``pieces``: shape strings (each copy at most once) instead of a family.
    ``difficulty``: ``easy``, ``medium`` or ``hard`` (``DIFFICULTY_BANDS``),
    None for any. Same ``seed``, same arguments: same puzzle (unless the
    time limit cuts the search at a different attempt).
    """
    t0 = time.perf_counter()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SolverInputError(f"seed must be an int >= 0, not {seed!r}")
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not math.isfinite(time_limit)
            or time_limit <= 0):
        raise SolverInputError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
    plan = plan_puzzle(size=size, region=region, family=family, pieces=pieces, difficulty=difficulty)
    rows, cells, types = plan.rows, plan.cells, plan.types
    height, width = len(rows), len(rows[0])
    band = DIFFICULTY_BANDS[difficulty] if difficulty else (0, math.inf)
    deadline = t0 + time_limit
    rng = random.Random(seed)
    best: tuple[float, GeneratedPuzzle] | None = None
    seen: set = set()
    attempts = 0
    while time.perf_counter() < deadline and not (stop is not None and stop.is_set()):
        attempts += 1
        tiling = _random_tiling(cells, types, plan.holes, plan.min_pieces, rng, TILING_NODES)
        if tiling is None:
            continue
        placed, hole_cells = tiling
        if plan.holes:
            # the tiling fills cells in scan order, so its holes gather towards the end: turn
            # the box by one of its symmetries at random to spread that over its sides
            f = TRANSFORMS[rng.choice(range(8) if height == width else (0, 2, 4, 5))]
            hole_cells = [f(r, c, height, width) for r, c in hole_cells]
        grid = [list(r) for r in rows]
        for r, c in hole_cells:
            grid[r][c] = "#"
        prows = tuple("".join(r) for r in grid)
        # pieces in pool order, one string per copy
        used = sorted(k for k, _ in placed)
        ptexts = tuple(types[k].text for k in used)
        key = (prows, ptexts)
        if key in seen:
            continue
        seen.add(key)
        try:
            problem = PuzzleProblem.prepare(prows, ptexts, time_limit=max(1e-3, deadline - time.perf_counter()),
                                            stop=stop)
        except PrepareInterrupted:
            break
        verdict, result = _unique(problem, deadline, stop)
        if verdict is None:
            break
        if not verdict:
            continue
        nodes = _solve_nodes(problem, deadline, stop)
        if nodes is None:
            break
        found = GeneratedPuzzle(status=SolveStatus.OPTIMAL, rows=prows, pieces=ptexts, solution=result.tilings[0],
                                count=result.count, distinct=result.distinct, nodes=nodes,
                                difficulty=difficulty_label(nodes), attempts=attempts, width=width, height=height)
        dist = _band_distance(nodes, band)
        if best is None or dist < best[0]:
            best = (dist, found)
        if dist == 0:
            break
    wall = time.perf_counter() - t0
    if best is None:
        return GeneratedPuzzle(status=SolveStatus.UNKNOWN, attempts=attempts, wall_time=wall, width=width,
                               height=height)
    dist, found = best
    return replace(found, status=SolveStatus.OPTIMAL if dist == 0 else SolveStatus.FEASIBLE,
                   attempts=attempts, wall_time=wall)
