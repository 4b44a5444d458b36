"""The unique-puzzle generator: every answer is re-counted independently
(the pure-Python search without the symmetry break, and for small ones a
brute-force tiler written here) and its solution checked by the
solver-free validator."""

from __future__ import annotations

from collections import Counter

import pytest

from quiltsolve.solver import PATCHES, Shape, SolverInputError, SolveStatus
from quiltsolve.solver.puzzle import generate_puzzle
from quiltsolve.solver.puzzle.generate import (DIFFICULTY_BANDS, PENTOMINOES, TETROMINOES, difficulty_label,
                                               family_pieces)
from quiltsolve.solver.puzzle.region import TRANSFORMS
from quiltsolve.solver.puzzle.search import search_once
from quiltsolve.solver.validate import validate_tiling

from .helpers import solve

FAMILY_SHAPES = {name: {Shape.parse(t).canonical() for t in family_pieces(name)[0]}
                 for name in ("pentominoes", "tetrominoes", "patches")}


def region_mask(rows) -> int:
    w = len(rows[0])
    return sum(1 << (r * w + c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == ".")


def check_unique(g, mirror=True):
    """The answer's claims, re-derived: one distinct tiling, the solution valid, the node count."""
    assert g.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
    assert g.distinct == 1
    cells = sum(r.count(".") for r in g.rows)
    assert cells == sum(Shape.parse(p).area for p in g.pieces)
    validate_tiling(region_mask(g.rows), g.width, g.height, [Shape.parse(p) for p in g.pieces], g.solution)
    recount = solve(list(g.rows), list(g.pieces), count=True, engine="python", symmetry_break=False)
    assert recount.status is SolveStatus.OPTIMAL
    assert (recount.count, recount.distinct) == (g.count, 1)
    assert g.difficulty == difficulty_label(g.nodes)


@pytest.mark.parametrize("family, size", [("pentominoes", (9, 9)), ("patches", (9, 9)), ("tetrominoes", (6, 6))])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_families_give_unique_puzzles(family, size, seed):
    g = generate_puzzle(size=size, family=family, seed=seed, time_limit=20.0)
    assert g.status is SolveStatus.OPTIMAL
    check_unique(g)
    assert (g.height, g.width) == size and all(len(r) == size[1] for r in g.rows)
    shapes = [Shape.parse(p).canonical() for p in g.pieces]
    assert set(shapes) <= FAMILY_SHAPES[family]
    if family != "tetrominoes":  # each of the 12 pentominoes / 33 patches at most once
        assert max(Counter(shapes).values()) == 1
    if family == "pentominoes":
        assert len(g.pieces) == 12 and sum(r.count(".") for r in g.rows) == 60
    if family == "patches":
        assert len(g.pieces) >= 10
        ids = [next(p.id for p in PATCHES if p.shape.canonical() == s) for s in shapes]
        assert len(set(ids)) == len(ids)


def test_same_seed_same_puzzle():
    a = generate_puzzle(family="patches", seed=7, time_limit=20.0)
    b = generate_puzzle(family="patches", seed=7, time_limit=20.0)
    c = generate_puzzle(family="patches", seed=8, time_limit=20.0)
    assert a == b.replace_time(a.wall_time)
    assert (a.rows, a.pieces) != (c.rows, c.pieces)


def brute_tilings(rows, pieces):
    """Every tiling of the region by all the pieces, as frozensets of (shape, cells): a plain
    recursion over the first empty cell and every orientation of every unused piece."""
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."}
    shapes = [Shape.parse(p) for p in pieces]
    out = []

    def rec(empty, left, acc):
        if not empty:
            out.append(frozenset(acc))
            return
        r, c = min(empty)
        tried = set()
        for i in left:
            if shapes[i] in tried:
                continue
            tried.add(shapes[i])
            for o in shapes[i].orientations(True):
                r0, c0 = o.cells[0]
                pc = frozenset((r + a - r0, c + b - c0) for a, b in o.cells)
                if pc <= empty:
                    rec(empty - pc, left - {i}, acc + [(shapes[i].canonical(), pc)])

    rec(frozenset(cells), frozenset(range(len(shapes))), [])
    return out, cells


def brute_distinct(rows, pieces) -> int:
    """Tilings up to the region's symmetries (those of the 8 mapping its cells onto themselves)."""
    tilings, cells = brute_tilings(rows, pieces)
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    h = max(r for r, _ in cells) - r0 + 1
    w = max(c for _, c in cells) - c0 + 1
    norm = {(r - r0, c - c0) for r, c in cells}
    syms = [f for f in TRANSFORMS if {f(r, c, h, w) for r, c in norm} == norm]
    classes = {min(tuple(sorted(tuple(sorted(f(r - r0, c - c0, h, w) for r, c in pc)) for _, pc in t))
                   for f in syms) for t in tilings}
    return len(classes), len(tilings)


@pytest.mark.parametrize("seed", range(4))
def test_small_puzzles_against_brute_force(seed):
    g = generate_puzzle(size=(5, 5), family="tetrominoes", seed=seed, time_limit=20.0)
    check_unique(g)
    distinct, raw = brute_distinct(g.rows, g.pieces)
    assert (distinct, raw) == (1, g.count)


def test_given_region_keeps_the_region():
    first = generate_puzzle(family="pentominoes", seed=3, time_limit=20.0)
    g = generate_puzzle(region=first.rows, family="pentominoes", seed=0, time_limit=20.0)
    assert g.status is SolveStatus.OPTIMAL and g.rows == first.rows
    check_unique(g)


def test_given_shapes():
    pieces = list(PENTOMINOES[:6]) + list(TETROMINOES)
    g = generate_puzzle(size=(7, 7), family=None, pieces=pieces, seed=1, time_limit=20.0)
    assert g.status is SolveStatus.OPTIMAL
    check_unique(g)
    assert not Counter(g.pieces) - Counter(Shape.parse(p).to_str() for p in pieces)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_difficulty_bands(difficulty):
    g = generate_puzzle(family="pentominoes", difficulty=difficulty, seed=2, time_limit=30.0)
    assert g.status is SolveStatus.OPTIMAL
    check_unique(g)
    lo, hi = DIFFICULTY_BANDS[difficulty]
    assert g.difficulty == difficulty and lo <= g.nodes < hi


def test_difficulty_nodes_are_the_find_search_nodes_of_both_engines():
    from quiltsolve.solver.puzzle import HAVE_C_SEARCH, PuzzleProblem
    g = generate_puzzle(family="patches", seed=4, time_limit=20.0)
    p = PuzzleProblem.prepare(list(g.rows), list(g.pieces))
    engines = ["python"] + (["c"] if HAVE_C_SEARCH else [])
    found = {e: search_once(p.tables, count=False, max_tilings=1, time_limit=60.0, engine=e) for e in engines}
    assert {e: r[4] for e, r in found.items()} == {e: g.nodes for e in engines}
    assert all(len(r[3]) == 1 for r in found.values())


def test_rectangle_runs_out_of_time():
    # the 6x10 rectangle has 2339 distinct pentomino tilings: never unique
    g = generate_puzzle(region=["." * 10] * 6, family="pentominoes", seed=0, time_limit=0.5)
    assert g.status is SolveStatus.UNKNOWN and g.rows == () and g.solution == () and g.attempts >= 1
    assert g.wall_time < 5  # stopped by its time limit (a loose bound: the machine may be busy)


def test_a_set_stop_token_ends_it_at_once():
    from quiltsolve.solver import StopToken

    stop = StopToken()
    stop.set()
    g = generate_puzzle(family="patches", seed=1, time_limit=30.0, stop=stop)
    assert g.status is SolveStatus.UNKNOWN and g.attempts == 0 and g.wall_time < 5


@pytest.mark.parametrize("kwargs, message", [
    (dict(family="hexominoes"), "unknown piece family"),
    (dict(size=(5, 5), region=["..."]), "not both"),
    (dict(family=None), "family or pieces"),
    (dict(difficulty="insane"), "unknown difficulty"),
    (dict(seed=-1), "seed"),
    (dict(time_limit=0), "time_limit"),
    (dict(size=(0, 5)), "size height"),
    (dict(region=["......."]), "covers exactly"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(SolverInputError, match=message):
        generate_puzzle(**kwargs)
