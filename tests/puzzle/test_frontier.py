"""Counting by dynamic programming over a frontier (solver/puzzle/frontier.py,
its C twin solver/_frontier.c) against the enumerating search, an
independent brute-force counter, Kasteleyn's product formula and published
counts; the automatic choice; pieces in unlimited supply."""

from __future__ import annotations

import random
import threading
from decimal import Decimal, getcontext

import pytest

from quiltsolve.solver import CountTableFull as SolverCountTableFull
from quiltsolve.solver.geometry import Shape
from quiltsolve.solver.puzzle import (DEFAULT_TABLE_BYTES, HAVE_C_FRONTIER, METHODS, CountTableFull, PuzzleProblem,
                                      check_method, solve_puzzle)
from quiltsolve.solver.puzzle import frontier as F
from quiltsolve.solver.puzzle.clock import Clock
from quiltsolve.solver.puzzle.region import TRANSFORMS, parse_pieces
from quiltsolve.solver.puzzle.tables import prepare_tables
from quiltsolve.solver.stop import StopToken
from quiltsolve.solver.types import SolverInputError, SolveStatus
from quiltsolve.solver.validate import validate_tiling

PENTOMINOES = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
               ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
POOL = ["#", "##", "###", "##/#.", "####", "##/##", "###/#..", "###/.#.", "##./.##", "#####", "###/#.#"]
FRONTIER_ENGINES = ["python"] + (["c"] if HAVE_C_FRONTIER else [])


def count(rows, pieces=(), unlimited=(), *, method="frontier", mirror=True, use_all=True, **kw):
    r = solve_puzzle(rows, list(pieces), unlimited=list(unlimited), count=True, method=method, mirror=mirror,
                     use_all=use_all, time_limit=600, max_tilings=0, **kw)
    assert r.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE), r
    assert r.method == ("search" if method == "search" else r.method)
    return r.count, r.distinct


def dp(rows, pieces=(), unlimited=(), *, engine="auto", mirror=True, use_all=True, distinct=True):
    """The frontier count straight from frontier_count (no search anywhere)."""
    return F.frontier_count(tuple(rows), parse_pieces(pieces, allow_empty=True), parse_pieces(unlimited,
                            allow_empty=True), mirror, use_all, distinct, engine=engine, table_bytes=2**34)


# ------------------------------------------------ independent counters ---

def brute(rows, pieces, unlimited, *, mirror=True, use_all=True) -> tuple[int, int]:
    """Raw and distinct tilings by plain recursion over the first empty cell
    (sets of cells, every orientation; distinct via the canonical image under
    the region's symmetries). Knows nothing of the solver's tables."""
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."}
    shapes = [Shape.parse(p) for p in pieces]
    unl = [Shape.parse(p) for p in unlimited]
    kinds: dict[frozenset, list] = {}

    def orients(s):
        return [tuple(sorted(o.cells)) for o in s.orientations(mirror)]

    limited: dict = {}
    for s in shapes:
        key = s.canonical(mirror)
        limited.setdefault(key, [orients(s), 0])[1] += 1
    types = [(o, cnt) for o, cnt in limited.values()] + [(orients(s), None) for s in unl]
    order = sorted(cells)
    tilings: list[frozenset] = []

    def rec(free: set, left: list, acc: list):
        if not free:
            if use_all and any(c for c in left if c is not None):
                return
            tilings.append(frozenset(acc))
            return
        first = min(free)
        for t, (os, _) in enumerate(types):
            if left[t] == 0:
                continue
            for o in os:
                # anchor the orientation's first cell (sorted) on the first free cell
                dr, dc = first[0] - o[0][0], first[1] - o[0][1]
                pl = frozenset((r + dr, c + dc) for r, c in o)
                if pl <= free:
                    if left[t] is not None:
                        left[t] -= 1
                    acc.append((t, pl))
                    rec(free - pl, left, acc)
                    acc.pop()
                    if left[t] is not None:
                        left[t] += 1

    rec(set(order), [cnt for _, cnt in types], [])
    if not tilings:
        return 0, 0
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    h = max(r for r, _ in cells) - r0 + 1
    w = max(c for _, c in cells) - c0 + 1
    norm = {(r - r0, c - c0) for r, c in cells}
    syms = [f for k, f in enumerate(TRANSFORMS) if (mirror or k < 4) and {f(r, c, h, w) for r, c in norm} == norm]

    def image(f, tiling):
        return frozenset((t, frozenset((a + r0, b + c0) for a, b in (f(r - r0, c - c0, h, w) for r, c in pl)))
                         for t, pl in tiling)

    canon = {min(sorted(tuple(sorted((t, tuple(sorted(pl))) for t, pl in image(f, T))) for f in syms))
             for T in tilings}
    return len(tilings), len(canon)


def kasteleyn(m: int, n: int) -> int:
    """Domino tilings of an m x n rectangle by Kasteleyn's product
    ``prod_{j <= m/2} prod_{k <= n/2} (4 cos^2(pi j/(m+1)) + 4 cos^2(pi k/(n+1)))``
    (0 when both sides are odd), in 150-digit decimals (pi by Machin's
    formula, cos by its Taylor series), rounded to the nearest integer."""
    if m % 2 and n % 2:
        return 0
    getcontext().prec = 150
    eps = Decimal(10) ** -148

    def arctan_inv(x: int) -> Decimal:
        x2, term, total, k = Decimal(x * x), Decimal(1) / x, Decimal(0), 0
        while term > eps:
            total += term / (2 * k + 1) * (-1 if k % 2 else 1)
            term /= x2
            k += 1
        return total

    def cos(x: Decimal) -> Decimal:
        total, term, k = Decimal(1), Decimal(1), 0
        while abs(term) > eps:
            k += 2
            term *= -x * x / (k * (k - 1))
            total += term
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    prod = Decimal(1)
    for j in range(1, m // 2 + 1):
        a = cos(pi * j / (m + 1))
        for k in range(1, n // 2 + 1):
            b = cos(pi * k / (n + 1))
            prod *= 4 * a * a + 4 * b * b
    return int(prod.to_integral_value())


# ---------------------------------------------------------------- API ---

def test_api_constants_and_errors():
    assert METHODS == ("auto", "search", "frontier") and DEFAULT_TABLE_BYTES == 512 * 2**20
    assert CountTableFull is SolverCountTableFull
    assert check_method("auto") == "auto"
    with pytest.raises(SolverInputError, match="method"):
        solve_puzzle(["..", ".."], ["##"] * 2, count=True, method="dp")
    with pytest.raises(SolverInputError, match="table_bytes"):
        solve_puzzle(["..", ".."], ["##"] * 2, count=True, table_bytes=0)
    with pytest.raises(SolverInputError, match="unlimited"):
        solve_puzzle(["..", ".."], ["##"], unlimited=["#/#"], count=True)
    with pytest.raises(SolverInputError, match="unlimited"):
        solve_puzzle(["..", ".."], ["##"], unlimited="##", count=True)
    p = PuzzleProblem.prepare(["...", "..."], ["##"] * 3)
    sub = p.restrict(p.extensions()[0])
    with pytest.raises(SolverInputError, match="method"):
        sub.count(method="frontier")
    assert sub.count(method="search").method == "search"
    assert sub.count(method="auto").method == "search"
    assert p.count().method == "search"           # the object's default
    assert solve_puzzle(["...", "..."], ["##"] * 3).method is None   # find mode


def test_table_bound():
    for engine in FRONTIER_ENGINES:
        with pytest.raises(CountTableFull) as e:
            F.frontier_count(("." * 10,) * 10, (), parse_pieces(["##"]), True, True, False, engine=engine,
                             table_bytes=20_000)
        assert e.value.table_bytes == 20_000 and "20000 bytes" in str(e.value)
    with pytest.raises(CountTableFull):
        solve_puzzle(["." * 10] * 10, [], unlimited=["##"], count=True, method="frontier", table_bytes=20_000)
    # auto falls back to the search
    r = solve_puzzle(["." * 6] * 4, [], unlimited=["##"], count=True, table_bytes=1000)
    assert (r.count, r.method) == (281, "search")


def test_cut_short_is_unknown():
    stop = StopToken()
    stop.set()
    r = PuzzleProblem.prepare(["." * 8] * 8, [], unlimited=["##"]).count(method="frontier", stop=stop)
    assert (r.status, r.count, r.distinct, r.method) == (SolveStatus.UNKNOWN, 0, 0, "frontier")
    r = solve_puzzle(["." * 8] * 8, [], unlimited=["##"], count=True, method="frontier", stop=stop)
    assert (r.status, r.count, r.distinct) == (SolveStatus.UNKNOWN, 0, 0)
    for engine in FRONTIER_ENGINES:
        tables = prepare_tables(("." * 14,) * 14, (), True, True, False, unlimited=parse_pieces(["##", "###"]))
        prob = F.frontier_problem(tables)
        with pytest.raises(F.Abort):
            F.run_dp(prob, Clock(deadline=0.0), 2**30, engine)


@pytest.mark.skipif(not HAVE_C_FRONTIER, reason="C frontier not built")
def test_stop_token_reaches_the_c_count():
    # set from another thread while the C DP runs without the GIL
    stop = StopToken()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    try:
        r = PuzzleProblem.prepare(["." * 20] * 20, [], unlimited=["##", "##/#.", "##/##"]).count(
            method="frontier", stop=stop, time_limit=600, max_tilings=0)
    finally:
        timer.cancel()
    assert (r.status, r.count, r.distinct, r.method) == (SolveStatus.UNKNOWN, 0, 0, "frontier")


def test_frontier_lists_tilings_from_a_find():
    rows = ["." * 5] * 4
    r = solve_puzzle(rows, ["#"], unlimited=["##", "###"], count=True, method="frontier", max_tilings=3)
    assert r.method == "frontier" and r.count == count(rows, ["#"], ["##", "###"], method="search")[0]
    assert len(r.tilings) == 3 and len({frozenset(t) for t in r.tilings}) == 3
    mask = (1 << 20) - 1
    for t in r.tilings:
        validate_tiling(mask, 5, 4, [Shape.parse("#")], t, unlimited=[Shape.parse("##"), Shape.parse("###")])
    r = solve_puzzle(rows, ["#"], unlimited=["##", "###"], count=True, method="frontier", max_tilings=0)
    assert r.tilings == ()


def test_search_supports_unlimited():
    rows = ["." * 4] * 3
    r = solve_puzzle(rows, ["##/##"], unlimited=["##"], max_tilings=100)
    assert r.status is SolveStatus.OPTIMAL and len(r.tilings) == brute(rows, ["##/##"], ["##"])[0]
    for t in r.tilings:
        assert sum(1 for pp in t if pp.key == 0) == 1
        validate_tiling((1 << 12) - 1, 4, 3, [Shape.parse("##/##")], t, unlimited=[Shape.parse("##")])
    # no limited piece at all
    assert count(rows, [], ["##"], method="search") == brute(rows, [], ["##"])


# ------------------------------------------- random agreement (>= 200) ---

def random_case(rng: random.Random):
    h, w = rng.randint(1, 5), rng.randint(2, 5)
    rows = ["".join("#" if rng.random() < 0.15 else "." for _ in range(w)) for _ in range(h)]
    if not any("." in r for r in rows):
        rows[0] = "." + rows[0][1:]
    area = sum(r.count(".") for r in rows)
    mirror = rng.random() < 0.6
    use_all = rng.random() < 0.5
    unl = rng.sample(POOL[:6], rng.randint(1, 2)) if rng.random() < 0.5 else []
    pieces: list[str] = []
    budget = area if use_all else area + rng.randint(0, 4)
    while budget > 0 and len(pieces) < 8:
        p = rng.choice([x for x in POOL if x not in unl])
        a = p.count("#")
        if a > budget and use_all:
            if rng.random() < 0.9:
                continue
        pieces.append(p)
        budget -= a
        if rng.random() < 0.05:
            break
    if not pieces and not unl:
        pieces = ["#"]
    return rows, pieces, unl, mirror, use_all


CASES = [random_case(random.Random(seed)) for seed in range(220)]


@pytest.mark.parametrize("seed", range(len(CASES)))
def test_frontier_equals_search(seed):
    rows, pieces, unl, mirror, use_all = CASES[seed]
    want = count(rows, pieces, unl, method="search", mirror=mirror, use_all=use_all)
    got = count(rows, pieces, unl, method="frontier", mirror=mirror, use_all=use_all)
    assert got == want, (rows, pieces, unl, mirror, use_all)
    auto = count(rows, pieces, unl, method="auto", mirror=mirror, use_all=use_all)
    assert auto == want
    if seed % 4 == 0:   # the Python twin, and an independent brute force
        assert dp(rows, pieces, unl, engine="python", mirror=mirror, use_all=use_all) == (
            want[0], want[1] * PuzzleProblem.prepare(rows, pieces, unlimited=unl, mirror=mirror,
                                                   use_all=use_all).order)
        if sum(r.count(".") for r in rows) <= 16:
            assert brute(rows, pieces, unl, mirror=mirror, use_all=use_all) == want


@pytest.mark.skipif(not HAVE_C_FRONTIER, reason="C frontier not built")
@pytest.mark.parametrize("seed", range(0, 220, 5))
def test_c_equals_python(seed):
    rows, pieces, unl, mirror, use_all = CASES[seed]
    assert dp(rows, pieces, unl, engine="c", mirror=mirror, use_all=use_all) == \
        dp(rows, pieces, unl, engine="python", mirror=mirror, use_all=use_all)


@pytest.mark.skipif(not HAVE_C_FRONTIER, reason="C frontier not built")
def test_c_equals_python_bigger():
    # multi-limb values in C (16x16 dominoes: 31 digits), tracked copies, holes
    for rows, pieces, unl in ((["." * 16] * 16, [], ["##"]),
                              (["." * 9] * 9, [], ["##", "##/#.", "##/##"]),     # C in dense mode
                              (["." * 7] * 6, ["###/#..", "###/#..", "##/##"], ["##", "#"]),
                              (["..#....", ".......", "...#...", "......."], PENTOMINOES[:4], ["##"])):
        assert dp(rows, pieces, unl, engine="c") == dp(rows, pieces, unl, engine="python")


# ----------------------------------------------------- published counts ---

A004003 = {2: 2, 4: 36, 6: 6728, 8: 12988816, 10: 258584046368, 12: 53060477521960000}


@pytest.mark.parametrize("n", sorted(A004003))
def test_dominoes_square_a004003(n):
    assert count(["." * n] * n, [], ["##"])[0] == A004003[n]


def test_dominoes_rectangles_a099390():
    # T(m, n), A099390
    for (m, n), want in {(2, 3): 3, (3, 4): 11, (2, 10): 89, (4, 5): 95, (5, 6): 1183, (4, 7): 781,
                         (6, 7): 31529, (7, 8): 1292697, (3, 3): 0}.items():
        assert count(["." * n] * m, [], ["##"])[0] == want
        assert count(["." * m] * n, [], ["##"])[0] == want


@pytest.mark.parametrize("m,n", [(1, 2), (2, 2), (3, 4), (5, 8), (9, 10), (11, 14), (14, 16), (17, 20), (20, 20)])
def test_dominoes_kasteleyn(m, n):
    assert dp(["." * n] * m, [], ["##"], distinct=False)[0] == kasteleyn(m, n)


def test_kasteleyn_formula_itself():
    assert [kasteleyn(n, n) for n in (2, 4, 6, 8)] == [2, 36, 6728, 12988816]


def test_l_trominoes():
    assert count(["." * 9] * 9, [], ["##/#."])[0] == 1_193_600
    assert count(["." * 9] * 12, [], ["##/#."])[0] == 467_966_840
    for h, w in ((2, 3), (3, 3), (3, 4), (2, 6), (4, 6), (6, 6)):
        rows = ["." * w] * h
        assert count(rows, [], ["##/#."]) == count(rows, [], ["##/#."], method="search")


def test_pentominoes_with_repeats_5x10():
    # A174249: the 12 free pentominoes, any number of each, mirror allowed
    assert count(["." * 10] * 5, [], PENTOMINOES)[0] == 101_698_212


@pytest.mark.parametrize("n,want", [(2, 5), (3, 56), (7, 214_689), (12, 6_048_166_230),
                                    (16, 21_583_392_631_817)])
def test_pentominoes_with_repeats_a174249(n, want):
    # A174249(n): 5 x n with pentominoes of any shape (the DP drops dead states on the way)
    assert dp(["." * n] * 5, [], PENTOMINOES, distinct=False)[0] == want


@pytest.mark.skipif(not HAVE_C_FRONTIER, reason="C frontier not built")
def test_c_drops_dead_states_and_agrees_with_python():
    # the C DP keeps fewer states than the Python one (which drops none), same counts
    rows = ["." * 10] * 6
    tables = prepare_tables(tuple(rows), (), True, True, False, unlimited=parse_pieces(PENTOMINOES))
    prob = F.frontier_problem(tables)
    status, data, peak, _ = F.frontier_c.count(prob.n, prob.reach, *F.c_arrays(prob), 2**30, 600.0, None)
    table = {0: 1}
    py_peak = 0
    for i in range(prob.n):     # the Python DP's table sizes, step by step
        new: dict[int, int] = {}
        for f, v in table.items():
            succ = [f >> 1] if f & 1 else [(f | m) >> 1 for m, _, _ in prob.groups[i] if not f & m]
            for k in succ:
                new[k] = new.get(k, 0) + v
        table = new
        py_peak = max(py_peak, len(table))
    assert status == 0 and int.from_bytes(data, "little") == table.get(0, 0) > 0
    assert peak < 0.8 * py_peak
    assert dp(rows, [], PENTOMINOES, engine="c") == dp(rows, [], PENTOMINOES, engine="python")


@pytest.mark.skipif(not HAVE_C_FRONTIER, reason="C frontier not built")
def test_c_threads_give_the_same_answers(monkeypatch):
    # the hash steps of big tables split in two shards (threads), the merge
    # steps in two key ranges, the dense pulls of big arrays in two halves;
    # answers, distinct too, the same
    cases = [(["." * 10] * 7, [], PENTOMINOES),
             (["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3, PENTOMINOES, []),
             (["." * 16] * 16, [], ["##", "##/#.", "##/##"]),         # dense: 2^17 frontiers
             (["." * 20] * 20, [], ["##"])]                            # merge: up to 184,756 states
    answers = []
    for rows, pieces, unl in cases:
        got = []
        for threads in (1, 2):
            monkeypatch.setattr(F, "C_THREADS", threads)
            got.append(dp(rows, pieces, unl, engine="c"))
        assert got[0] == got[1]
        answers.append(got[0])
    assert answers[1] == (520, 65 * 8)


def test_pentominoes_once():
    assert count(["." * 10] * 6, PENTOMINOES) == (9356, 2339)
    hole8 = ["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3
    assert count(hole8, PENTOMINOES) == (520, 65)


def test_distinct_dominoes_against_search():
    for n in (2, 4, 6):
        rows = ["." * n] * n
        assert count(rows, [], ["##"]) == count(rows, [], ["##"], method="search")
        assert count(rows, [], ["##"], mirror=False) == count(rows, [], ["##"], method="search", mirror=False)
    rows = ["." * 8] * 3
    assert count(rows, [], ["##", "##/#."]) == count(rows, [], ["##", "##/#."], method="search")


def test_auto_takes_the_search_past_the_c_keys():
    # 1x20 bars reach 381 cells ahead: only the Python DP could count them
    r = solve_puzzle(["." * 20] * 20, [], unlimited=["#" * 20], count=True)
    assert (r.status, r.count, r.distinct, r.method) == (SolveStatus.OPTIMAL, 2, 1, "search")
    assert count(["." * 5] * 5, [], ["#" * 5], method="frontier") == (2, 1)


def test_auto_picks():
    p = PuzzleProblem.prepare(["." * 8] * 8, [], unlimited=["##"])
    assert p.count(method="auto").method == "frontier"
    # limited copies estimated small: the frontier at once (with its symmetry break it beats the search there)
    assert solve_puzzle(["." * 10] * 6, PENTOMINOES, count=True).method == "frontier"
    assert solve_puzzle(["." * 10] * 6, PENTOMINOES, count=True, method="search").method == "search"
    # estimated large (17 types once each: 2^16 copy vectors): the search first, within its probe's budget
    from quiltsolve.solver.puzzle.choose import choose_method, search_budget
    big = PuzzleProblem.prepare(["." * 10] * 8, PENTOMINOES + ["####", "##/##", "###/#..", "###/.#.", "##./.##"])
    assert choose_method(big) == "search" and search_budget(big) > 2_000


# ------------------------------------------------- the DP's symmetry break ---

def symmetric_case(rng: random.Random):
    """A region with symmetries (a square or a rectangle, holes in whole
    orbits) and pieces filling it exactly, some used once (the break's
    candidates: X and the monomino sit on placements that symmetries fix)."""
    n = rng.randint(3, 5)
    h, w = (n, n) if rng.random() < 0.5 else (n, rng.choice([x for x in range(2, 7) if x != n]))
    grid = [["."] * w for _ in range(h)]
    for _ in range(rng.randint(0, 2)):
        r, c = rng.randrange(h), rng.randrange(w)
        images = {(r, c), (h - 1 - r, c), (r, w - 1 - c), (h - 1 - r, w - 1 - c)}
        if h == w:
            images |= {(c2, r2) for r2, c2 in images}
        for r2, c2 in images:
            grid[r2][c2] = "#"
    rows = ["".join(row) for row in grid]
    area = sum(row.count(".") for row in rows)
    once = ["#", ".#./###/.#.", "##/#.", "###/.#."]
    pieces = rng.sample(once, rng.randint(1, 2))
    while sum(p.count("#") for p in pieces) > area:
        pieces.pop()
    left = area - sum(p.count("#") for p in pieces)
    while left > 0:
        p = rng.choice([x for x in ("#", "##", "###", "##/#.", "##/##") if x.count("#") <= left])
        pieces.append(p)
        left -= p.count("#")
    return rows, pieces, rng.random() < 0.7


SYMMETRIC = [symmetric_case(random.Random(1000 + seed)) for seed in range(40)]


@pytest.mark.parametrize("seed", range(len(SYMMETRIC)))
def test_symmetry_break_keeps_the_counts(seed):
    rows, pieces, mirror = SYMMETRIC[seed]
    tables = prepare_tables(tuple(rows), tuple(parse_pieces(pieces)), mirror, True, False)
    btype, kept = F.symmetry_break(tables)
    unbroken = F.frontier_problem(tables)
    broken = F.puzzle_problems(tables, fixed=False)[0]
    clock = Clock(float("inf"), None)
    for engine in FRONTIER_ENGINES:
        want = 0 if unbroken is None else F.run_dp(unbroken, clock, 2**34, engine)
        got = 0 if broken is None else F.run_dp(broken, clock, 2**34, engine)
        assert got == want, (rows, pieces, mirror, engine, btype)
    placed_once = {tables.ptype[p] for p in range(tables.nplacements) if tables.counts[tables.ptype[p]] == 1}
    assert (btype >= 0) == bool(tables.syms and placed_once)
    if btype >= 0:      # the weights are the orbits' sizes: together, every placement of the type
        assert sum(kept.values()) == sum(1 for p in range(tables.nplacements) if tables.ptype[p] == btype)
    assert count(rows, pieces, mirror=mirror) == count(rows, pieces, mirror=mirror, method="search")
    if sum(r.count(".") for r in rows) <= 16:
        assert count(rows, pieces, mirror=mirror) == brute(rows, pieces, [], mirror=mirror)


def test_symmetry_break_weights_placements_that_symmetries_fix():
    # X in the middle of a 5x5 square is fixed by all 8 symmetries (weight 1);
    # off the middle its orbits have 4 or 8 members
    tables = prepare_tables(("." * 5,) * 5, tuple(parse_pieces([".#./###/.#."] + ["##"] * 10)), True, True, False)
    btype, kept = F.symmetry_break(tables)
    assert btype == 0
    centre = tuple(sorted(i for i, cell in enumerate(tables.cells) if cell in {(1, 2), (2, 1), (2, 2), (2, 3), (3, 2)}))
    assert kept[centre] == 1
    assert sorted(set(kept.values())) == [1, 4, 8] or sorted(set(kept.values())) == [1, 4]
    assert sum(kept.values()) == 9
    assert count(("." * 5,) * 5, [".#./###/.#."] + ["##"] * 10) == \
        count(("." * 5,) * 5, [".#./###/.#."] + ["##"] * 10, method="search")
