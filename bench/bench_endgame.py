"""The exact endgame solver: its reach within 1 s, and how far from perfect the search player plays.

    python -m bench endgame                        # defaults: about 10 minutes
    python -m bench endgame --games 4 --far 10     # a quick look
    python -m bench.bench_endgame --players search:0.1 --backend python

Positions come from seeded games of ``--game-player`` against itself
(default ``search:200it``: the search player at a fixed 200 iterations a
move, fast and reproducible). "Plies left" = the plies that game still
played from the position (one action each, a leather placement is one).

*Reach*: for each game, the positions 2, 4, 6, 8, 10, 12 and 14 plies before
its end (12 and 14 make the "12+" row); the share :func:`engine.endgame.solve`
proves within ``--time-limit`` seconds, by plies left, the median time of
the proven ones and the nodes per second over all.

*How far from perfect*: for up to ``--far`` of the proven positions, each
``--players`` player (default ``search:0.1`` and ``search:1``, seeded) picks
its move; that move's exact value is solved (the position after it) and
compared with the position's value: how often its move has the perfect
value, how often it keeps the proven result (the sign of the value: a won
game stays won, a lost one lost, a draw on points a draw), and the mean
loss in points. Positions where the value after the player's move is not
proven within the time limit are left out and counted. The search player is
judged with ``prove=False``: as it plays by default it asks this same solver
near the end and plays its move wherever that finishes within its share of
the time, so what is measured is the search itself.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from quiltsolve.engine import GameState, make_player, new_game
from quiltsolve.engine.endgame import EndgameResult, c_available, solve

PLIES = (2, 4, 6, 8, 10, 12, 14)


def _game(spec: str, seed: int) -> list[GameState]:
    """Every position of one seeded self-play game of ``spec``, the last one terminal."""
    players = (make_player(spec, seed), make_player(spec, seed + 1))
    s = new_game(seed)
    out = []
    while not s.is_terminal():
        out.append(s.clone())
        s.apply_action(players[s.current_player()].choose(s))
    out.append(s)
    return out


def _value_after(s: GameState, action, args) -> int | None:
    """The exact value of ``action`` for the player to move in ``s`` (None if not proven in time)."""
    c = s.clone()
    c.apply_action(action)
    if c.is_terminal():
        a, b = c.scores()
        return a - b if s.current_player() == 0 else b - a
    r = solve(c, time_limit=args.time_limit, backend=args.backend)
    if not r.proven or r.value is None:
        return None
    return r.value if c.current_player() == s.current_player() else -r.value


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_endgame", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="seeded games (default 30)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game-player", default="search:200it", help="who plays the games (default search:200it)")
    ap.add_argument("--time-limit", type=float, default=1.0, help="seconds per solve (default 1)")
    ap.add_argument("--far", type=int, default=60, help="proven positions for 'how far from perfect' (default 60)")
    ap.add_argument("--players", default="search:0.1,search:1", help="players to judge, comma-separated")
    ap.add_argument("--backend", choices=("c", "python"), default=None, help="solver backend (default: C if built)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.far < 0 or not args.time_limit > 0:
        print("bench_endgame: --games must be >= 1, --far >= 0 and --time-limit > 0", file=sys.stderr)
        return 2
    backend = args.backend or ("c" if c_available() else "python")
    print(f"solver backend: {backend}; games: {args.games} x {args.game_player} self-play from seed {args.seed}; "
          f"time limit {args.time_limit:g} s")

    t0 = time.perf_counter()
    games = [_game(args.game_player, args.seed + 1000 * g) for g in range(args.games)]
    print(f"games played in {time.perf_counter() - t0:.0f} s")

    by_left: dict[int, list[EndgameResult]] = {k: [] for k in PLIES}
    proven: list[tuple[int, GameState, EndgameResult]] = []
    for hist in games:
        for k in PLIES:
            if k < len(hist):
                s = hist[-1 - k]
                r = solve(s, time_limit=args.time_limit, backend=args.backend)
                by_left[k].append(r)
                if r.proven:
                    proven.append((k, s, r))

    print("\nReach: share proven within the time limit, by plies left\n")
    print("| plies left | positions | proven | median time (proven) | nodes/s |")
    print("|---|---|---|---|---|")
    rows = [("2", [2]), ("4", [4]), ("6", [6]), ("8", [8]), ("10", [10]), ("12+", [12, 14])]
    all_nodes = all_time = 0.0
    for label, ks in rows:
        rs = [r for k in ks for r in by_left[k]]
        if not rs:
            continue
        ok = [r for r in rs if r.proven]
        nodes = sum(r.nodes for r in rs)
        secs = sum(r.elapsed for r in rs)
        all_nodes += nodes
        all_time += secs
        med = statistics.median(r.elapsed for r in ok) if ok else float("nan")
        print(f"| {label} | {len(rs)} | {len(ok) / len(rs):.0%} | {med * 1000:.0f} ms | "
              f"{nodes / max(secs, 1e-9):,.0f} |")
    le6 = [r for k in (2, 4, 6) for r in by_left[k]]
    if le6:
        print(f"\n<= 6 plies left: {sum(r.proven for r in le6) / len(le6):.1%} proven (target >= 95%); "
              f"nodes/s over all: {all_nodes / max(all_time, 1e-9):,.0f}")

    specs = [p.strip() for p in args.players.split(",") if p.strip()]
    sample = proven[:: max(1, len(proven) // max(1, args.far))][:args.far]
    print(f"\nHow far from perfect: {len(sample)} proven positions (of {len(proven)}), "
          f"plies left {min((k for k, _, _ in sample), default=0)}-{max((k for k, _, _ in sample), default=0)}\n")
    print("| player | positions | perfect move | result kept | mean loss (points) | max loss | not proven after |")
    print("|---|---|---|---|---|---|---|")
    for spec in specs:
        perfect = kept = n = missing = 0
        losses = []
        for i, (k, s, r) in enumerate(sample):
            assert r.value is not None
            player = make_player(spec, args.seed + i)
            if hasattr(player, "prove"):
                player.prove = False    # judge the search itself, not the solver it asks near the end
            move = player.choose(s.clone())
            v = _value_after(s, move, args)
            if v is None:
                missing += 1
                continue
            n += 1
            perfect += v == r.value
            kept += _sign(v) == _sign(r.value)
            losses.append(r.value - v)
        if n:
            print(f"| {spec} | {n} | {perfect / n:.0%} | {kept / n:.0%} | {statistics.mean(losses):.2f} | "
                  f"{max(losses)} | {missing} |")
        else:
            print(f"| {spec} | 0 | - | - | - | - | {missing} |")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
