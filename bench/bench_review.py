"""Calibration of the review's win chances: predicted against observed, bucket by bucket (Wilson intervals).

    python -m bench review                    # 400 games, 300 iterations a move, 2 processes
    python -m bench review --games 40 --jobs 1
    python -m bench review --iterations 1000  # the check at another budget (its own map)
    python -m bench review --fit --games 4800 # refit the calibration's constants of a budget (other deals)
    python -m bench review --cache /tmp/games # keep / reuse the games on disk

Plays ``--games`` seeded search-vs-search games on the compiled core (``new_game(seed)`` deals, each side
searching ``--iterations`` iterations a move, as ``engine.players.search.search_moves`` does) in ``--jobs``
processes. At every decision it records the win chance the search shows for the player to move (the
best move's ``win_chance``: the reward calibrated for the budget, ``engine.players.calibration.win_chance``) and whether
that player went on to win. From each game it keeps one position per 10-point bucket of the shown chance
(a seeded draw among the game's positions in that bucket, so positions of one game do not crowd a bucket),
and prints for each bucket the mean predicted chance and the observed win rate with its 95% Wilson
interval; the calibration holds when every interval contains its prediction (docs/players.md). It also
prints the ten buckets' χ² (their squared standardised deviations summed) with its p-value: one figure for
the table, about 10 for a calibrated map; and the chance that a calibrated map would miss no bucket on
these very positions (each bucket's wins drawn from its positions' own predictions, exactly: about 60 %,
so a calibrated map still misses some bucket's interval in about 40 % of runs).

``--fit`` plays the games on other deals (seeds from 1,000,001) and fits the coefficients of the
``--iterations`` budget's map of ``engine.players.calibration.win_chance``
(``σ(a + b·x + Σ c_k·max(0, x − logit(knot_k)))``,
``x = logit(reward)``) by maximum likelihood (Fisher scoring) to the positions the check draws (one per game
per bucket, five draws, the buckets taken from the previous round's fit, four rounds from the raw reward's
buckets, so the answer does not depend on what is committed), printing them and each segment's slope (all
positive: the map is increasing) to commit as ``CALIBRATION_COEFFICIENTS[iterations]``. (Fitted to every decision
instead, the slopes come out lower: a game that stays near one chance for many moves then weighs more than
one passing through it, and the check counts games, not decisions; docs/players.md.)

``--cache DIR`` keeps each game in ``DIR/<core>-<iterations>it/<deal>.json`` (its decisions: reward, mover
won, both tokens' positions, the best move's and all root moves' playouts) and reads it back instead of
playing it again: a refit or a check of another map then takes seconds. Clear it when the search changes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from quiltsolve.engine import core, new_game
from quiltsolve.engine.games import wilson_interval
from quiltsolve.engine.players import calibration
from quiltsolve.engine.players.search import SearchPlayer, ranked_moves

FIT_SEED = 1_000_001


Decision = tuple[float, int, int, int, int, int]
"""One decision of a game: (raw reward shown for the mover, mover won, mover's time-track position, the other
player's position, playouts of the best move, playouts of all root moves)."""


def play_game(deal: int, iterations: int) -> list[Decision]:
    """One search-vs-search game of deal ``deal``: a :data:`Decision` per decision."""
    state = new_game(deal)
    sides = [SearchPlayer(iterations=iterations, seed=2 * deal), SearchPlayer(iterations=iterations, seed=2 * deal + 1)]
    seen: list[tuple[float, int, int, int, int, int]] = []
    while not state.is_terminal():
        mover = state.current_player()
        children = sides[mover]._search(state).children
        ranked = ranked_moves(children)
        reward, best = ranked[0]
        seen.append((reward, mover, state.players[mover].position, state.players[1 - mover].position,
                     best.n, sum(ch.n for ch in children)))
        assert best.action is not None
        state.apply_action(best.action)
    winner = state.winner()
    return [(reward, int(mover == winner), mine, theirs, n, total) for reward, mover, mine, theirs, n, total in seen]


def _cached_game(deal: int, iterations: int, cache: str | None) -> list[Decision]:
    """:func:`play_game`, read from / written to ``cache`` (a directory; None: no cache). A game depends only
    on its deal, the budget and the search's code: clear the cache when the search changes."""
    if cache is None:
        return play_game(deal, iterations)
    path = os.path.join(cache, f"{core.backend()}-{iterations}it", f"{deal}.json")
    try:
        with open(path) as f:
            return [tuple(d) for d in json.load(f)]  # type: ignore[misc]
    except (OSError, ValueError):
        pass
    game = play_game(deal, iterations)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(game, f)
    os.replace(tmp, path)
    return game


def _games(first: int, games: int, iterations: int, jobs: int, cache: str | None = None) -> list[list[Decision]]:
    deals = list(range(first, first + games))
    if jobs <= 1:
        return [_cached_game(d, iterations, cache) for d in deals]
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(_cached_game, deals, [iterations] * games, [cache] * games, chunksize=8))


def fit(points: list[tuple[float, int]], steps: int = 50) -> tuple[float, ...]:
    """Maximum-likelihood coefficients ``(a, b, c_1, …)`` of P(win) = σ(Σ coef · features(logit(reward)))
    (:func:`engine.players.calibration.features`: the knots' hinges) by Fisher scoring (Newton's method: the
    logistic's expected and observed information agree).

    >>> pts = [(0.3, 0), (0.3, 0), (0.3, 1), (0.7, 1), (0.7, 1), (0.7, 0), (0.9, 1), (0.1, 0), (0.6, 0), (0.4, 1)]
    >>> coef = fit(pts)
    >>> len(coef) == 2 + len(calibration.CALIBRATION_KNOTS) and coef[1] > 0
    True
    """
    rows = [(calibration.features(calibration.logit(min(max(r, 1e-6), 1 - 1e-6))), y) for r, y in points]
    k = len(rows[0][0])
    theta = [0.0, 1.0] + [0.0] * (k - 2)
    ridge = 1e-6                     # keeps the information invertible when a segment holds no point
    for _ in range(steps):
        grad = [0.0] * k
        info = [[0.0] * k for _ in range(k)]
        for f, y in rows:
            p = calibration.sigmoid(sum(t * v for t, v in zip(theta, f)))
            e = y - p
            w = p * (1.0 - p)
            nz = [(i, v) for i, v in enumerate(f) if v]
            for i, v in nz:
                grad[i] += e * v
                wv = w * v
                row = info[i]
                for j, u in nz:
                    row[j] += wv * u
        for i in range(k):
            info[i][i] += ridge
            grad[i] -= ridge * theta[i]
        step = _solve(info, grad)
        theta = [t + d for t, d in zip(theta, step)]
        if max(abs(d) for d in step) < 1e-9:
            break
    return tuple(theta)


def _solve(m: list[list[float]], v: list[float]) -> list[float]:
    """x with m·x = v (Gaussian elimination with partial pivoting; m is small and positive definite)."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        for r in range(c + 1, n):
            f = a[r][c] / a[c][c]
            for j in range(c, n + 1):
                a[r][j] -= f * a[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][j] * x[j] for j in range(r + 1, n))) / a[r][r]
    return x


def buckets(games: list[list[Decision]], seed: int, iterations: int = calibration.FIT_ITERATIONS,
            coefficients: tuple[float, ...] | None = None, *, raw: bool = False) -> list[list[tuple[float, int]]]:
    """(shown chance, won) of one position per game per 10-point bucket of the chance shown after a search
    of ``iterations`` (by the committed maps, or by ``coefficients``; ``raw``: the position's reward instead
    of its shown chance)."""
    out: list[list[tuple[float, int]]] = [[] for _ in range(10)]
    for g, positions in enumerate(games):
        rng = random.Random(seed * 1_000_003 + g)
        by_bucket: list[list[tuple[float, int]]] = [[] for _ in range(10)]
        for reward, won, *_ in positions:
            p = round(calibration.win_chance(reward, iterations, coefficients), 4)     # what search_moves shows
            by_bucket[min(9, int(p * 10))].append((reward if raw else p, won))
        for k, items in enumerate(by_bucket):
            if items:
                out[k].append(rng.choice(items))
    return out


def chi2_sf(x: float, dof: int) -> float:
    """P(χ² > x) for ``dof`` degrees of freedom (the exact closed forms for whole ``dof``: a Poisson tail for
    even ``dof``, with an erfc term for odd).

    >>> [round(chi2_sf(q, k), 4) for q, k in ((3.8415, 1), (7.8147, 3), (18.307, 10), (10.0, 10))]
    [0.05, 0.05, 0.05, 0.4405]
    """
    if x <= 0:
        return 1.0
    h = x / 2.0
    if dof % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, dof // 2):
            term *= h / i
            total += term
        return math.exp(-h) * total
    # odd: erfc(√h) + e^-h · Σ_{i=1}^{(dof-1)/2} h^(i-1/2) / Γ(i+1/2)
    term, total = math.sqrt(h) / math.gamma(1.5), 0.0
    for i in range(1, (dof - 1) // 2 + 1):
        total += term
        term *= h / (i + 0.5)
    return math.erfc(math.sqrt(h)) + math.exp(-h) * total


def bucket_summary(items: list[tuple[float, int]]) -> tuple[int, float, int]:
    """A non-empty bucket's positions, mean prediction and wins."""
    n = len(items)
    return n, sum(p for p, _ in items) / n, sum(w for _, w in items)


def interval_contains(wins: int, n: int, pred: float) -> bool:
    """Whether the 95% Wilson interval of ``wins`` in ``n`` contains the prediction ``pred``: the check's
    test of one bucket."""
    lo, hi = wilson_interval(wins, n)
    return lo <= pred <= hi


def calibration_chi2(rows: list[list[tuple[float, int]]]) -> tuple[float, int]:
    """The sum over the non-empty buckets of ``(wins − n·p̄)² / (n·p̄·(1 − p̄))`` (``p̄`` the bucket's mean
    prediction), and how many buckets it sums: about χ²-distributed with one degree of freedom a bucket
    when the predictions are calibrated (a Hosmer-Lemeshow statistic for a map fitted on other games).

    >>> calibration_chi2([[(0.5, 1), (0.5, 0)], [], [(0.2, 1)]])
    (4.0, 2)
    """
    total, used = 0.0, 0
    for items in rows:
        if not items:
            continue
        n, pred, wins = bucket_summary(items)
        if 0.0 < pred < 1.0:
            total += (wins - n * pred) ** 2 / (n * pred * (1.0 - pred))
            used += 1
    return total, used


def coverage_chance(items: list[tuple[float, int]]) -> float:
    """The chance that the bucket's 95% Wilson interval contains its mean prediction when every position's
    outcome is drawn from its own prediction (a calibrated map): the exact Poisson-binomial law of the
    bucket's wins, summed over the counts whose interval contains the mean. Below 0.95 and above it by
    turns, as the interval's coverage goes for a fixed number of positions.

    >>> round(coverage_chance([(0.5, 0)] * 400), 4)       # n = 400 at one half: the binomial's coverage
    0.949
    >>> coverage_chance([(1.0, 1)] * 3)                    # certain wins: an interval reaching 1 contains 1
    1.0
    """
    n, pred, _ = bucket_summary(items)
    law = [1.0]                                     # law[k] = P(k wins among the positions so far)
    for p, _ in items:
        q = 1.0 - p
        law = [a * q + b * p for a, b in zip(law + [0.0], [0.0] + law)]
    return sum(chance for k, chance in enumerate(law) if interval_contains(k, n, pred))


def pass_chance(rows: list[list[tuple[float, int]]]) -> float:
    """The chance that a calibrated map's check on these positions misses no bucket: the buckets'
    :func:`coverage_chance` multiplied (as if the buckets were independent; one game's positions in two
    buckets share its winner, which the product ignores).

    >>> round(pass_chance([[(0.5, 0)] * 400, [], [(0.5, 1)] * 400]), 4)
    0.9005
    """
    chance = 1.0
    for items in rows:
        if items:
            chance *= coverage_chance(items)
    return chance


def _coefficients(coef: tuple[float, ...]) -> str:
    return "(" + ", ".join(f"{c:.4f}" for c in coef) + ")"


def _maps(iterations: int) -> str:
    """The committed map(s) a search of ``iterations`` shows its chances by, and their weights."""
    return " + ".join(f"{w:.3g} × {b} it {_coefficients(calibration.CALIBRATION_COEFFICIENTS[b])}"
                      for b, w in calibration.budget_weights(iterations))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_review", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="search-vs-search games (default 400)")
    ap.add_argument("--iterations", type=int, default=calibration.FIT_ITERATIONS,
                    help=f"search iterations a move (default {calibration.FIT_ITERATIONS})")
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="first deal (default 1)")
    ap.add_argument("--fit", action="store_true", help="fit the calibration's constants instead (other deals)")
    ap.add_argument("--cache", metavar="DIR", help="keep the games in DIR (one JSON file a game) and reuse them")
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    if args.games < 1 or args.iterations < 1 or args.jobs < 1:
        print("bench_review: --games, --iterations and --jobs must be at least 1", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.fit:
        games = _games(FIT_SEED + args.seed - 1, args.games, args.iterations, args.jobs, args.cache)
        coef = (0.0, 1.0) + (0.0,) * len(calibration.CALIBRATION_KNOTS)     # first buckets: the raw reward
        for _ in range(4):
            points = [p for draw in range(5) for rows in buckets(games, draw, args.iterations, coef, raw=True)
                      for p in rows]
            coef = fit(points)
        slopes = calibration.segment_slopes(coef)
        print(f"fit on {len(points)} positions of {args.games} games ({args.iterations} iterations a move, "
              f"core {core.backend()}, {time.perf_counter() - t0:.0f} s): coefficients = {_coefficients(coef)}, "
              f"segment slopes {_coefficients(tuple(slopes))}{'' if min(slopes) > 0 else ' NOT INCREASING'} "
              f"(committed for {args.iterations}: "
              f"{_coefficients(calibration.CALIBRATION_COEFFICIENTS.get(args.iterations, ()))})")
        return 0
    games = _games(args.seed, args.games, args.iterations, args.jobs, args.cache)
    rows = buckets(games, args.seed, args.iterations)
    print(f"{args.games} search-vs-search games, {args.iterations} iterations a move, core {core.backend()}, "
          f"deals {args.seed}-{args.seed + args.games - 1}, {time.perf_counter() - t0:.0f} s; "
          f"calibration maps {_maps(args.iterations)}, knots {calibration.CALIBRATION_KNOTS}")
    print("| shown win chance | positions | mean predicted | observed win rate | 95% CI (Wilson) | contains |")
    print("| --- | --- | --- | --- | --- | --- |")
    misses = 0
    for k, items in enumerate(rows):
        if not items:
            print(f"| {10 * k}-{10 * k + 10}% | 0 | - | - | - | - |")
            continue
        n, pred, wins = bucket_summary(items)
        lo, hi = wilson_interval(wins, n)
        ok = interval_contains(wins, n, pred)
        misses += not ok
        print(f"| {10 * k}-{10 * k + 10}% | {n} | {pred:.1%} | {wins / n:.1%} | {lo:.1%}-{hi:.1%} "
              f"| {'yes' if ok else 'NO'} |")
    print(f"buckets whose interval misses the prediction: {misses}")
    chi2, used = calibration_chi2(rows)
    print(f"χ² of the {used} buckets' standardised deviations: {chi2:.1f} (p = {chi2_sf(chi2, used):.2f}; "
          f"a calibrated map gives {used} on average)")
    print(f"chance that a calibrated map misses no bucket on these positions: {pass_chance(rows):.0%} "
          f"(each bucket's exact Poisson-binomial coverage, multiplied)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
