"""Play strength of the new search against search-v1: paired deals, alternating seats, Wilson intervals.

    python -m bench strength                              # both default pairs, 100 games each, 2 processes
    python -m bench strength --games 4 --jobs 2
    python -m bench strength --pairs search:0.1/search-v1:1 --games 20

Each pair ``A/B`` is a match of ``--games`` games (even: every deal is played twice, seats swapped; the games
are ``engine.games.jobs`` of ``--seed``, as ``engine match`` plays them), run ``--jobs`` games at a time in
separate processes (one per core: time-budgeted players spend their budget whatever else runs, so use at
most one job per core). Prints A's wins, its win rate and the 95% Wilson interval. Targets (issue 18):
``search:0.1`` vs ``search-v1:1`` ≥ 60%, ``search:1`` vs ``search-v1:1`` ≥ 75%.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from quiltsolve.engine.games import Job, jobs, play_match_game, side_scores, summarize
from quiltsolve.engine.players import make_player

from bench import search_v1  # noqa: F401  (registers the search-v1 spec, the baseline)

DEFAULT_PAIRS = "search:0.1/search-v1:1,search:1/search-v1:1"


def _play(spec_a: str, spec_b: str, seed: int, edition: str, job: Job) -> tuple[int, int, bool]:
    """One game of the match in a worker process: (score of side a, score of side b, a won)."""
    pa, pb = make_player(spec_a, seed), make_player(spec_b, seed + 1)
    final, _ = play_match_game(pa, pb, edition, job)
    return side_scores(job[0], final)


def run_pair(spec_a: str, spec_b: str, games: int, seed: int, n_jobs: int, edition: str = "revised") -> str:
    """The match of one pair; returns its table row."""
    t0 = time.perf_counter()
    todo = jobs(games, seed)
    if n_jobs <= 1:
        results = [_play(spec_a, spec_b, seed, edition, j) for j in todo]
    else:
        with ProcessPoolExecutor(max_workers=n_jobs) as ex:
            results = list(ex.map(_play, [spec_a] * games, [spec_b] * games, [seed] * games, [edition] * games,
                                  todo))
    s = summarize((spec_a, spec_b), results, edition, seed, time.perf_counter() - t0)
    lo, hi = s.ci95_a
    return (f"| {spec_a} vs {spec_b} | {s.games} | {s.wins_a}-{s.wins_b} | {s.win_rate_a:.1%} | {lo:.1%}-{hi:.1%} "
            f"| {s.mean_margin_a:+.1f} | {s.seconds:.0f} s |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_strength", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", default=DEFAULT_PAIRS, help=f"comma-separated A/B player specs (default {DEFAULT_PAIRS})")
    ap.add_argument("--games", type=int, default=100, help="games per pair (even: each deal twice)")
    ap.add_argument("--jobs", type=int, default=2, help="games played at a time, one process each")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edition", default="revised", choices=("revised", "original"))
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    pairs = []
    for item in args.pairs.split(","):
        a, sep, b = item.strip().partition("/")
        if not sep or not a or not b:
            print(f"bench_strength: bad pair {item!r}; expected A/B (e.g. search:1/search-v1:1)", file=sys.stderr)
            return 2
        try:
            make_player(a, 0)
            make_player(b, 0)
        except ValueError as e:
            print(f"bench_strength: {e}", file=sys.stderr)
            return 2
        pairs.append((a, b))
    if args.games < 2 or args.games % 2 or args.jobs < 1:
        print("bench_strength: --games must be even and >= 2, --jobs >= 1", file=sys.stderr)
        return 2
    print(f"{args.games} games per pair (paired deals, seats swapped), {args.jobs} at a time, seed {args.seed}, "
          f"{args.edition} edition")
    print("| match | games | wins | win rate | 95% CI (Wilson) | mean margin | time |")
    print("| --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for a, b in pairs:
        print(run_pair(a, b, args.games, args.seed, args.jobs, args.edition), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
