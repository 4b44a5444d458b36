"""Seeded search-vs-search self-play with each decision's search statistics, as JSONL (the win-chance model's data).

    python -m bench selfplay                                   # a tiny run: 4 held-out games at 300 it
    python -m bench selfplay --games 300it:2000001-2002000 --games 3000it:2000001-2000500 \\
        --out runs/ --workers 16                               # training games, 16 processes
    python -m bench selfplay --games 1s:5001-5300 --out runs/ --ray auto   # on a Ray cluster
    python -m bench selfplay ... --deadline 300                # start no game after 300 s

Each ``--games BUDGET:FIRST-LAST`` plays one game per deal ``d`` of the range: ``new_game(d)``, played to
the end by two ``search`` players of that budget (``300it``, ``3000it``, ``30000it``: iterations a move,
reproducible; ``1s``: seconds a move, as many iterations as the machine gives) with seeds ``2·d`` and
``2·d + 1``, as :class:`engine.players.search.SearchPlayer` plays by default (its endgame proofs on). Every
decision is recorded with what the player found (:func:`decision_record`): a forced move, a proven move
(the solver's margin and certain chance) or a search (iterations reached, the best and second root moves'
statistics, the root's totals). One JSON line a game (:func:`game_record`), in
``OUT/selfplay-BUDGET-FIRST-LAST.jsonl``, written as each game ends; a run skips the deals that a file of
the same budget in ``OUT`` already holds, so an interrupted run resumes. A game whose player raises is not
fatal: its deal, ply, position (state JSON) and traceback go to ``OUT/errors.jsonl``, the other games go
on, and the run exits 3 (the failed deal is played again by the next run).

Deals: the held-out games of the calibration checks are deals 5,001-6,200 (:data:`HELDOUT`, rounds of 400);
the model is fitted only on deals from 2,000,001 (:data:`TRAIN_FIRST`) and on the held-out deals an earlier
check has read (:data:`SPENT`, 5,001-5,800); docs/players.md states the checks.
``--workers N`` processes (default 2), or ``--ray auto|local|ADDRESS``: one Ray task a game on a cluster
(as ``engine.distributed`` plays matches). Games of a time budget (the longest, a minute or more at
1 s) are handed out first, longest first, then the others in the order of the ``--games`` options, each
range in deal order; ``--deadline S`` starts no game after S seconds (the games under way finish) and
prints how many were left, so list what matters most first.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import sys
import tempfile
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, TextIO

FORMAT = "quiltsolve-selfplay/1"
HELDOUT = (5_001, 6_200)
"""The deals of the calibration checks' held-out games (inclusive), in rounds of 400 (300 at 1 s): the first,
5,001-5,400 (5,001-5,300 at 1 s), read by the checks of 2026-12-03 to 05; the second, 5,401-5,800 (5,401-5,700
at 1 s), stated and read on 2026-12-05; the third, 5,801-6,200 (5,801-6,100 at 1 s), stated on 2026-12-05
(docs/players.md)."""
SPENT = (5_001, 5_800)
"""Held-out deals that checks have read (the first two rounds): the fit may train on them, and a check refuses
the deals its model was trained on (the model's ``fitted.trained_deals``)."""
TRAIN_FIRST = 2_000_001
"""The first deal the win-chance model may be fitted on (and the :data:`SPENT` ones)."""
BUDGET_RE = re.compile(r"^(?:(\d+)it|(\d+(?:\.\d+)?)s)$")
ERRORS = "errors.jsonl"
"""Where a run keeps the games whose player raised (each with its position and traceback), in ``--out``."""


def trainable(deal: int) -> bool:
    """Whether the win-chance model may be fitted on ``deal``'s games.

    >>> trainable(2_000_001), trainable(5_001), trainable(5_801)
    (True, True, False)
    """
    return deal >= TRAIN_FIRST or SPENT[0] <= deal <= SPENT[1]


def deal_ranges(deals: Iterable[int]) -> list[list[int]]:
    """``deals`` as inclusive ranges, in order.

    >>> deal_ranges([7, 5, 6, 9, 2_000_001])
    [[5, 7], [9, 9], [2000001, 2000001]]
    """
    out: list[list[int]] = []
    for d in sorted(set(deals)):
        if out and d == out[-1][1] + 1:
            out[-1][1] = d
        else:
            out.append([d, d])
    return out


@dataclass(frozen=True)
class Budget:
    """A search budget: ``iterations`` a move, or ``seconds`` a move."""

    label: str
    iterations: int | None = None
    seconds: float | None = None

    def cost(self) -> float:
        """A rough CPU cost of one game in seconds (to hand out the longest time budgets first)."""
        if self.seconds is not None:
            return 60.0 * self.seconds
        assert self.iterations is not None
        return 0.05 + self.iterations / 4000.0


def parse_budget(text: str) -> Budget:
    """``300it`` or ``1s`` (``0.5s``) as a :class:`Budget`; ``ValueError`` naming the text otherwise.

    >>> parse_budget("300it"), parse_budget("1s").seconds
    (Budget(label='300it', iterations=300, seconds=None), 1.0)
    """
    m = BUDGET_RE.match(text.strip())
    if not m:
        raise ValueError(f"budget {text!r}: write Nit (iterations a move) or Ss (seconds a move), e.g. 300it or 1s")
    if m.group(1) is not None:
        n = int(m.group(1))
        if not 1 <= n <= 10_000_000:
            raise ValueError(f"budget {text!r}: iterations must be in 1..10000000")
        return Budget(f"{n}it", iterations=n)
    s = float(m.group(2))
    if not 0 < s <= 600:
        raise ValueError(f"budget {text!r}: seconds must be more than 0 and at most 600")
    return Budget(f"{s:g}s", seconds=s)


def parse_games(text: str) -> tuple[Budget, int, int]:
    """``BUDGET:FIRST-LAST`` (or ``BUDGET:DEAL``) as (budget, first deal, last deal).

    >>> b, first, last = parse_games("3000it:5001-5400"); (b.label, first, last)
    ('3000it', 5001, 5400)
    """
    budget, sep, deals = text.partition(":")
    if not sep:
        raise ValueError(f"--games {text!r}: write BUDGET:FIRST-LAST, e.g. 300it:5001-5400")
    m = re.match(r"^(\d+)(?:-(\d+))?$", deals.strip())
    if not m:
        raise ValueError(f"--games {text!r}: the deals must be FIRST-LAST (whole numbers)")
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else first
    if not 0 <= first <= last <= 2**31 - 1:
        raise ValueError(f"--games {text!r}: deals must be 0 <= FIRST <= LAST < 2^31")
    return parse_budget(budget), first, last


# ----------------------------------------------------------------------------------------------- records
def decision_record(state: Any, player: Any) -> dict[str, Any]:
    """What ``player`` (a :class:`SearchPlayer` that has just chosen in ``state``) found, as a JSON object.

    Always ``ply``, ``mover`` (0/1), ``left`` (time-track spaces left, both players), ``pos`` (both
    players' positions), ``kind``. ``forced``: nothing else. ``proven``: ``margin`` (the chosen move's
    proven margin for the mover) and ``chance`` (its certain win chance: 1, 0 or the tie rule's), ``nodes``.
    ``search``: ``it`` (iterations reached), ``nodes`` (tree nodes), ``moves`` (root moves), ``root_n``
    and ``root_w`` (the root's visits and summed reward), and for the best move (as played and shown)
    ``v`` (its shrunk mean reward, what the win chance is computed from), ``n``, ``w``, ``wins``,
    ``margin`` (summed playout margin); ``v2`` and ``n2`` for the second move (None when alone).
    """
    from quiltsolve.engine.players.proven import spaces_left
    from quiltsolve.engine.players.search import ranked_moves

    rec: dict[str, Any] = {"mover": state.current_player(), "left": spaces_left(state),
                           "pos": [p.position for p in state.players]}
    proof, res = player.last_proof, player.last_search
    if player.last_proven and proof is not None:
        best = proof.moves[0]
        rec.update(kind="proven", margin=best.proven_margin, chance=best.win_chance, nodes=proof.nodes)
    elif res is not None and res.children:
        ranked = ranked_moves(res.children)
        v, ch = ranked[0]
        rec.update(kind="search", it=res.iterations, nodes=res.nodes, moves=len(res.children),
                   root_n=sum(c.n for c in res.children), root_w=round(sum(c.w for c in res.children), 6),
                   v=round(v, 9), n=ch.n, w=round(ch.w, 6), wins=ch.wins, margin=ch.margin,
                   v2=round(ranked[1][0], 9) if len(ranked) > 1 else None,
                   n2=ranked[1][1].n if len(ranked) > 1 else None)
    else:
        rec["kind"] = "forced"
    return rec


def make_side(budget: Budget, seed: int) -> Any:
    """The ``search`` player of ``budget`` with ``seed``."""
    from quiltsolve.engine.players.search import SearchPlayer

    if budget.iterations is not None:
        return SearchPlayer(iterations=budget.iterations, seed=seed)
    return SearchPlayer(time_limit=budget.seconds if budget.seconds is not None else 1.0, seed=seed)


def play_game(deal: int, budget_label: str) -> dict[str, Any]:
    """One self-play game of ``deal`` at the budget ``budget_label``: its :func:`game_record` (a plain dict)."""
    from quiltsolve.engine import core, new_game

    budget = parse_budget(budget_label)
    state = new_game(deal)
    sides = [make_side(budget, 2 * deal), make_side(budget, 2 * deal + 1)]
    decisions = []
    t0 = time.perf_counter()
    c0 = time.process_time()
    ply = 0
    while not state.is_terminal():
        player = sides[state.current_player()]
        try:
            action = player.choose(state)
        except Exception:  # noqa: BLE001 - a player's bug: kept with its position to reproduce, not fatal
            return failed_game(deal, budget, state, ply)
        rec = decision_record(state, player)
        decisions.append({"ply": ply, **rec})
        state.apply_action(action)
        ply += 1
    return game_record(deal, budget, state, decisions, wall=time.perf_counter() - t0,
                       cpu=time.process_time() - c0, backend=core.backend())


def failed_game(deal: int, budget: Budget, state: Any, ply: int) -> dict[str, Any]:
    """What a game whose player raised leaves (call it in the ``except`` block): the deal, the budget, the
    ply, the position (``GameState.to_json()``, to reproduce the failure) and the traceback. The run goes on
    with the other games; :func:`main` writes these to ``errors.jsonl`` and exits 3."""
    return {"format": FORMAT, "error": traceback.format_exc(limit=20), "deal": deal, "budget": budget.label,
            "ply": ply, "state": state.to_json()}


def game_record(deal: int, budget: Budget, final: Any, decisions: list[dict[str, Any]], *, wall: float,
                cpu: float, backend: str) -> dict[str, Any]:
    """One game's JSON object: the format, the deal, the budget, the seeds, the winner and final scores, the
    decisions (:func:`decision_record` each, with its ``ply``) and what it cost."""
    return {"format": FORMAT, "deal": deal, "budget": budget.label, "seeds": [2 * deal, 2 * deal + 1],
            "edition": final.edition, "core": backend, "winner": final.winner(),
            "scores": list(final.scores()), "plies": len(decisions),
            "wall": round(wall, 3), "cpu": round(cpu, 3), "decisions": decisions}


def _open(path: str, mode: str) -> TextIO:
    if path.endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode, encoding="utf-8")


class RecordError(ValueError):
    """A self-play file that cannot be read: the message names the file, the line and the field."""


def check_record(rec: Any, where: str) -> dict[str, Any]:
    """``rec`` if it is a self-play game record, else :class:`RecordError` naming ``where`` and the field."""
    if not isinstance(rec, dict):
        raise RecordError(f"{where}: a game record must be a JSON object")
    if rec.get("format") != FORMAT:
        raise RecordError(f"{where}: format: expected {FORMAT!r}, not {rec.get('format')!r}")
    for key, kind in (("deal", int), ("budget", str), ("winner", int), ("decisions", list)):
        if not isinstance(rec.get(key), kind) or isinstance(rec.get(key), bool):
            raise RecordError(f"{where}: {key}: missing or not a{'n' if kind is int else ''} {kind.__name__}")
    try:
        parse_budget(rec["budget"])
    except ValueError as e:
        raise RecordError(f"{where}: budget: {e}") from None
    if rec["winner"] not in (0, 1):
        raise RecordError(f"{where}: winner: must be 0 or 1")
    for i, d in enumerate(rec["decisions"]):
        if not isinstance(d, dict) or d.get("kind") not in ("forced", "proven", "search") or d.get("mover") not in (0, 1):
            raise RecordError(f"{where}: decisions[{i}]: needs kind (forced, proven, search) and mover (0, 1)")
        if d["kind"] == "search":
            for key in ("it", "v", "n", "left"):
                if not isinstance(d.get(key), (int, float)) or isinstance(d.get(key), bool):
                    raise RecordError(f"{where}: decisions[{i}].{key}: missing or not a number")
        if d["kind"] == "proven" and not isinstance(d.get("chance"), (int, float)):
            raise RecordError(f"{where}: decisions[{i}].chance: missing or not a number")
    return rec


def write_record(f: TextIO, rec: dict[str, Any]) -> None:
    """One game as one JSON line (compact), flushed."""
    f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    f.flush()


def read_records(paths: Iterable[str]) -> list[dict[str, Any]]:
    """Every game of the JSONL files ``paths`` (``.gz`` read compressed), checked (:func:`check_record`),
    sorted by budget and deal; the same game (budget and deal) twice is a :class:`RecordError`."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for path in paths:
        try:
            with _open(path, "r") as f:
                for k, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        rec = json.loads(line)
                    except ValueError as e:
                        raise RecordError(f"{path}:{k}: not JSON ({e})") from None
                    check_record(rec, f"{path}:{k}")
                    key = (rec["budget"], rec["deal"])
                    if key in out:
                        raise RecordError(f"{path}:{k}: deal {rec['deal']} at {rec['budget']} is there twice")
                    out[key] = rec
        except OSError as e:
            raise RecordError(f"{path}: cannot read it ({e.strerror or e})") from None
    return [out[k] for k in sorted(out, key=lambda k: (_budget_order(k[0]), k[1]))]


def _budget_order(label: str) -> float:
    b = parse_budget(label)
    return b.iterations if b.iterations is not None else 1e12 * (b.seconds or 0)


def _done_deals(path: str) -> set[int]:
    """Deals already in ``path`` (a run started again skips them); a half-written last line is dropped."""
    if not os.path.exists(path):
        return set()
    done, good = set(), []
    with _open(path, "r") as f:
        for line in f:
            try:
                rec = json.loads(line)
                done.add(int(rec["deal"]))
                good.append(line if line.endswith("\n") else line + "\n")
            except (ValueError, KeyError, TypeError):
                continue
    with _open(path, "w") as f:       # rewritten without a torn line
        f.writelines(good)
    return done


# ------------------------------------------------------------------------------------------------- runs
Job = tuple[int, str]                       # (deal, budget label)


def _plan(specs: list[tuple[Budget, int, int]], out: str) -> tuple[list[tuple[Job, str]], int]:
    """The games still to play, in the order they are handed out, each with its file; and how many are
    already done."""
    jobs: list[tuple[float, int, Job, str]] = []
    skipped = 0
    done: dict[str, set[int]] = {}          # budget label -> deals in any of its files in ``out``
    for name in sorted(os.listdir(out)):
        m = re.match(r"^selfplay-(.+?)-\d+-\d+\.jsonl(?:\.gz)?$", name)
        if m:
            done.setdefault(m.group(1), set()).update(_done_deals(os.path.join(out, name)))
    queued: set[tuple[str, int]] = set()
    for order, (budget, first, last) in enumerate(specs):
        path = os.path.join(out, f"selfplay-{budget.label}-{first}-{last}.jsonl")
        for d in range(first, last + 1):
            if d in done.get(budget.label, ()) or (budget.label, d) in queued:
                skipped += 1
            else:
                queued.add((budget.label, d))
                jobs.append((0.0 if budget.seconds is None else -budget.cost(), order, (d, budget.label), path))
    jobs.sort(key=lambda j: (j[0], j[1], j[2][0]))
    return [(j, p) for _, _, j, p in jobs], skipped


def run_local(jobs: list[tuple[Job, str]], workers: int, deadline: float | None,
              on_game: Callable[[str, dict[str, Any]], None]) -> int:
    """Play ``jobs`` in ``workers`` processes (1: in this one); ``on_game(path, record)`` as each ends.
    Starts no game after ``deadline`` (``time.monotonic()``); returns how many were never started."""
    queue = list(jobs)
    if workers <= 1:
        while queue and (deadline is None or time.monotonic() < deadline):
            (deal, label), path = queue.pop(0)
            on_game(path, play_game(deal, label))
        return len(queue)
    with ProcessPoolExecutor(max_workers=workers) as ex:
        running: dict[Future[dict[str, Any]], str] = {}

        def submit() -> None:
            while queue and len(running) < workers and (deadline is None or time.monotonic() < deadline):
                (deal, label), path = queue.pop(0)
                running[ex.submit(play_game, deal, label)] = path
        submit()
        while running:
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for fut in done:
                on_game(running.pop(fut), fut.result())
            submit()
    return len(queue)


def run_ray(jobs: list[tuple[Job, str]], address: str, num_cpus: int | None, deadline: float | None,
            on_game: Callable[[str, dict[str, Any]], None]) -> int:
    """``run_local`` with one Ray task a game on the cluster at ``address`` (as many in flight as it has
    CPUs, so that ``deadline`` can hold back the rest); returns how many were never started."""
    from quiltsolve.solver.ray_count import RayUnavailableError, cluster_cpus, ray_session

    with ray_session(address, num_cpus=num_cpus) as ray:
        task = ray.remote(num_cpus=1, max_retries=0)(play_game)
        slots = cluster_cpus(ray)
        queue = list(jobs)
        running: dict[Any, str] = {}
        try:
            while queue or running:
                while queue and len(running) < slots and (deadline is None or time.monotonic() < deadline):
                    (deal, label), path = queue.pop(0)
                    running[task.remote(deal, label)] = path
                if not running:
                    break
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    path = running.pop(ref)
                    try:
                        rec = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:
                        raise RuntimeError(f"a game failed on a Ray worker: {getattr(e, 'cause', e)!r}") from None
                    except ray.exceptions.RayError as e:
                        raise RayUnavailableError(f"a game's Ray task was lost: {' '.join(str(e).split())[:300]}"
                                                  ) from None
                    on_game(path, rec)
        finally:
            for ref in running:
                ray.cancel(ref, force=True)
        return len(queue)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_selfplay", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", action="append", metavar="BUDGET:FIRST-LAST",
                    help="games to play (repeatable): budget 300it / 3000it / 30000it / 1s, and the deals "
                         f"(default 300it:{HELDOUT[0]}-{HELDOUT[0] + 3})")
    ap.add_argument("--out", metavar="DIR", help="folder of the JSONL files (default: a new temporary folder)")
    ap.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--ray", metavar="auto|local|ADDRESS", help="play the games as Ray tasks on this cluster")
    ap.add_argument("--cpus", type=int, help="CPUs of a private Ray cluster (--ray local; default all)")
    ap.add_argument("--deadline", type=float, metavar="S", help="start no game after S seconds")
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    try:
        specs = [parse_games(g) for g in (args.games or [f"300it:{HELDOUT[0]}-{HELDOUT[0] + 3}"])]
        if args.workers < 1:
            raise ValueError("--workers must be at least 1")
        if args.cpus is not None and args.cpus < 1:
            raise ValueError("--cpus must be at least 1")
        if args.deadline is not None and not (args.deadline > 0 and math.isfinite(args.deadline)):
            raise ValueError("--deadline must be a number of seconds above 0")
        if args.ray is not None:
            from quiltsolve.engine.distributed import check_ray
            check_ray(args.ray)
    except ValueError as e:
        print(f"bench_selfplay: {e}", file=sys.stderr)
        return 2
    out = args.out or tempfile.mkdtemp(prefix="selfplay-")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        print(f"bench_selfplay: --out: cannot make {out} ({e.strerror or e})", file=sys.stderr)
        return 2
    jobs, skipped = _plan(specs, out)
    t0 = time.monotonic()
    deadline = None if args.deadline is None else t0 + args.deadline
    files: dict[str, TextIO] = {}
    played: dict[str, list[float]] = {}

    errors: list[dict[str, Any]] = []

    def on_game(path: str, rec: dict[str, Any]) -> None:
        if "error" in rec:   # kept apart, with its position; the game is played again by a later run
            errors.append(rec)
            path = os.path.join(out, ERRORS)
            last = rec["error"].strip().splitlines()[-1]
            print(f"bench_selfplay: {rec['budget']} deal {rec['deal']} failed at ply {rec['ply']}: {last} "
                  f"(position in {path})", file=sys.stderr, flush=True)
        if path not in files:
            files[path] = _open(path, "a")
        write_record(files[path], rec)
        if "error" not in rec:
            played.setdefault(rec["budget"], []).append(rec["cpu"])

    where = f"Ray ({args.ray})" if args.ray else f"{args.workers} process{'es' if args.workers > 1 else ''}"
    print(f"selfplay: {len(jobs)} games to play ({skipped} already in {out}), {where}", flush=True)
    try:
        if args.ray:
            left = run_ray(jobs, args.ray, args.cpus, deadline, on_game)
        else:
            left = run_local(jobs, args.workers, deadline, on_game)
    except Exception as e:  # noqa: BLE001 - a lost cluster, a failed game: one line
        print(f"bench_selfplay: {e}", file=sys.stderr)
        return 3
    finally:
        for f in files.values():
            f.close()
    wall = time.monotonic() - t0
    print("| budget | games | CPU s a game (mean) | CPU s a game (max) |")
    print("| --- | --- | --- | --- |")
    for label, cpus in sorted(played.items(), key=lambda kv: _budget_order(kv[0])):
        print(f"| {label} | {len(cpus)} | {sum(cpus) / len(cpus):.1f} | {max(cpus):.1f} |")
    print(f"{sum(map(len, played.values()))} games in {wall:.0f} s; {left} not started (deadline); files in {out}")
    if errors:
        print(f"bench_selfplay: {len(errors)} game(s) failed; their positions are in "
              f"{os.path.join(out, ERRORS)}", file=sys.stderr)
        return 3
    return 0


def iter_decisions(records: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any], int]]:
    """(game, decision, mover won: 0/1) for every decision of every game."""
    for rec in records:
        for d in rec["decisions"]:
            yield rec, d, int(d["mover"] == rec["winner"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
