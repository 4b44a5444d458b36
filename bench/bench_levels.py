"""The levels' ladder: a round robin of level:1 … level:8 with random and greedy, Elo ratings with 95% intervals.

    python -m bench levels                              # the default ladder, 2 processes
    python -m bench levels --games 12 --workers 16 --write   # the full ladder on 16 cores; writes the ratings
    python -m bench levels --players level:1,greedy --games 10   # one pairing, for tuning
    python -m bench levels --json ladder.json           # everything measured, as JSON

Every pairing of ``--players`` (default: ``random``, ``greedy`` and the eight levels) plays ``--games`` deal
pairs: the same deals for every pairing, each deal twice with the seats swapped (``engine.games.jobs`` of
``--seed``; the deal seeds are printed). ``level:8`` (the full search: the dearest player by far) plays only
``--top-opponents`` (default ``level:1,level:5,level:6,level:7``: enough to place it on the scale and to check
its score against level 1). Games run ``--workers`` at a time in separate processes (one per core: the levels
have iteration budgets, so the games are the same with any number of workers, but the think times are measured
and need a core each).

Ratings: a Bradley–Terry model, ``P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))``, fitted by maximum
likelihood with ``scipy.optimize.minimize`` (BFGS) over the games' wins, with one virtual drawn game added
to every pairing played (half a win each way: a weak prior, so that a player who won or lost every game still
gets a finite rating, pulled towards its opponents' by at most what one drawn game weighs). Anchored at
``greedy = 1000`` (``--anchor``). The 95% intervals are percentile intervals of ``--bootstrap`` refits (default
1000) on the games resampled with replacement, deal pair by deal pair within each pairing, from a generator
seeded by ``--seed`` (the same intervals every run). ``random`` loses nearly every game, so its rating mostly
says how heavily one drawn game weighs: it is a fixed point of the scale only in that it stays at the bottom.

Targets (issue 32), each printed met / MISSED: the levels' ratings increase with the level; adjacent levels are
100-400 Elo apart; level 1 scores below 50% against greedy; level 8 scores above 95% against level 1; each
level's mean and 95th percentile think time per move are at most 0.5 s (wall time, as a person waits; the
CPU time a move took is printed beside it: on a busy machine the wall time is longer). ``--write`` stores the ratings and
think times in ``engine/data/levels.json`` (what the web app's Play page shows: ``/levels.json``).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from quiltsolve import engine
from quiltsolve.engine.games import Job, jobs, play_match_game, side_scores
from quiltsolve.engine.players import make_player
from quiltsolve.engine.players.levels import LEVELS

LEVEL_SPECS = [f"level:{n}" for n in sorted(LEVELS)]
DEFAULT_PLAYERS = ["random", "greedy", *LEVEL_SPECS]
TOP = LEVEL_SPECS[-1]
DEFAULT_TOP_OPPONENTS = "level:1,level:5,level:6,level:7"
ANCHOR = "greedy"
ANCHOR_ELO = 1000.0
PRIOR_GAMES = 1.0          # virtual drawn games added to every pairing played
THINK_LIMIT = 0.5          # seconds a move, mean and 95th percentile
GAP = (100.0, 400.0)       # Elo between adjacent levels
ELO = 400.0 / math.log(10.0)   # Elo points per natural-log unit of strength
DATA_FILE = Path(engine.__file__).resolve().parent / "data" / "levels.json"


# ---------------------------------------------------------------- the fit

def fit_elo(players: Sequence[str], games: Sequence[tuple[int, int, float]], *, anchor: str = ANCHOR,
            anchor_elo: float = ANCHOR_ELO, prior: float = PRIOR_GAMES) -> dict[str, float]:
    """Bradley–Terry (Elo) ratings of ``players`` from ``games``: ``(i, j, score of i)`` with indexes into
    ``players`` and score 1 (i won), 0 (j won) or 0.5. ``prior`` virtual drawn games are added to every pair
    that played; ``anchor`` is rated ``anchor_elo``. Fitted by ``scipy.optimize.minimize`` (BFGS).

    >>> r = fit_elo(["a", "b"], [(0, 1, 1.0)] * 3 + [(0, 1, 0.0)], anchor="b", anchor_elo=0, prior=0)
    >>> round(r["a"]), r["b"]      # 3 wins in 4: 400·log10(3)
    (191, 0.0)
    """
    from scipy.optimize import minimize

    n = len(players)
    wins = np.zeros((n, n))
    for i, j, s in games:
        wins[i, j] += s
        wins[j, i] += 1.0 - s
    played = (wins + wins.T) > 0
    wins = wins + played * (prior / 2.0)
    k = players.index(anchor)
    free = [i for i in range(n) if i != k]

    def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.zeros(n)
        theta[free] = x
        d = theta[None, :] - theta[:, None]            # d[i, j] = θj − θi
        p_lose = 1.0 / (1.0 + np.exp(-d))               # P(i loses to j)
        nll = float(np.sum(wins * np.logaddexp(0.0, d)))
        g = wins * p_lose                               # ∂/∂θj of wins[i,j]·log(1+e^(θj−θi)) is +this, ∂/∂θi −this
        grad = g.sum(axis=0) - g.sum(axis=1)
        return nll, grad[free]

    res = minimize(loss, np.zeros(n - 1), jac=True, method="BFGS")
    theta = np.zeros(n)
    theta[free] = res.x
    return {p: float(anchor_elo + ELO * theta[i]) for i, p in enumerate(players)}


def bootstrap_intervals(players: Sequence[str], pairs: dict[tuple[int, int], list[list[float]]], *, rounds: int,
                        seed: int, anchor: str = ANCHOR, anchor_elo: float = ANCHOR_ELO,
                        prior: float = PRIOR_GAMES) -> dict[str, tuple[float, float]]:
    """95% percentile intervals of the ratings: ``rounds`` refits on the games resampled with replacement,
    deal pair by deal pair within each pairing (``pairs[(i, j)]``: per deal, the scores of i in its games),
    from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    samples: list[list[float]] = [[] for _ in players]
    keys = sorted(pairs)
    for _ in range(rounds):
        games = []
        for i, j in keys:
            deals = pairs[(i, j)]
            for d in rng.integers(0, len(deals), len(deals)):
                games += [(i, j, s) for s in deals[d]]
        ratings = fit_elo(players, games, anchor=anchor, anchor_elo=anchor_elo, prior=prior)
        for idx, p in enumerate(players):
            samples[idx].append(ratings[p])
    return {p: (float(np.percentile(samples[i], 2.5)), float(np.percentile(samples[i], 97.5)))
            for i, p in enumerate(players)}


# ---------------------------------------------------------------- the games

class Timed:
    """A player whose every ``choose`` is timed (``times``: wall seconds per move; ``cpu``: the process's CPU
    seconds, what the move costs on a core of its own)."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = player.name
        self.times: list[float] = []
        self.cpu: list[float] = []

    def start_game(self, game: int) -> None:
        if hasattr(self.player, "start_game"):
            self.player.start_game(game)

    def choose(self, state: engine.GameState) -> engine.Action:
        t0, c0 = time.perf_counter(), time.process_time()
        action = self.player.choose(state)
        self.times.append(time.perf_counter() - t0)
        self.cpu.append(time.process_time() - c0)
        return action


@dataclass(frozen=True)
class Game:
    """One game's outcome: side a's spec, side b's, the job, a's score (1 won, 0 lost), both think times
    (wall and CPU seconds per move)."""

    a: str
    b: str
    job: Job
    score_a: float
    margin_a: int
    times_a: list[float] = field(default_factory=list)
    times_b: list[float] = field(default_factory=list)
    cpu_a: list[float] = field(default_factory=list)
    cpu_b: list[float] = field(default_factory=list)


def player_seed(seed: int, spec: str) -> int:
    """Each player's seed in the ladder: the run's seed and the player's place in the default list."""
    return seed * 100 + (DEFAULT_PLAYERS.index(spec) if spec in DEFAULT_PLAYERS else 99)


def play(a: str, b: str, seed: int, edition: str, job: Job) -> Game:
    """One game (in a worker process)."""
    pa, pb = Timed(make_player(a, player_seed(seed, a))), Timed(make_player(b, player_seed(seed, b)))
    final, _ = play_match_game(pa, pb, edition, job)
    sa, sb, a_won = side_scores(job[0], final)
    return Game(a, b, job, 1.0 if a_won else 0.0, sa - sb, pa.times, pb.times, pa.cpu, pb.cpu)


def cost(spec: str) -> int:
    """A rough cost of a player's game (to start the dear games first)."""
    name, _, arg = spec.partition(":")
    return LEVELS[int(arg)].iterations if name == "level" else 1


def pairings(players: Sequence[str], top_opponents: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of players, but the top level only against ``top_opponents`` (those of them playing)."""
    out = []
    for a, b in itertools.combinations(players, 2):
        if TOP in (a, b) and (b if a == TOP else a) not in top_opponents:
            continue
        out.append((a, b))
    return out


def run_games(todo: list[tuple[str, str, Job]], seed: int, edition: str, workers: int,
              progress: bool = True) -> list[Game]:
    """Every game of ``todo``, the dearest first, ``workers`` at a time."""
    todo = sorted(todo, key=lambda t: -(cost(t[0]) + cost(t[1])))
    out: list[Game] = []
    t0 = time.perf_counter()
    if workers <= 1:
        for a, b, job in todo:
            out.append(play(a, b, seed, edition, job))
        return out
    with ProcessPoolExecutor(max_workers=workers) as ex:
        futures = [ex.submit(play, a, b, seed, edition, job) for a, b, job in todo]
        for k, f in enumerate(as_completed(futures), 1):
            out.append(f.result())
            if progress and (k % max(1, len(todo) // 10) == 0 or k == len(todo)):
                print(f"  {k}/{len(todo)} games, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return out


# ---------------------------------------------------------------- the report

def percentile(xs: Sequence[float], q: float) -> float:
    return float(np.percentile(xs, q)) if xs else 0.0


def summarize(players: list[str], games: list[Game], rounds: int, seed: int) -> dict[str, Any]:
    """Ratings, intervals, head-to-head scores and think times of the games."""
    index = {p: i for i, p in enumerate(players)}
    flat = [(index[g.a], index[g.b], g.score_a) for g in games]
    ratings = fit_elo(players, flat)
    by_deal: dict[tuple[int, int], dict[int, list[float]]] = {}
    for g in games:
        i, j, s = index[g.a], index[g.b], g.score_a
        if i > j:
            i, j, s = j, i, 1.0 - s
        by_deal.setdefault((i, j), {}).setdefault(g.job[1], []).append(s)
    pairs = {k: list(v.values()) for k, v in by_deal.items()}
    intervals = bootstrap_intervals(players, pairs, rounds=rounds, seed=seed)
    times: dict[str, list[float]] = {p: [] for p in players}
    cpu: dict[str, list[float]] = {p: [] for p in players}
    played: dict[str, int] = {p: 0 for p in players}
    points: dict[str, float] = {p: 0.0 for p in players}
    for g in games:
        times[g.a] += g.times_a
        times[g.b] += g.times_b
        cpu[g.a] += g.cpu_a
        cpu[g.b] += g.cpu_b
        played[g.a] += 1
        played[g.b] += 1
        points[g.a] += g.score_a
        points[g.b] += 1.0 - g.score_a
    head: dict[str, dict[str, list[float]]] = {p: {} for p in players}
    for g in games:
        wa = head[g.a].setdefault(g.b, [0.0, 0.0])
        wa[0] += g.score_a
        wa[1] += 1
        wb = head[g.b].setdefault(g.a, [0.0, 0.0])
        wb[0] += 1.0 - g.score_a
        wb[1] += 1
    table = {p: {"elo": round(ratings[p], 1), "low": round(intervals[p][0], 1), "high": round(intervals[p][1], 1),
                 "games": played[p], "score": round(points[p] / played[p], 4) if played[p] else None,
                 "think_mean": round(float(np.mean(times[p])), 4) if times[p] else 0.0,
                 "think_p95": round(percentile(times[p], 95), 4), "moves": len(times[p]),
                 "cpu_mean": round(float(np.mean(cpu[p])), 4) if cpu[p] else 0.0,
                 "cpu_p95": round(percentile(cpu[p], 95), 4)}
             for p in players}
    return {"players": table,
            "head_to_head": {p: {q: {"score": v[0], "games": int(v[1])} for q, v in sorted(head[p].items())}
                             for p in players}}


def head_score(summary: dict[str, Any], a: str, b: str) -> float | None:
    h = summary["head_to_head"].get(a, {}).get(b)
    return None if not h or not h["games"] else h["score"] / h["games"]


def targets(summary: dict[str, Any]) -> list[tuple[str, bool | None, str]]:
    """Each target: (what, met — None when the games needed were not played, the figures)."""
    table = summary["players"]
    levels = [p for p in LEVEL_SPECS if p in table]
    out: list[tuple[str, bool | None, str]] = []
    elos = [table[p]["elo"] for p in levels]
    if len(levels) >= 2:
        out.append(("ratings increase with the level", all(x < y for x, y in zip(elos, elos[1:])),
                    " < ".join(f"{e:.0f}" for e in elos)))
        gaps = [y - x for x, y in zip(elos, elos[1:])]
        out.append((f"adjacent levels {GAP[0]:.0f}-{GAP[1]:.0f} Elo apart",
                    all(GAP[0] <= g <= GAP[1] for g in gaps), ", ".join(f"{g:+.0f}" for g in gaps)))
    s = head_score(summary, "level:1", "greedy")
    out.append(("level 1 scores below 50% against greedy", None if s is None else s < 0.5,
                "not played" if s is None else f"{s:.1%}"))
    s = head_score(summary, TOP, "level:1")
    out.append(("level 8 scores above 95% against level 1", None if s is None else s > 0.95,
                "not played" if s is None else f"{s:.1%}"))
    slow = [(p, table[p]["think_mean"], table[p]["think_p95"]) for p in levels]
    slow_cpu = [(p, table[p]["cpu_mean"], table[p]["cpu_p95"]) for p in levels]
    worst_mean = max(slow, key=lambda t: t[1]) if slow else None
    worst_p95 = max(slow, key=lambda t: t[2]) if slow else None
    if worst_mean and worst_p95:
        out.append((f"each level thinks at most {THINK_LIMIT} s a move (mean and p95)",
                    all(m <= THINK_LIMIT and q <= THINK_LIMIT for _, m, q in slow),
                    f"slowest mean {worst_mean[1]:.3f} s ({worst_mean[0]}), "
                    f"slowest p95 {worst_p95[2]:.3f} s ({worst_p95[0]}); in CPU time "
                    f"{max(m for _, m, _ in slow_cpu):.3f} s and {max(q for _, _, q in slow_cpu):.3f} s"))
    return out


def print_report(players: list[str], summary: dict[str, Any]) -> None:
    table = summary["players"]
    w = max(map(len, players))
    print(f"\n| {'player':<{w}} | Elo | 95% interval | games | score | think mean | think p95 | CPU mean | CPU p95 |")
    print(f"| {'-' * w} | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in sorted(players, key=lambda q: table[q]["elo"]):
        r = table[p]
        score = "-" if r["score"] is None else f"{r['score']:.1%}"
        print(f"| {p:<{w}} | {r['elo']:.0f} | {r['low']:.0f} to {r['high']:.0f} | {r['games']} | {score} "
              f"| {r['think_mean']:.3f} s | {r['think_p95']:.3f} s | {r['cpu_mean']:.3f} s | {r['cpu_p95']:.3f} s |")
    print("\nscores, row against column (games in brackets):")
    short = {p: p.replace("level:", "L") for p in players}
    print(" " * (w + 1) + "".join(f"{short[q]:>10}" for q in players))
    for p in players:
        cells = []
        for q in players:
            h = summary["head_to_head"][p].get(q)
            cells.append(f"{h['score'] / h['games']:>5.0%} ({h['games']:>2})" if h else f"{'':>10}")
        print(f"{p:<{w}} " + "".join(f"{c:>10}" for c in cells))
    print("\ntargets:")
    for what, met, figures in targets(summary):
        mark = "not checked" if met is None else ("met" if met else "MISSED")
        print(f"  {mark:<11}  {what}: {figures}")


def level_settings() -> dict[str, dict[str, Any]]:
    """Each level's settings, as the ratings file records them (``level:N`` → iterations, temperature, ...)."""
    return {f"level:{n}": {"iterations": lv.iterations, "temperature": lv.temperature, "window": lv.window,
                           "prove": lv.prove} for n, lv in sorted(LEVELS.items())}


def write_data(summary: dict[str, Any], args: argparse.Namespace, deals: list[int], path: Path = DATA_FILE) -> None:
    """The ratings file the engine and the web app read (``engine.players.levels.level_ratings``)."""
    data = {
        "about": "Measured ratings of the engine's levels (python -m bench levels --write): Bradley-Terry Elo "
                 "with 95% bootstrap intervals, and think time per move in seconds.",
        "date": datetime.date.today().isoformat(),
        "command": "python -m bench levels " + " ".join(args.argv),
        "anchor": f"{ANCHOR} = {ANCHOR_ELO:g}",
        "games": args.games,
        "seed": args.seed,
        "deals": deals,
        "levels": level_settings(),
        "players": summary["players"],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}")


def main(argv: list[str] | None = None) -> int:
    argv = list(argv if argv is not None else [])
    ap = argparse.ArgumentParser(prog="bench_levels", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="deal pairs per pairing (2 games each; default 4)")
    ap.add_argument("--workers", type=int, default=2, help="games played at a time, one process each (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals, the players and the bootstrap (default 1)")
    ap.add_argument("--players", default=",".join(DEFAULT_PLAYERS),
                    help="comma-separated player specs (default: random, greedy and the eight levels)")
    ap.add_argument("--top-opponents", default=DEFAULT_TOP_OPPONENTS,
                    help=f"whom {TOP} plays (default {DEFAULT_TOP_OPPONENTS}; 'all' for everyone)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="refits for the 95%% intervals (default 1000)")
    ap.add_argument("--edition", default="revised", choices=("revised", "original"))
    ap.add_argument("--json", metavar="PATH", help="write everything measured (and every game) as JSON")
    ap.add_argument("--write", action="store_true", help=f"store the ratings in {DATA_FILE.name} (the engine's data)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    args.argv = argv
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    for p in players:
        try:
            make_player(p, 0)
        except ValueError as e:
            print(f"bench_levels: --players: {e}", file=sys.stderr)
            return 2
    if len(set(players)) != len(players) or len(players) < 2 or ANCHOR not in players:
        print(f"bench_levels: --players: at least two distinct players, {ANCHOR} among them (the anchor)",
              file=sys.stderr)
        return 2
    if args.games < 1 or args.workers < 1 or args.bootstrap < 1:
        print("bench_levels: --games, --workers and --bootstrap must be at least 1", file=sys.stderr)
        return 2
    top_opponents = players if args.top_opponents.strip() == "all" else [
        p.strip() for p in args.top_opponents.split(",")]
    pairs = pairings(players, top_opponents)
    match_jobs = jobs(2 * args.games, args.seed)
    deals = [deal for g, deal, _ in match_jobs if g % 2 == 0]
    print(f"{len(players)} players, {len(pairs)} pairings x {args.games} deal pairs = {2 * args.games * len(pairs)} "
          f"games, {args.workers} at a time; {args.edition} edition; seed {args.seed} "
          f"(player seeds {args.seed}*100 + place in the default list)")
    print(f"deals (engine.new_game seeds; each played twice, seats swapped): {', '.join(map(str, deals))}")
    print("levels: " + "; ".join(f"{n}: {lv.iterations} it, T {lv.temperature:g}, window {lv.window:g}"
                                 f"{', proofs' if lv.prove else ''}" for n, lv in sorted(LEVELS.items())))
    print(f"{TOP} plays: {', '.join(p for p in players if p != TOP and p in top_opponents) or 'nobody'}", flush=True)
    t0 = time.perf_counter()
    todo = [(a, b, job) for a, b in pairs for job in match_jobs]
    games = run_games(todo, args.seed, args.edition, args.workers)
    wall = time.perf_counter() - t0
    print(f"played {len(games)} games in {wall:.0f} s ({os.cpu_count()} cores here)")
    summary = summarize(players, games, args.bootstrap, args.seed)
    print(f"Elo: Bradley-Terry (scipy BFGS), {ANCHOR} = {ANCHOR_ELO:g}, {PRIOR_GAMES:g} virtual drawn game per "
          f"pairing; 95% intervals: {args.bootstrap} bootstrap refits over deal pairs, seed {args.seed}")
    print_report(players, summary)
    if args.json:
        doc = {"seed": args.seed, "games": args.games, "deals": deals, "wall_seconds": round(wall, 1),
               "levels": level_settings(), "argv": argv, **summary,
               "targets": [{"target": t, "met": m, "figures": f} for t, m, f in targets(summary)],
               "games_played": [{"a": g.a, "b": g.b, "game": g.job[0], "deal": g.job[1], "b_first": g.job[2],
                                 "score_a": g.score_a, "margin_a": g.margin_a} for g in games]}
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    if args.write:
        write_data(summary, args, deals)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
