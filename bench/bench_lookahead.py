"""Lagerkvist's sequence benchmark for lookahead placement (issue 3, problem 3).

The 33 patches plus the five 1×1 leather patches, in a seeded random order,
are placed one at a time on an empty 9×9 board. A tile that fits must be
placed; one that no longer fits is skipped. Our policy places each tile with
:func:`solver.rank_placements` knowing the next ``--lookahead`` tiles. Two
baselines: bottom-left first-fit, and "touch the most filled cells or edges".

    python -m bench lookahead            # 100 orders
    python -m bench.bench_lookahead --orders 20
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from quiltsolve.solver.geometry import FULL_BOARD, cells_of
from quiltsolve.solver.patches import LEATHER_PATCH_ID, LEATHER_SHAPE, PATCHES


def _tiles() -> list[int]:
    return list(range(len(PATCHES))) + [LEATHER_PATCH_ID] * 5


def _shape(t):
    return LEATHER_SHAPE if t == LEATHER_PATCH_ID else PATCHES[t].shape


def _legal(board: int, t) -> list[tuple[int, int]]:
    """(orientation, mask) of every legal placement, in the geometry order."""
    from quiltsolve.solver.geometry import placements
    return [(p.orientation, p.mask) for p in placements(_shape(t)) if not p.mask & board]


def policy_bottom_left(board, tile, upcoming):
    """Lowest placement first (bottom row of the bounding box), then leftmost."""
    def key(om):
        cells = cells_of(om[1])
        return (-max(r for r, _ in cells), min(c for _, c in cells), om[0])
    return min(_legal(board, tile), key=key)[1]


def policy_touch(board, tile, upcoming):
    """Most edges touching filled cells or the border; ties: smallest mask."""
    from quiltsolve.solver.lookahead import touch_score
    return max(_legal(board, tile), key=lambda om: (touch_score(board, om[1]), -om[1]))[1]


def policy_lookahead(board, tile, upcoming):
    from quiltsolve.solver.lookahead import rank_placements
    r = rank_placements(board, tile, upcoming, top=1, time_limit=1.0)
    return r.ranked[0].placement.mask


def run(policy, orders: int, lookahead: int, seed0: int = 0) -> tuple[float, float, list[int]]:
    areas, times = [], []
    for k in range(orders):
        tiles = _tiles()
        random.Random(seed0 + k).shuffle(tiles)
        board = 0
        t0 = time.perf_counter()
        for i, t in enumerate(tiles):
            if not _legal(board, t):
                continue
            m = policy(board, t, tiles[i + 1:i + 1 + lookahead])
            assert not m & board
            board |= m
        times.append(time.perf_counter() - t0)
        areas.append(board.bit_count())
    return statistics.mean(areas), statistics.mean(times), areas


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_lookahead", description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int, default=100)
    ap.add_argument("--lookahead", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=["ours", "bottom-left", "touch"], default=None)
    args = ap.parse_args(argv)
    from quiltsolve import solver
    import quiltsolve.solver.lookahead  # noqa: F401  (import cost outside the timing)
    print(f"Lagerkvist sequence benchmark: 33 patches + 5 leather, {args.orders} seeded orders, "
          f"lookahead {args.lookahead}; target >= 80.0 cells, <= 1 s/sequence")
    print(f"{'policy':<26} {'mean area':>9} {'min':>4} {'max':>4} {'full':>5} {'s/sequence':>11}")
    rows = [("lookahead (ours)", "ours", policy_lookahead),
            ("bottom-left first-fit", "bottom-left", policy_bottom_left),
            ("touch filled/edges", "touch", policy_touch)]
    for name, tag, pol in rows:
        if args.only and args.only != tag:
            continue
        mean, secs, areas = run(pol, args.orders, args.lookahead, args.seed)
        print(f"{name:<26} {mean:9.2f} {min(areas):4d} {max(areas):4d} {areas.count(81):5d} {secs:11.3f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
