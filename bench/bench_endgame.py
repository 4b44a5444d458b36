"""The exact endgame solver: its reach within 1 s, and how far from perfect the search player plays.

    python -m bench endgame                               # defaults, one process: about 10 minutes
    python -m bench endgame --workers 16 --games 100 --far 200   # the full run on 16 cores: about 2-3 minutes
    python -m bench endgame --games 4 --far 10            # a quick look
    python -m bench.bench_endgame --players search:0.1 --backend python

Positions come from seeded games of ``--game-player`` against itself
(default ``search:200it``: the search player at a fixed 200 iterations a
move, fast and reproducible). "Plies left" = the plies that game still
played from the position (one action each, a leather placement is one).

*Reach*: for each game, the positions 2, 4, ..., 16 plies before its end;
the share :func:`engine.endgame.solve` proves within ``--time-limit``
seconds, by plies left (targets: 95 % at 10, 80 % at 12, 50 % at 16), the
median time of the proven ones and the solver's nodes per second (a node is
a position searched or a step of a packing question, rule B).

*How far from perfect*: for up to ``--far`` of the proven positions at most
``--far-plies`` plies before the end (default 12), each ``--players``
player (default ``search:0.1`` and ``search:1``, seeded) picks its move,
twice: as it plays by default (it asks this solver first near the end,
``proven.proven_best_move``, and plays the proven move wherever that
finishes within its share of the time; targets: ``search:1`` a move of
perfect value in 97 % with a mean loss of at most 0.1 points, ``search:0.1``
in 90 %), and with ``prove=False`` (the search alone). That move's exact
value is solved (the position after it) and compared with the position's
value: how often its move has the perfect value, how often it keeps the
proven result (the sign of the value: a won game stays won, a lost one lost,
a draw on points a draw), and the mean loss in points. Positions where the
value after the player's move is not proven within the time limit are left
out and counted.

``--workers N`` runs the solves and the players' moves in N processes (each
solve single-threaded, each process warmed up first like a server's worker),
so give it at most one worker per core: the time limits are wall-clock.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable

from quiltsolve.engine import Action, GameState, make_player, new_game
from quiltsolve.engine.endgame import c_available, solve

PLIES = (2, 4, 6, 8, 10, 12, 14, 16)
TARGETS = {10: 0.95, 12: 0.80, 16: 0.50}
PERFECT_TARGETS = {"search:1": (0.97, 0.1), "search:0.1": (0.90, None)}


def _game(job: tuple[str, int]) -> list[str]:
    """Every position of one seeded self-play game of ``spec`` (notation), the last one terminal."""
    spec, seed = job
    players = (make_player(spec, seed), make_player(spec, seed + 1))
    s = new_game(seed)
    out = []
    while not s.is_terminal():
        out.append(s.to_notation())
        s.apply_action(players[s.current_player()].choose(s))
    out.append(s.to_notation())
    return out


def _warm() -> None:
    from quiltsolve.engine.players.search import warm_up
    warm_up(freeze_gc=False)


def _solve(job: tuple[str, float, str | None]) -> tuple[bool, int | None, int, float]:
    """(proven, value, nodes, seconds) of one position."""
    text, limit, backend = job
    r = solve(GameState.from_notation(text), time_limit=limit, backend=backend)
    return r.proven, r.value, r.nodes, r.elapsed


def _value_after(s: GameState, action: Action, limit: float, backend: str | None) -> int | None:
    """The exact value of ``action`` for the player to move in ``s`` (None if not proven in time)."""
    c = s.clone()
    c.apply_action(action)
    if c.is_terminal():
        a, b = c.scores()
        return a - b if s.current_player() == 0 else b - a
    r = solve(c, time_limit=limit, backend=backend)
    if not r.proven or r.value is None:
        return None
    return r.value if c.current_player() == s.current_player() else -r.value


def _judge(job: tuple[str, str, int, bool, float, str | None]) -> tuple[int | None, float]:
    """(the exact value of the player's move, its thinking seconds) in one position."""
    text, spec, seed, prove, limit, backend = job
    s = GameState.from_notation(text)
    player = make_player(spec, seed)
    if hasattr(player, "prove"):
        player.prove = prove
    t0 = time.perf_counter()
    move = player.choose(s.clone())
    took = time.perf_counter() - t0
    return _value_after(s, move, limit, backend), took


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _mapper(workers: int) -> tuple[Callable[..., Iterable[Any]], Callable[[], None]]:
    if workers <= 1:
        _warm()
        return map, lambda: None
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_warm)
    return (lambda f, xs: pool.map(f, xs, chunksize=1)), (lambda: pool.shutdown())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_endgame", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="seeded games (default 40)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game-player", default="search:200it", help="who plays the games (default search:200it)")
    ap.add_argument("--time-limit", type=float, default=1.0, help="seconds per solve (default 1)")
    ap.add_argument("--far", type=int, default=100, help="proven positions for 'how far from perfect' (default 100)")
    ap.add_argument("--far-plies", type=int, default=12, help="the most plies left of those positions (default 12)")
    ap.add_argument("--players", default="search:0.1,search:1", help="players to judge, comma-separated")
    ap.add_argument("--backend", choices=("c", "python"), default=None, help="solver backend (default: C if built)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1; at most one per core)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.far < 0 or not args.time_limit > 0 or args.workers < 1 or args.far_plies < 1:
        print("bench_endgame: --games, --workers and --far-plies must be >= 1, --far >= 0 and --time-limit > 0",
              file=sys.stderr)
        return 2
    backend = args.backend or ("c" if c_available() else "python")
    print(f"solver backend: {backend}; games: {args.games} x {args.game_player} self-play from seed {args.seed}; "
          f"time limit {args.time_limit:g} s; {args.workers} process{'es' if args.workers > 1 else ''}")

    t0 = time.perf_counter()
    run, close = _mapper(args.workers)
    try:
        games = list(run(_game, [(args.game_player, args.seed + 1000 * g) for g in range(args.games)]))
        print(f"games played in {time.perf_counter() - t0:.0f} s", flush=True)

        cases = [(k, hist[-1 - k]) for hist in games for k in PLIES if k < len(hist)]
        solved = list(run(_solve, [(text, args.time_limit, args.backend) for _, text in cases]))
        print("\nReach: share proven within the time limit, by plies left\n")
        print("| plies left | positions | proven | target | median time (proven) | nodes/s |")
        print("|---|---|---|---|---|---|")
        all_nodes = all_time = 0.0
        for k in PLIES:
            rs = [r for (kk, _), r in zip(cases, solved) if kk == k]
            if not rs:
                continue
            ok = [r for r in rs if r[0]]
            nodes, secs = sum(r[2] for r in rs), sum(r[3] for r in rs)
            all_nodes += nodes
            all_time += secs
            med = statistics.median(r[3] for r in ok) if ok else float("nan")
            target = f">= {TARGETS[k]:.0%}" if k in TARGETS else ""
            print(f"| {k} | {len(rs)} | {len(ok) / len(rs):.0%} | {target} | {med * 1000:.0f} ms | "
                  f"{nodes / max(secs, 1e-9):,.0f} |")
        print(f"\nnodes/s over all: {all_nodes / max(all_time, 1e-9):,.0f} (a node: a position searched or a "
              f"packing step)", flush=True)

        proven = [(k, text, r[1]) for (k, text), r in zip(cases, solved) if r[0] and k <= args.far_plies]
        sample = proven[:: max(1, len(proven) // max(1, args.far))][:args.far]
        players = [p.strip() for p in args.players.split(",") if p.strip()]
        print(f"\nHow far from perfect: {len(sample)} proven positions (of {len(proven)}) "
              f"{min((k for k, _, _ in sample), default=0)}-{max((k for k, _, _ in sample), default=0)} "
              f"plies before the end\n")
        print("| player | as it plays | positions | perfect move | result kept | mean loss (points) | max loss "
              "| not proven after | mean think time | target |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for spec in players:
            for prove in (True, False):
                jobs = [(text, spec, args.seed + i, prove, args.time_limit, args.backend)
                        for i, (_, text, _) in enumerate(sample)]
                got = list(run(_judge, jobs))
                losses, perfect, kept, missing = [], 0, 0, 0
                for (_, _, value), (v, _) in zip(sample, got):
                    if v is None:
                        missing += 1
                        continue
                    perfect += v == value
                    kept += _sign(v) == _sign(value)
                    losses.append(value - v)
                n = len(losses)
                how = "default (proofs)" if prove else "search alone"
                think = statistics.mean(t for _, t in got) * 1000 if got else float("nan")
                goal = ""
                if prove and spec in PERFECT_TARGETS:
                    share, loss = PERFECT_TARGETS[spec]
                    goal = f"perfect >= {share:.0%}" + (f", loss <= {loss:g}" if loss is not None else "")
                if n:
                    print(f"| {spec} | {how} | {n} | {perfect / n:.0%} | {kept / n:.0%} | "
                          f"{statistics.mean(losses):.2f} | {max(losses)} | {missing} | {think:.0f} ms | {goal} |",
                          flush=True)
                else:
                    print(f"| {spec} | {how} | 0 | - | - | - | - | {missing} | {think:.0f} ms | {goal} |",
                          flush=True)
    finally:
        close()
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
