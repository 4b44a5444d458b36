"""Play strength: match tables of the search player against the others.

    python -m bench players                          # small default run
    python -m bench.bench_players --games 20 --budget 0.2 --mcts 2000
    python -m bench.bench_players --games 40 --budget 1.0 --tables greedy,mcts,service,self

Each table is ``engine.match.run_match`` (games in pairs on the same deal
with alternating starts, fixed seeds): the search player's wins, its win
rate with a 95 % Wilson interval, and the mean final margin. ``self`` plays
the search player against itself and reports the mean final score and mean
empty cells at the end. ``--budget`` is the search player's seconds per
move; time budgets depend on the machine's speed and load, so the printed
table says what ran.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time

from quiltsolve.engine import new_game
from quiltsolve.engine.match import play_game, run_match, wilson_interval

TABLES = ("greedy", "mcts", "service", "self")


def _versus(spec_b: str, args) -> str:
    a = f"search:{args.budget:g}"
    t0 = time.perf_counter()
    s = run_match(a, spec_b, games=args.games, seed=args.seed, edition=args.edition, ray=args.ray)
    lo, hi = s.ci95_a
    return (f"| {a} vs {spec_b} | {s.games} | {s.wins_a}-{s.wins_b} | {s.win_rate_a:.1%} "
            f"| {lo:.1%}-{hi:.1%} | {s.mean_margin_a:+.1f} | {s.mean_score_a:.1f} / {s.mean_score_b:.1f} "
            f"| {time.perf_counter() - t0:.0f} s |")


def _self_play(args) -> str:
    from quiltsolve.engine.players import make_player

    a = f"search:{args.budget:g}"
    pa, pb = make_player(a, args.seed), make_player(a, args.seed + 1)
    import random

    rng = random.Random(args.seed)
    scores, empties, wins0 = [], [], 0
    t0 = time.perf_counter()
    deals = [rng.randrange(2**31) for _ in range(args.games)]
    if args.ray is not None:  # the games as Ray tasks (engine/distributed.py)
        from quiltsolve.engine.distributed import play_games_ray
        finals = play_games_ray((pa, pb), deals, args.edition, address=args.ray)
    else:
        finals = (play_game((pa, pb), new_game(d, args.edition))[0] for d in deals)
    for final in finals:
        scores.extend(final.scores())
        empties.extend(p.empty for p in final.players)
        wins0 += final.winner() == 0
    n = len(scores)
    lo, hi = wilson_interval(wins0, args.games)
    return (f"| {a} self-play | {args.games} | first player {wins0}-{args.games - wins0} | {wins0 / args.games:.1%} "
            f"| {lo:.1%}-{hi:.1%} | mean score {sum(scores) / n:.1f} | mean empty cells {sum(empties) / n:.1f} "
            f"| {time.perf_counter() - t0:.0f} s |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_players", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="games per table (even: pairs of deals)")
    ap.add_argument("--budget", type=float, default=0.1, help="search player's seconds per move")
    ap.add_argument("--mcts", type=int, default=300, help="MCTS iterations per move")
    ap.add_argument("--service", type=float, default=0.1, help="service player's seconds per move")
    ap.add_argument("--tables", default=",".join(TABLES), help=f"comma-separated subset of {','.join(TABLES)}")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edition", default="revised", choices=("revised", "original"))
    ap.add_argument("--ray", metavar="auto|local|ADDRESS", help="play the games as Ray tasks (docs/ray.md)")
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    bad = [t for t in tables if t not in TABLES]
    if bad or args.games < 1 or args.budget <= 0 or args.mcts < 1:
        print(f"bench_players: bad options (tables {bad}, games {args.games}, budget {args.budget})",
              file=sys.stderr)
        return 2
    session = contextlib.nullcontext()
    if args.ray is not None:  # one Ray cluster for all the tables (engine/distributed.py, docs/ray.md)
        from quiltsolve.engine.distributed import check_ray
        from quiltsolve.solver.ray_count import ray_session
        try:
            check_ray(args.ray)
        except ValueError as e:
            print(f"bench_players: {e}", file=sys.stderr)
            return 2
        session = ray_session(args.ray)
    print(f"search:{args.budget:g} per move, {args.games} games per table, seed {args.seed}, "
          f"{args.edition} edition" + ("" if args.ray is None else f", games as Ray tasks ({args.ray})"))
    print("| match | games | wins | win rate | 95% CI (Wilson) | mean margin | mean scores | time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    with session:
        for t in tables:
            if t == "greedy":
                print(_versus("greedy", args), flush=True)
            elif t == "mcts":
                print(_versus(f"mcts:{args.mcts}", args), flush=True)
            elif t == "service":
                print(_versus(f"service:{args.service:g}", args), flush=True)
            else:
                print(_self_play(args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
