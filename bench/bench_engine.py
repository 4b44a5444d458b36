"""Engine speed: the compiled core against the pure-Python path (playouts, search iterations, SuggestMove's
iterations at 1 s, a match of search:400it vs greedy), the Python engine's own rates, and think times.

    python -m bench engine
    python -m bench.bench_engine --match-games 100 --v1-games 4
    python -m bench.bench_engine --think-only --think-games 8     # only the think-time rows

Targets (issue 18): random playouts ≥ 30× the pure-Python path's, search iterations ≥ 20× search-v1's,
≥ 20,000 iterations in ``search(state)`` at its default 1 s, and a match of ``search:400it`` vs greedy in
under a tenth of search-v1's time. Everything runs in this process, on one core.

Think times (issue 33): ``--think-games`` seeded self-play games of each ``--think`` player, in a fresh
process each (so the first move of a process counts, imports and all), every move timed by the wall
clock around ``choose``: the mean, the median, the 95th percentile, the slowest and the first move.
Targets: a mean of at most 11 ms for ``search:0.01`` and 105 ms for ``search:0.1``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from quiltsolve.engine import core, new_game
from quiltsolve.engine.games import jobs, play_match_game
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer
from quiltsolve.engine.players.search import SearchPlayer, search, warm_up
from quiltsolve.engine.state import GameState

from bench import print_measures
from bench.search_v1 import SearchPlayerV1


def _positions(n: int, seed: int) -> list[GameState]:
    """Seeded mid-game positions (a few random moves into a greedy-vs-random game)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        s = new_game(rng.randrange(2**31))
        players = (GreedyPlayer(), RandomPlayer(rng.randrange(1000)))
        for _ in range(rng.randrange(4, 30)):
            if s.is_terminal():
                break
            s.apply_action(players[s.current_player()].choose(s))
        if not s.is_terminal():
            out.append(s)
    return out


def _playout_rate(policy: int, pure: bool, count: int, seed: int) -> float:
    s = new_game(seed)
    t0 = time.perf_counter()
    core.playouts(s, seed, count, policy, pure=pure)
    return count / (time.perf_counter() - t0)


def _random_games(n: int, seed: int) -> float:
    """The Python engine's random-vs-random games per second (RandomPlayer, GameState)."""
    players = (RandomPlayer(seed), RandomPlayer(seed + 1))
    t0 = time.perf_counter()
    for g in range(n):
        s = new_game(seed + g)
        while not s.is_terminal():
            s.apply_action(players[s.current_player()].choose(s))
    return n / (time.perf_counter() - t0)


def _iteration_rate(make, positions: list[GameState], iterations: int) -> float:
    """Search iterations per second of ``make(iterations)`` players over ``positions`` (fixed budgets)."""
    done, t0 = 0, time.perf_counter()
    for i, s in enumerate(positions):
        p = make(iterations, i)
        p.search_moves(s)
        done += p.last_iterations
    return done / (time.perf_counter() - t0)


def _match_seconds(spec_player, games: int, seed: int) -> float:
    """Wall time of ``games`` games of a search player vs greedy (paired deals, alternating seats)."""
    t0 = time.perf_counter()
    for job in jobs(games, seed):
        play_match_game(spec_player(), GreedyPlayer(), "revised", job)
    return time.perf_counter() - t0


THINK_TARGETS = {"search:0.01": 0.011, "search:0.1": 0.105}


def think_times(spec: str, games: int, seed: int) -> list[float]:
    """Seconds of every move of ``games`` seeded self-play games of ``spec``, in this process (run it fresh)."""
    from quiltsolve.engine.players import make_player
    out: list[float] = []
    for g in range(games):
        players = (make_player(spec, seed + 2 * g), make_player(spec, seed + 2 * g + 1))
        s = new_game(seed + 1000 * g)
        while not s.is_terminal():
            t0 = time.perf_counter()
            a = players[s.current_player()].choose(s)
            out.append(time.perf_counter() - t0)
            s.apply_action(a)
    return out


def _think_rows(specs: list[str], games: int, seed: int) -> list[tuple[str, str, str]]:
    rows = []
    for spec in specs:
        code = ("import json, sys; from bench.bench_engine import think_times; "
                f"print(json.dumps(think_times({spec!r}, {games}, {seed})))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parent.parent).stdout
        times = json.loads(out.strip().splitlines()[-1])
        ms = [t * 1000 for t in times]
        q = statistics.quantiles(ms, n=20) if len(ms) > 1 else ms * 19
        target = THINK_TARGETS.get(spec)
        note = f"{len(ms)} moves, fresh process; median {q[9]:.1f}, p95 {q[18]:.1f}, max {max(ms):.1f}, " \
               f"first move {ms[0]:.1f} ms" + ("" if target is None else f"; target mean <= {target * 1000:g} ms")
        rows.append((f"think time {spec} (mean)", f"{statistics.mean(ms):.1f} ms", note))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_engine", description=__doc__.split("\n\n")[0])
    ap.add_argument("--playouts", type=int, default=20_000, help="random playouts timed on the C core")
    ap.add_argument("--py-playouts", type=int, default=300, help="random playouts timed on the pure-Python path")
    ap.add_argument("--iterations", type=int, default=2000, help="search iterations per position, v2 on the core")
    ap.add_argument("--v1-iterations", type=int, default=200, help="search iterations per position, search-v1")
    ap.add_argument("--positions", type=int, default=5, help="seeded positions for the iteration rates")
    ap.add_argument("--suggest", type=int, default=3, help="positions searched by search(state) at 1 s")
    ap.add_argument("--match-games", type=int, default=100, help="games of search:400it vs greedy (v2)")
    ap.add_argument("--v1-games", type=int, default=2, help="games of search-v1:400it vs greedy (extrapolated)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--think", default="search:0.01,search:0.1", help="players whose think times are measured")
    ap.add_argument("--think-games", type=int, default=4, help="self-play games per think-time row (0: none)")
    ap.add_argument("--think-only", action="store_true", help="only the think-time rows")
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    specs = [s.strip() for s in args.think.split(",") if s.strip()]
    if args.think_games < 0:
        print("bench_engine: --think-games must be >= 0", file=sys.stderr)
        return 2
    if args.think_only:
        if args.think_games:
            print_measures(_think_rows(specs, args.think_games, args.seed))
        return 0
    if min(args.playouts, args.py_playouts, args.iterations, args.v1_iterations, args.positions,
           args.match_games, args.v1_games) < 1 or args.suggest < 0:
        print("bench_engine: every count must be >= 1", file=sys.stderr)
        return 2
    if not core.HAVE_C_CORE:
        print("bench_engine: the compiled core is not built: the 'C' rows run the pure-Python path", flush=True)
    warm_up(freeze_gc=False)
    rows: list[tuple[str, str, str]] = []

    c_rand = _playout_rate(core.RANDOM, False, args.playouts, args.seed)
    py_rand = _playout_rate(core.RANDOM, True, args.py_playouts, args.seed)
    engine_games = _random_games(max(20, args.py_playouts // 2), args.seed)
    rows += [("random playouts / s, C core", f"{c_rand:,.0f}", "one core"),
             ("random playouts / s, pure Python", f"{py_rand:,.0f}", "the twin, same stream"),
             ("random games / s, Python engine", f"{engine_games:,.0f}", "RandomPlayer on GameState"),
             ("  ratio C / pure Python", f"{c_rand / py_rand:.0f}x", "target >= 30x"),
             ("  ratio C / Python engine", f"{c_rand / engine_games:.0f}x", "target >= 30x")]
    c_greedy = _playout_rate(core.GREEDY, False, max(1, args.playouts // 4), args.seed)
    py_greedy = _playout_rate(core.GREEDY, True, max(1, args.py_playouts // 2), args.seed)
    rows += [("greedy playouts / s, C core", f"{c_greedy:,.0f}", "the search's ε-greedy policy"),
             ("greedy playouts / s, pure Python", f"{py_greedy:,.0f}", ""),
             ("  ratio", f"{c_greedy / py_greedy:.0f}x", "")]
    print_measures(rows)
    rows = []

    pos = _positions(args.positions, args.seed)
    v2 = _iteration_rate(lambda n, i: SearchPlayer(iterations=n, seed=i), pos, args.iterations)
    v2py = _iteration_rate(lambda n, i: SearchPlayer(iterations=n, seed=i, pure=True), pos,
                           max(1, args.v1_iterations))
    v1 = _iteration_rate(lambda n, i: SearchPlayerV1(iterations=n, seed=i, reuse=False), pos, args.v1_iterations)
    rows += [("search iterations / s, v2 (C core)", f"{v2:,.0f}", f"{args.positions} positions"),
             ("search iterations / s, v2 pure Python", f"{v2py:,.0f}", "QUILTSOLVE_PURE_PYTHON=1"),
             ("search iterations / s, search-v1", f"{v1:,.0f}", "today's search"),
             ("  ratio v2 / v1", f"{v2 / v1:.0f}x", "target >= 20x")]
    if args.suggest:
        its = []
        for s in _positions(args.suggest, args.seed + 1):
            its.append(search(s).iterations)
        rows.append(("search(state) iterations at 1 s", " / ".join(f"{n:,}" for n in its),
                     f"min {min(its):,}; target >= 20,000 (with the root lookahead)"))
    print_measures(rows)
    rows = []

    t2 = _match_seconds(lambda: SearchPlayer(iterations=400, seed=3), args.match_games, args.seed)
    t1 = _match_seconds(lambda: SearchPlayerV1(iterations=400, seed=3, reuse=False), args.v1_games, args.seed)
    per2, per1 = t2 / args.match_games, t1 / args.v1_games
    rows += [("match search:400it vs greedy, v2", f"{t2:.1f} s", f"{args.match_games} games, {per2:.2f} s/game"),
             ("match search-v1:400it vs greedy", f"{t1:.1f} s",
              f"{args.v1_games} games, {per1:.2f} s/game -> {per1 * args.match_games:.0f} s for {args.match_games}"),
             ("  ratio v2 / v1 per game", f"{per2 / per1:.3f}", "target < 0.1")]
    print_measures(rows)
    if args.think_games:
        print_measures(_think_rows(specs, args.think_games, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
