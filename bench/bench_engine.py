"""Engine speed: complete random games per second on one core, and the mean
number of legal actions per decision.

    python -m bench engine
    python -m bench.bench_engine --games 5000
"""

from __future__ import annotations

from bench import print_measures

import argparse
import time

from quiltsolve.engine import new_game
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer


def _random_games(n: int, seed: int) -> tuple[float, int]:
    """Seconds for ``n`` random-vs-random games (set-up included) and the decisions made."""
    players = (RandomPlayer(seed), RandomPlayer(seed + 1))
    decisions = 0
    t0 = time.perf_counter()
    for g in range(n):
        s = new_game(seed + g)
        while not s.is_terminal():
            s.apply_action(players[s.current_player()].choose(s))
            decisions += 1
    return time.perf_counter() - t0, decisions


def _legal_action_stats(n: int, seed: int) -> tuple[float, float, int, float]:
    """Mean legal actions per decision over ``n`` random games, the mean
    outside leather placements, the max, and legal_actions() lists per second."""
    player = RandomPlayer(seed)
    total = total_turns = turns = decisions = biggest = 0
    build = 0.0
    for g in range(n):
        s = new_game(10_000 + g)
        while not s.is_terminal():
            t0 = time.perf_counter()
            k = len(s.legal_actions())
            build += time.perf_counter() - t0
            total += k
            decisions += 1
            biggest = max(biggest, k)
            if s.pending_leather is None:
                total_turns += k
                turns += 1
            s.apply_action(player.choose(s))
    return total / decisions, total_turns / turns, biggest, decisions / build


def _greedy_games(n: int) -> float:
    g = GreedyPlayer()
    t0 = time.perf_counter()
    for i in range(n):
        s = new_game(i)
        while not s.is_terminal():
            s.apply_action(g.choose(s))
    return n / (time.perf_counter() - t0)


def _clones(n: int) -> float:
    s = new_game(0)
    t0 = time.perf_counter()
    for _ in range(n):
        s.clone()
    return n / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_engine")
    ap.add_argument("--games", type=int, default=3000, help="random games to time")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv or [])
    _random_games(50, args.seed)  # warm caches
    secs, decisions = _random_games(args.games, args.seed)
    mean_all, mean_turns, biggest, lists_per_s = _legal_action_stats(300, args.seed)
    rows = [
        ("random games / s (one core)", f"{args.games / secs:,.0f}", "target >= 500"),
        ("random decisions / s", f"{decisions / secs:,.0f}", ""),
        ("decisions per game", f"{decisions / args.games:.1f}", ""),
        ("mean legal actions / decision", f"{mean_all:.1f}", "incl. leather placements"),
        ("mean legal actions / turn", f"{mean_turns:.1f}", "advance or buy decisions"),
        ("max legal actions seen", f"{biggest}", ""),
        ("legal_actions() lists / s", f"{lists_per_s:,.0f}", "full list built"),
        ("greedy games / s", f"{_greedy_games(200):,.0f}", ""),
        ("clones / s", f"{_clones(200_000):,.0f}", ""),
    ]
    print_measures(rows)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
