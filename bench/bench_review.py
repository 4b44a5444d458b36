"""Calibration of the review's win chances: predicted against observed, bucket by bucket (Wilson intervals).

    python -m bench review                    # 400 games, 300 iterations a move, 2 processes
    python -m bench review --games 40 --jobs 1
    python -m bench review --fit              # refit the calibration's constants (other deals)

Plays ``--games`` seeded search-vs-search games on the compiled core (``new_game(seed)`` deals, each side
searching ``--iterations`` iterations a move, as ``engine.players.search.search_moves`` does) in ``--jobs``
processes. At every decision it records the win chance the search shows for the player to move (the
best move's ``win_chance``: the calibrated reward, ``engine.players.calibration.win_chance``) and whether
that player went on to win. From each game it keeps one position per 10-point bucket of the shown chance
(a seeded draw among the game's positions in that bucket, so positions of one game do not crowd a bucket),
and prints for each bucket the mean predicted chance and the observed win rate with its 95% Wilson
interval; the calibration holds when every interval contains its prediction (docs/players.md).

``--fit`` plays the games on other deals (seeds from 1,000,001) and fits
``lapse + (1 - 2·lapse)·σ(a + b·logit(reward))`` by maximum likelihood (Fisher scoring for a and b, a
grid for the lapse) to the positions the check draws (one per game per bucket, five draws, the buckets
taken from the previous round's fit, three rounds), printing ``a``, ``b`` and ``lapse`` to commit as
``CALIBRATION_A`` / ``CALIBRATION_B`` / ``CALIBRATION_LAPSE``. (Fitted to every decision instead, the
slope comes out lower, ≈ 1.56: a game that stays near one chance for many moves then weighs more than one
passing through it, and the check counts games, not decisions; docs/players.md.)
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from quiltsolve.engine import core, new_game
from quiltsolve.engine.games import wilson_interval
from quiltsolve.engine.players import calibration
from quiltsolve.engine.players.search import SearchPlayer, ranked_moves

FIT_SEED = 1_000_001


def play_game(deal: int, iterations: int) -> list[tuple[float, int]]:
    """One search-vs-search game of deal ``deal``: (raw reward shown for the mover, mover won) per decision."""
    state = new_game(deal)
    sides = [SearchPlayer(iterations=iterations, seed=2 * deal), SearchPlayer(iterations=iterations, seed=2 * deal + 1)]
    seen: list[tuple[float, int]] = []
    while not state.is_terminal():
        mover = state.current_player()
        ranked = ranked_moves(sides[mover]._search(state).children)
        reward, best = ranked[0]
        seen.append((reward, mover))
        assert best.action is not None
        state.apply_action(best.action)
    winner = state.winner()
    return [(reward, int(mover == winner)) for reward, mover in seen]


def _games(first: int, games: int, iterations: int, jobs: int) -> list[list[tuple[float, int]]]:
    deals = list(range(first, first + games))
    if jobs <= 1:
        return [play_game(d, iterations) for d in deals]
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(play_game, deals, [iterations] * games, chunksize=8))


def fit_logistic(points: list[tuple[float, int]], lapse: float = 0.0, steps: int = 60) -> tuple[float, float, float]:
    """Maximum-likelihood (a, b) of P(win) = lapse + (1 - 2·lapse)·σ(a + b·logit(reward)) for a fixed
    ``lapse``, by Fisher scoring; returns (a, b, log-likelihood)."""
    xs = [(calibration.logit(min(max(r, 1e-6), 1 - 1e-6)), y) for r, y in points]
    k = 1.0 - 2.0 * lapse
    a, b = 0.0, 1.0
    for _ in range(steps):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in xs:
            s = calibration.sigmoid(a + b * x)
            p = lapse + k * s
            d = k * s * (1.0 - s)                  # dp/dz
            v = max(p * (1.0 - p), 1e-12)
            e = (y - p) * d / v                    # dL/dz
            w = d * d / v                          # expected information in z
            ga += e
            gb += e * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) < 1e-9 and abs(db) < 1e-9:
            break
    ll = 0.0
    for x, y in xs:
        p = lapse + k * calibration.sigmoid(a + b * x)
        ll += math.log(max(p if y else 1.0 - p, 1e-300))
    return a, b, ll


def fit(points: list[tuple[float, int]]) -> tuple[float, float, float]:
    """Maximum-likelihood (a, b, lapse) of P(win) = lapse + (1 - 2·lapse)·σ(a + b·logit(reward)): Fisher
    scoring for (a, b), a grid of steps of 0.0025 in 0-0.05 for the lapse.

    >>> pts = [(0.3, 0), (0.3, 0), (0.3, 1), (0.7, 1), (0.7, 1), (0.7, 0), (0.9, 1), (0.1, 0)]
    >>> a, b, lapse = fit(pts)
    >>> round(a, 6) == 0.0 and b > 0 and 0 <= lapse <= 0.05
    True
    """
    best = max((fit_logistic(points, i * 0.0025) + (i * 0.0025,) for i in range(21)), key=lambda t: t[2])
    return best[0], best[1], best[3]


def buckets(games: list[list[tuple[float, int]]], seed: int, a: float = calibration.CALIBRATION_A,
            b: float = calibration.CALIBRATION_B, lapse: float = calibration.CALIBRATION_LAPSE, *,
            raw: bool = False) -> list[list[tuple[float, int]]]:
    """(shown chance, won) of one position per game per 10-point bucket of the shown chance
    (``raw``: the position's reward instead of its shown chance)."""
    out: list[list[tuple[float, int]]] = [[] for _ in range(10)]
    for g, positions in enumerate(games):
        rng = random.Random(seed * 1_000_003 + g)
        by_bucket: list[list[tuple[float, int]]] = [[] for _ in range(10)]
        for reward, won in positions:
            p = round(calibration.win_chance(reward, a, b, lapse), 4)     # what search_moves shows
            by_bucket[min(9, int(p * 10))].append((reward if raw else p, won))
        for k, items in enumerate(by_bucket):
            if items:
                out[k].append(rng.choice(items))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_review", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="search-vs-search games (default 400)")
    ap.add_argument("--iterations", type=int, default=calibration.FIT_ITERATIONS,
                    help=f"search iterations a move (default {calibration.FIT_ITERATIONS})")
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="first deal (default 1)")
    ap.add_argument("--fit", action="store_true", help="fit the calibration's constants instead (other deals)")
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    if args.games < 1 or args.iterations < 1 or args.jobs < 1:
        print("bench_review: --games, --iterations and --jobs must be at least 1", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.fit:
        games = _games(FIT_SEED + args.seed - 1, args.games, args.iterations, args.jobs)
        a, b, lapse = calibration.CALIBRATION_A, calibration.CALIBRATION_B, calibration.CALIBRATION_LAPSE
        for _ in range(3):
            points = [p for draw in range(5) for rows in buckets(games, draw, a, b, lapse, raw=True) for p in rows]
            a, b, lapse = fit(points)
        print(f"fit on {len(points)} positions of {args.games} games ({args.iterations} iterations a move, "
              f"core {core.backend()}, {time.perf_counter() - t0:.0f} s): a = {a:.4f}, b = {b:.4f}, "
              f"lapse = {lapse:.4f} "
              f"(committed: a = {calibration.CALIBRATION_A}, b = {calibration.CALIBRATION_B}, "
              f"lapse = {calibration.CALIBRATION_LAPSE})")
        return 0
    games = _games(args.seed, args.games, args.iterations, args.jobs)
    rows = buckets(games, args.seed)
    print(f"{args.games} search-vs-search games, {args.iterations} iterations a move, core {core.backend()}, "
          f"deals {args.seed}-{args.seed + args.games - 1}, {time.perf_counter() - t0:.0f} s; "
          f"calibration a = {calibration.CALIBRATION_A}, b = {calibration.CALIBRATION_B}, "
          f"lapse = {calibration.CALIBRATION_LAPSE}")
    print("| shown win chance | positions | mean predicted | observed win rate | 95% CI (Wilson) | contains |")
    print("| --- | --- | --- | --- | --- | --- |")
    misses = 0
    for k, items in enumerate(rows):
        n = len(items)
        if not n:
            print(f"| {10 * k}-{10 * k + 10}% | 0 | - | - | - | - |")
            continue
        pred = sum(p for p, _ in items) / n
        wins = sum(w for _, w in items)
        lo, hi = wilson_interval(wins, n)
        ok = lo <= pred <= hi
        misses += not ok
        print(f"| {10 * k}-{10 * k + 10}% | {n} | {pred:.1%} | {wins / n:.1%} | {lo:.1%}-{hi:.1%} "
              f"| {'yes' if ok else 'NO'} |")
    print(f"buckets whose interval misses the prediction: {misses}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
