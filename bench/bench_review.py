"""The calibration check of the shown win chance, per budget on held-out self-play games (and the model's fit).

    python -m bench review                                  # a small run: plays 20 held-out games at 300 it first
    python -m bench review runs/selfplay-*-5001-*.jsonl     # the check on held-out games (bench selfplay's files)
    python -m bench review --fit runs/selfplay-*-2000001-*.jsonl   # fit the model, write src/quiltsolve/engine/data/winchance.json
    python -m bench review --model other.json FILES         # check another model

The check (docs/players.md states it, written before any fit): for each budget in the files (300it, 3000it,
30000it, 1s), on the held-out games (deals 5,001-6,200, in rounds of 400; any other deal is refused, and so is
a deal the model was trained on, its ``fitted.trained_deals``), every searched decision's
shown chance (the best move's, by the committed model, ``engine.players.calibration``) is put in its ten-point
bucket; from each game one position per bucket is drawn (seeded by the deal). It prints per budget the
buckets (positions, mean shown, observed win rate), the expected calibration error ``Σ (n_k/N)·|o_k − p_k|``
(≤ 0.02), the Hosmer-Lemeshow χ² of the ten buckets with its p-value (≥ 0.01), the games (≥ 400, ≥ 300 at
1 s) and **met** or **MISSED**, and writes a reliability diagram per budget (``--svg-dir``, default
``docs/img`` when files are given: ``winchance-BUDGET.svg``). Proven decisions (shown exactly 1, 0 or the tie rule's answer) and
forced ones are counted apart.

``--fit`` fits the one model (``bench/winchance_fit.py``: scikit-learn, the bench extra) on training games
(deals from 2,000,001, and the held-out deals earlier checks have read, 5,001-5,800; any other deal is
refused) and writes its JSON (``--out``, default
``src/quiltsolve/engine/data/winchance.json``), which the engine reads without scikit-learn. With
``--cv K`` it first chooses the spline's knots among ``--knots-grid`` by ``K``-fold cross-validation by game on
the training games alone (the lowest out-of-fold log loss over all decisions, weighted as the check draws), then
fits on all of them with that choice: the held-out games play no part in any choice.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from typing import Any, Sequence

from bench import bench_selfplay as selfplay
from bench import winchance_fit as wf

ECE_MAX = 0.02
P_MIN = 0.01
GAMES_NEEDED = {"1s": 300}
"""Held-out games a budget needs (400 unless listed)."""
DEFAULT_OUT = os.path.join("src", "quiltsolve", "engine", "data", "winchance.json")


def games_needed(label: str) -> int:
    return GAMES_NEEDED.get(label, 400)


def trained_on(model: Any, deal: int) -> bool:
    """Whether ``model`` was fitted on games of ``deal`` (its ``fitted.trained_deals`` ranges, any budget)."""
    return any(lo <= deal <= hi for lo, hi in model.fitted.get("trained_deals", ()))


def shown_chances(records: Sequence[dict[str, Any]], model: Any) -> list[tuple[float, int, int]]:
    """(shown chance, mover won, deal) of every searched decision, as the search shows it (rounded to 4 places)."""
    out = []
    for rec in records:
        for d in rec["decisions"]:
            if d["kind"] == "search":
                p = round(model.chance(float(d["v"]), int(d["it"]), int(d["left"])), 4)
                out.append((p, int(d["mover"] == rec["winner"]), rec["deal"]))
    return out


def check_budget(label: str, records: Sequence[dict[str, Any]], model: Any, svg_dir: str | None,
                 null_sims: int = 0) -> tuple[bool, bool | None]:
    """Print the check of one budget's held-out games; (the stated form met, the sound form met or None when
    not simulated)."""
    shown = shown_chances(records, model)
    rows = wf.draw(shown)
    kinds: dict[str, int] = {}
    proven_right = proven = 0
    its = []
    for rec in records:
        for d in rec["decisions"]:
            kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
            if d["kind"] == "proven":
                proven += 1
                won = int(d["mover"] == rec["winner"])
                proven_right += (d["chance"] == won) or d["chance"] == 0.5
            elif d["kind"] == "search":
                its.append(int(d["it"]))
    games = len(records)
    deals = [r["deal"] for r in records]
    its.sort()
    med = its[len(its) // 2] if its else 0
    print(f"\n{label}: {games} held-out games (deals {min(deals)}-{max(deals)}), {kinds.get('search', 0)} searched "
          f"decisions (iterations reached: median {med:,}, {its[0] if its else 0:,}-{its[-1] if its else 0:,}), "
          f"{proven} proven apart ({proven_right} of them ended as shown), {kinds.get('forced', 0)} forced")
    print("| shown win chance | positions | mean shown | observed win rate | 95% CI (Wilson) |")
    print("| --- | --- | --- | --- | --- |")
    for k, items in enumerate(rows):
        if not items:
            print(f"| {10 * k}-{10 * k + 10}% | 0 | - | - | - |")
            continue
        n, pred, wins = wf.summary(items)
        lo, hi = wf.wilson(wins, n)
        print(f"| {10 * k}-{10 * k + 10}% | {n} | {pred:.1%} | {wins / n:.1%} | {lo:.1%}-{hi:.1%} |")
    e = wf.ece(rows)
    chi2, dof, p = wf.hosmer_lemeshow(rows)
    need = games_needed(label)
    ok_e, ok_p, ok_n = e <= ECE_MAX, p >= P_MIN, games >= need
    met = ok_e and ok_p and ok_n
    print(f"{label}: ECE {e:.4f} (≤ {ECE_MAX}: {'yes' if ok_e else 'NO'}); Hosmer-Lemeshow χ² {chi2:.2f}, "
          f"{dof} df, p = {p:.3f} (≥ {P_MIN}: {'yes' if ok_p else 'NO'}); games {games} (≥ {need}: "
          f"{'yes' if ok_n else 'NO'}) → {'met' if met else 'MISSED'}")
    old_rows = wf.draw(shown, first=False)
    print(f"{label}: the former random draw in each game's bucket: ECE {wf.ece(old_rows):.4f}, "
          f"HL p = {wf.hosmer_lemeshow(old_rows)[2]:.3f}")
    sound: bool | None = None
    if null_sims:
        nc = wf.null_check(records, [q for q, _, _ in shown], sims=null_sims)
        print(f"{label}: a perfectly calibrated model on these games ({null_sims} simulated checks, a Bayesian "
              f"observer of each game's one outcome, signal k = {nc.signal:.1f}):")
        print("| outcomes, draw | ECE median | ECE 95th pct | ECE > 0.02 | χ² table p < 0.01 |")
        print("| --- | --- | --- | --- | --- |")
        for kind in ("shared", "shared, random draw", "independent"):
            es = nc.ece[kind]
            print(f"| {kind if ',' in kind else kind + ', first visit'} | {nc.quantile(es, 0.5):.4f} | "
                  f"{nc.quantile(es, 0.95):.4f} | {nc.share(es, lambda v: v > ECE_MAX):.0%} | "
                  f"{nc.share(nc.table_p[kind], lambda v: v < P_MIN):.0%} |")
        bar = nc.quantile(nc.ece["shared"], 0.95)
        p_sim = nc.p_value(chi2)
        sound = e <= bar and p_sim >= P_MIN and ok_n
        print(f"{label}: the sound form: ECE {e:.4f} ≤ the calibrated model's 95th percentile {bar:.4f}: "
              f"{'yes' if e <= bar else 'NO'}; χ² {chi2:.2f} against the simulated checks, p = {p_sim:.3f} "
              f"(≥ {P_MIN}: {'yes' if p_sim >= P_MIN else 'NO'}); games {games} → {'met' if sound else 'MISSED'}")
    if svg_dir:
        path = os.path.join(svg_dir, f"winchance-{label}.svg")
        note = f"{games} held-out games, {sum(map(len, rows))} positions; ECE {e:.3f}, HL χ² {chi2:.1f} (p {p:.2f})"
        with open(path, "w", encoding="utf-8") as f:
            f.write(wf.reliability_svg(rows, f"Win chance shown at {label} a move, held-out games", note))
        print(f"reliability diagram: {path}")
    return met, sound


def run_check(records: Sequence[dict[str, Any]], model: Any, svg_dir: str | None, null_sims: int = 0) -> bool:
    """The check of every budget in ``records``; True when every one is met (the stated form)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by.setdefault(rec["budget"], []).append(rec)
    fitted = model.fitted
    print(f"model: {fitted.get('games', '?')} training games, {fitted.get('decisions', '?')} decisions, "
          f"deals {fitted.get('deals', '?')}; budgets {len(by)}")
    results = {label: check_budget(label, recs, model, svg_dir, null_sims) for label, recs in by.items()}
    print("\n| budget | stated form | sound form |\n| --- | --- | --- |")
    for label, (met, sound) in results.items():
        print(f"| {label} | {'met' if met else 'MISSED'} | "
              f"{'-' if sound is None else 'met' if sound else 'MISSED'} |")
    return all(met for met, _ in results.values())


def run_fit(records: Sequence[dict[str, Any]], out: str, knots: int,
            terms: Sequence[str] = ("budget", "phase"), budget_knots: Sequence[float] = (),
            weighting: str = "first") -> int:
    import sklearn

    from quiltsolve.engine.players.calibration import is_increasing

    pts = wf.points(records)
    games: dict[str, int] = {}
    for rec in records:
        games[rec["budget"]] = games.get(rec["budget"], 0) + 1
    deals = [r["deal"] for r in records]
    t0 = time.perf_counter()
    result = wf.fit(pts, knots=knots, terms=terms, budget_knots=budget_knots, weighting=weighting, fitted={
        "games": games, "decisions": len(pts),
        "deals": ", ".join(f"{lo}-{hi}" if hi > lo else f"{lo}" for lo, hi in selfplay.deal_ranges(deals)),
        "trained_deals": selfplay.deal_ranges(deals),
        "by": f"python -m bench review --fit (scikit-learn {sklearn.__version__}: SplineTransformer, "
              f"{knots} quantile knots, degree {wf.DEGREE}; LogisticRegression C={wf.C}, {wf.ROUNDS} rounds "
              f"weighted as the check draws ({weighting}); terms: {', '.join(terms) or 'none'}; budget knots at "
              f"{', '.join(f'{10 ** k:,.0f}' for k in budget_knots) or 'none'} iterations)"})
    model = result.model
    weights = wf.check_weights(pts, [model.chance(p.reward, p.iterations, p.left) for p in pts],
                               first=weighting == "first")
    print(f"fit on {len(pts)} searched decisions of {len(records)} games ({games}) in "
          f"{time.perf_counter() - t0:.1f} s: budget range 10^{model.log_iterations[0]:.2f}-"
          f"10^{model.log_iterations[-1]:.2f} iterations, {int((result.regression.coef_[0] != 0).sum())} of {len(result.mask)} terms not 0, "
          f"weighted log loss {wf.log_loss(model, pts, weights):.4f}, increasing: {is_increasing(model)}")
    print("shows, for rewards 0.1 / 0.3 / 0.5 / 0.7 / 0.9 (30 spaces left):")
    for it in sorted({10 ** round(model.log_iterations[0], 1), 10 ** round(model.log_iterations[-1], 1),
                      3000, 30000}):
        row = " / ".join(f"{model.chance(r, int(it), 30):.1%}" for r in (0.1, 0.3, 0.5, 0.7, 0.9))
        print(f"  {int(it):,} iterations: {row}")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(model.to_json(), f, indent=1)
        f.write("\n")
    print(f"written: {out}")
    return 0 if is_increasing(model) else 1


def knots_inside(records: Sequence[dict[str, Any]], budget_knots: Sequence[float]) -> tuple[float, ...]:
    """The budget knots (log10 iterations) strictly inside the searched decisions' iterations (the others are
    named and left out: a knot needs decisions on both sides)."""
    its = [p.iterations for p in wf.points(records)]
    if not its:
        return ()
    lo, hi = math.log10(max(1, min(its))), math.log10(max(1, max(its)))
    inside = tuple(k for k in budget_knots if lo < k < hi)
    if len(inside) < len(budget_knots):
        print(f"budget knots outside the decisions' {min(its):,}-{max(its):,} iterations left out: "
              f"{', '.join(f'{10 ** k:,.0f}' for k in budget_knots if k not in inside)}")
    return inside


def choose_knots(records: Sequence[dict[str, Any]], grid: Sequence[int], k: int,
                 terms: Sequence[str] = ("budget", "phase"), budget_knots: Sequence[float] = (),
                 weighting: str = "first") -> int:
    """The knots of ``grid`` with the lowest ``k``-fold out-of-fold log loss on the training ``records``
    (printed per budget); the smaller on a tie."""
    pts = wf.points(records)
    results = []
    print(f"cross-validation: {k} folds by game, {len(pts)} searched decisions; out-of-fold log loss "
          f"(weighted as the check draws)")
    labels = sorted({p.game[0] for p in pts}, key=lambda b: selfplay.parse_budget(b).iterations or 10**9)
    print("| knots | all | " + " | ".join(labels) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in labels) + " |")
    for knots in grid:
        t0 = time.perf_counter()
        cv = wf.cross_validate(pts, knots, k, terms=terms, budget_knots=budget_knots, weighting=weighting)
        results.append(cv)
        print(f"| {knots} | {cv.overall:.4f} | " + " | ".join(f"{cv.by_budget.get(b, float('nan')):.4f}"
                                                            for b in labels) + f" |  ({time.perf_counter() - t0:.0f} s)",
              flush=True)
    best = min(results, key=lambda r: (r.overall, r.knots))
    print(f"chosen: {best.knots} knots")
    return best.knots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_review", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="bench selfplay JSONL files (.jsonl or .jsonl.gz)")
    ap.add_argument("--fit", action="store_true", help="fit the model on the files (training deals) instead")
    ap.add_argument("--out", default=DEFAULT_OUT, help=f"--fit: where to write the model (default {DEFAULT_OUT})")
    ap.add_argument("--knots", type=int, default=wf.KNOTS, help=f"--fit: spline knots (default {wf.KNOTS})")
    ap.add_argument("--cv", type=int, default=0, metavar="K",
                    help="--fit: choose the knots among --knots-grid by K-fold cross-validation by game first")
    ap.add_argument("--knots-grid", default="4,6,8,10", help="--cv: the knots to choose among (default 4,6,8,10)")
    ap.add_argument("--budget-knots", default="3000,30000", metavar="ITERATIONS",
                    help="--fit: iterations where the budget term may bend, comma-separated (default 3000,30000; "
                         "'' for a term affine in log10(iterations))")
    ap.add_argument("--weighting", default="first", choices=("first", "bucket"),
                    help="--fit: the decisions' weights: the check's first visit of each game's bucket (default) "
                         "or 1 / the game's decisions in the bucket")
    ap.add_argument("--terms", default="budget,phase,budget:phase",
                    help="--fit: the inputs beside the reward, from budget,phase,budget:phase (default all three; '' for none)")
    ap.add_argument("--model", metavar="JSON", help="check this model instead of the committed one")
    ap.add_argument("--svg-dir", default=None,
                    help="where the reliability diagrams go (default docs/img with files, none without; '' for none)")
    ap.add_argument("--null-sims", type=int, default=200, metavar="N",
                    help="checks of a perfectly calibrated model simulated on the same games (default 200; 0: none)")
    ap.add_argument("--games", type=int, default=20, help="without files: held-out games to play first (default 20)")
    ap.add_argument("--budget", default="300it", help="without files: their budget (default 300it)")
    ap.add_argument("--workers", type=int, default=2, help="without files: processes (default 2)")
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    from quiltsolve.engine.players.calibration import MODEL, load_model

    try:
        if args.knots < 2:
            raise ValueError("--knots must be at least 2")
        terms = tuple(t for t in (x.strip() for x in args.terms.split(",")) if t)
        try:
            grid = [int(x) for x in args.knots_grid.split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"--knots-grid: {args.knots_grid!r}: give whole numbers, comma-separated") from None
        if args.cv and (args.cv < 2 or not grid or min(grid) < 2):
            raise ValueError("--cv needs at least 2 folds and --knots-grid knots of at least 2")
        if not set(terms) <= {"budget", "phase", "budget:phase"}:
            raise ValueError(f"--terms: {args.terms!r}: choose from budget, phase, budget:phase")
        try:
            budget_knots = tuple(math.log10(float(x)) for x in args.budget_knots.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"--budget-knots: {args.budget_knots!r}: give iterations (above 0), comma-separated") \
                from None
        if args.null_sims < 0:
            raise ValueError("--null-sims must be at least 0")
        if args.games < 1 or args.workers < 1:
            raise ValueError("--games and --workers must be at least 1")
        budget = selfplay.parse_budget(args.budget)
        model = MODEL
        if args.model:
            try:
                with open(args.model, encoding="utf-8") as f:
                    model = load_model(f.read())
            except OSError as e:
                raise ValueError(f"--model: cannot read {args.model} ({e.strerror or e})") from None
            except ValueError as e:
                raise ValueError(f"--model: {args.model}: {e}") from None
        files = list(args.files)
        if args.svg_dir is None:
            args.svg_dir = os.path.join("docs", "img") if files else ""
        if args.fit and not files:
            raise ValueError("--fit needs the training files (bench selfplay's JSONL)")
        if not files:
            tmp = tempfile.mkdtemp(prefix="review-")
            first = selfplay.HELDOUT[0]
            print(f"playing {args.games} held-out games at {budget.label} (deals {first}-{first + args.games - 1}) "
                  f"in {tmp}", flush=True)
            if selfplay.main(["--games", f"{budget.label}:{first}-{first + args.games - 1}", "--out", tmp,
                              "--workers", str(args.workers)]) != 0:
                return 3
            files = [os.path.join(tmp, name) for name in sorted(os.listdir(tmp))]
        records = selfplay.read_records(files)
        if not records:
            raise ValueError("the files hold no game")
        for rec in records:
            if args.fit and not selfplay.trainable(rec["deal"]):
                raise ValueError(f"deal {rec['deal']} ({rec['budget']}) is not a training deal (from "
                                 f"{selfplay.TRAIN_FIRST:,}, or a spent held-out one, {selfplay.SPENT[0]:,}-"
                                 f"{selfplay.SPENT[1]:,}): the fit reads no unread held-out game")
            if not args.fit and not selfplay.HELDOUT[0] <= rec["deal"] <= selfplay.HELDOUT[1]:
                raise ValueError(f"deal {rec['deal']} ({rec['budget']}) is not a held-out deal "
                                 f"({selfplay.HELDOUT[0]:,}-{selfplay.HELDOUT[1]:,})")
            if not args.fit and trained_on(model, rec["deal"]):
                raise ValueError(f"deal {rec['deal']} ({rec['budget']}): the model was trained on this deal's "
                                 f"games (its fitted.trained_deals); check it on deals it has not seen")
        if args.svg_dir and not args.fit:
            os.makedirs(args.svg_dir, exist_ok=True)
    except (ValueError, OSError) as e:
        print(f"bench_review: {e}", file=sys.stderr)
        return 2
    if args.fit:
        knots = args.knots
        budget_knots = knots_inside(records, budget_knots)
        if args.cv:
            try:
                knots = choose_knots(records, grid, args.cv, terms, budget_knots, args.weighting)
            except ValueError as e:
                print(f"bench_review: --cv: {e}", file=sys.stderr)
                return 2
        try:
            return run_fit(records, args.out, knots, terms, budget_knots, args.weighting)
        except ValueError as e:
            print(f"bench_review: --fit: {e}", file=sys.stderr)
            return 2
    run_check(records, model, args.svg_dir or None, args.null_sims)   # met / MISSED is printed; a miss is no error
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
