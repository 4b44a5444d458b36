"""The win-chance model (engine.players.calibration): its plain-Python evaluation against scikit-learn's, its
monotonicity, proven positions, its JSON, and that the engine reads it without scikit-learn."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import pytest

from quiltsolve.engine import new_game
from quiltsolve.engine.moves import rank_moves
from quiltsolve.engine.players import calibration
from quiltsolve.engine.players.calibration import MODEL, WinChanceModel, bspline_basis, is_increasing, win_chance
from quiltsolve.engine.players.proven import proof_chance

sklearn = pytest.importorskip("sklearn", reason="the fit's comparison needs scikit-learn (the dev extra)")
np = pytest.importorskip("numpy")

from bench import winchance_fit as wf  # noqa: E402 - after the skip


def truth(v: float, it: int, left: int) -> float:
    """A known chance to draw synthetic outcomes from: steeper with the budget and near the end."""
    x = calibration.logit(v)
    return calibration.sigmoid(1.4 * x * (1 + 0.08 * math.log10(it)) + 0.4 * x * (1 - left / 106) - 0.2)


def synthetic_points(chance, games: int, seed: int) -> list:
    """``games`` games of 25 decisions at budgets 300-250,000 whose outcomes are drawn from ``chance``."""
    rng = random.Random(seed)
    pts = []
    for g in range(games):
        it = rng.choice([300, 3000, 30000, 250000])
        for _ in range(25):
            v, left = rng.uniform(0.03, 0.97), rng.randint(0, 106)
            pts.append(wf.Point(v, it, left, int(rng.random() < chance(v, it, left)), (f"{it}it", g)))
    return pts


@pytest.fixture(scope="module")
def synthetic_fit():
    return wf.fit(synthetic_points(truth, 160, 3), rounds=2)


SAMPLES = [wf.Point(v, it, left, 0, ("x", 0))
           for v in (1e-9, 0.004, 0.05, 0.2, 0.5, 0.77, 0.95, 0.999, 1 - 1e-9)
           for it in (1, 300, 4000, 10**5, 10**7) for left in (0, 40, 106, 300)]


def test_plain_python_equals_scikit_learn(synthetic_fit):
    theirs = synthetic_fit.predict(SAMPLES)
    ours = [synthetic_fit.model.chance(p.reward, p.iterations, p.left) for p in SAMPLES]
    assert max(abs(a - b) for a, b in zip(theirs, ours)) < 1e-12
    # through the JSON the engine reads
    again = calibration.load_model(json.dumps(synthetic_fit.model.to_json()))
    assert [again.chance(p.reward, p.iterations, p.left) for p in SAMPLES] == ours


def test_the_basis_is_scikit_learns_inside_and_beyond_the_knots(synthetic_fit):
    knots = synthetic_fit.model.knots
    for x in (-40.0, -7.3, knots[3], -1.0, 0.0, 0.61, 2.5, knots[-4], 9.0, 40.0):
        theirs = synthetic_fit.spline.transform(np.array([[x]]))[0]
        ours = bspline_basis(knots, 3, x)
        assert max(abs(a - b) for a, b in zip(theirs, ours)) < 1e-12, x


def test_the_fit_finds_a_known_model(synthetic_fit):
    m = synthetic_fit.model
    assert is_increasing(m)
    errors = [abs(m.chance(v, it, left) - truth(v, it, left))
              for v in (0.15, 0.35, 0.5, 0.65, 0.85) for it in (300, 3000, 30000) for left in (20, 50, 90)]
    assert sum(errors) / len(errors) < 0.03 and max(errors) < 0.1


def flatter(v: float, it: int, left: int) -> float:
    """A known chance that flattens as the budget grows (as the 1 s games' does) and steepens near the end."""
    x = calibration.logit(v)
    return calibration.sigmoid(1.3 * x * (1.6 - 0.25 * math.log10(it)) + 0.3 * x * (1 - left / 106))


def test_the_fit_lets_the_budget_flatten_the_curve():
    m = wf.fit(synthetic_points(flatter, 200, 7), rounds=2).model
    assert is_increasing(m)
    errors = [abs(m.chance(v, it, left) - flatter(v, it, left))
              for v in (0.15, 0.35, 0.5, 0.65, 0.85) for it in (300, 3000, 30000, 250000) for left in (20, 50, 90)]
    assert sum(errors) / len(errors) < 0.03 and max(errors) < 0.1
    # a reward of 0.85 shows less at 250,000 iterations than at 300: the budget flattened the curve
    assert m.chance(0.85, 250_000, 50) < m.chance(0.85, 300, 50) - 0.05


def bent(v: float, it: int, left: int) -> float:
    """A known chance that steepens with the budget up to 30,000 iterations and flattens beyond (no line in
    log10(iterations) follows it)."""
    x = calibration.logit(v)
    g = math.log10(it)
    return calibration.sigmoid(x * (1.0 + 0.3 * min(g, 4.5) - 0.8 * max(0.0, g - 4.5)))


def test_a_budget_knot_lets_the_curve_bend_and_stays_exact():
    pts = synthetic_points(bent, 240, 11)
    straight = wf.fit(pts, rounds=1)
    knotted = wf.fit(pts, rounds=1, budget_knots=[math.log10(30000)])
    m = knotted.model
    assert len(m.log_iterations) == 3 and len(m.b) == 2 and is_increasing(m)
    # plain Python equals scikit-learn, and the JSON keeps every budget row
    theirs = knotted.predict(SAMPLES)
    ours = [m.chance(p.reward, p.iterations, p.left) for p in SAMPLES]
    assert max(abs(a - b) for a, b in zip(theirs, ours)) < 1e-12
    data = m.to_json()
    assert calibration.load_model(json.dumps(data)) == m and len(data["coefficients"]["budget"]) == 2
    bad = json.loads(json.dumps(data))
    bad["coefficients"]["budget"] = bad["coefficients"]["budget"][:1]
    with pytest.raises(ValueError, match="budget row"):
        WinChanceModel.from_json(bad)
    # the knot follows the bend where the straight form cannot
    grid = [(v, it, left) for v in (0.15, 0.35, 0.65, 0.85) for it in (300, 3000, 30000, 250000) for left in (30, 80)]
    err = {name: sum(abs(f.model.chance(*g) - bent(*g)) for g in grid) / len(grid)
           for name, f in (("straight", straight), ("knotted", knotted))}
    assert err["knotted"] < 0.03 and err["knotted"] < err["straight"] * 0.7, err
    with pytest.raises(ValueError, match="budget_knots"):
        wf.fit(pts, rounds=1, budget_knots=[9.0])


def test_the_phase_may_weigh_differently_at_each_budget():
    def joint(v: float, it: int, left: int) -> float:
        # near the end the reward says more at a deep budget than at a shallow one
        x = calibration.logit(v)
        return calibration.sigmoid(x * (1.0 + (1 - left / 106) * 0.4 * (math.log10(it) - 2.5)))

    pts = synthetic_points(joint, 240, 13)
    f = wf.fit(pts, rounds=1, terms=("budget", "phase", "budget:phase"), budget_knots=[math.log10(30000)])
    m = f.model
    assert len(m.e) == 2 and is_increasing(m)
    theirs = f.predict(SAMPLES)
    ours = [m.chance(p.reward, p.iterations, p.left) for p in SAMPLES]
    assert max(abs(a - b) for a, b in zip(theirs, ours)) < 1e-12
    data = m.to_json()
    assert calibration.load_model(json.dumps(data)) == m and len(data["coefficients"]["budget_phase"]) == 2
    grid = [(v, it, left) for v in (0.15, 0.35, 0.65, 0.85) for it in (300, 3000, 30000, 250000) for left in (10, 90)]
    err = sum(abs(m.chance(*g) - joint(*g)) for g in grid) / len(grid)
    assert err < 0.03, err
    with pytest.raises(ValueError, match="needs budget and phase"):
        wf.fit(pts, rounds=1, terms=("phase", "budget:phase"))


def test_the_fit_stays_monotone_on_noise():
    # outcomes unrelated to the reward: the steps that would fall are dropped, so the model stays monotone
    rng = random.Random(5)
    pts = [wf.Point(rng.uniform(0.05, 0.95), rng.choice([300, 30000]), rng.randint(0, 106), rng.randint(0, 1),
                    ("x", g)) for g in range(600)]
    m = wf.fit(pts, rounds=1).model
    for t in (0.0, 0.5, 1.0):
        for s in (0.0, 1.0):
            c = m.coefficients_at(t, s)
            assert all(a <= b + 1e-12 for a, b in zip(c, c[1:]))


@pytest.mark.parametrize("iterations", [1, 300, 3000, 30_000, 337_000, 10**8])
@pytest.mark.parametrize("left", [None, 0, 5, 30, 80, 106])
def test_the_committed_model_is_monotone_in_the_mean_value(iterations, left):
    assert is_increasing(MODEL)
    rewards = [i / 400 for i in range(401)]
    chances = [win_chance(r, iterations, left) for r in rewards]
    assert chances[0] == 0.0 and chances[-1] == 1.0
    assert all(a <= b for a, b in zip(chances, chances[1:]))
    assert chances[40] < chances[200] < chances[360]       # it does rise


def test_proven_positions_show_one_zero_or_the_tie_rule():
    rng = random.Random(2)
    seen = set()
    for deal in range(40):
        s = new_game(deal)
        while not s.is_terminal() and sum(53 - p.position for p in s.players) > 8:
            acts = s.legal_actions()
            s.apply_action(acts[rng.randrange(len(acts))])
        if s.is_terminal():
            continue
        r = rank_moves(s, iterations=50)
        if not r.proven:
            continue
        for m in r.moves:
            assert m.proven_margin is not None
            if m.proven_margin:
                assert m.win_chance == (1.0 if m.proven_margin > 0 else 0.0)
            else:
                assert m.win_chance in (0.0, 0.5, 1.0)
            seen.add(m.win_chance)
        if {0.0, 1.0} <= seen:
            break
    assert {0.0, 1.0} <= seen
    assert proof_chance(0, 1, 1) == 1.0 and proof_chance(0, 0, 1) == 0.0 and proof_chance(0, None, 0) == 0.5


def test_the_model_json_names_what_is_wrong():
    data = MODEL.to_json()
    assert WinChanceModel.from_json(data) == MODEL
    with pytest.raises(ValueError, match="format"):
        WinChanceModel.from_json({**data, "format": "x"})
    bad = json.loads(json.dumps(data))
    bad["coefficients"]["base"] = bad["coefficients"]["base"][:-1]
    with pytest.raises(ValueError, match="coefficients"):
        WinChanceModel.from_json(bad)
    with pytest.raises(ValueError, match="spline.knots"):
        WinChanceModel.from_json({"format": calibration.FORMAT})


def test_the_engine_reads_the_model_without_scikit_learn():
    code = ("import sys\n"
            "for name in ('sklearn', 'scipy', 'numpy'): sys.modules[name] = None\n"
            "from quiltsolve.engine.players.calibration import win_chance\n"
            "from quiltsolve.engine import new_game\n"
            "from quiltsolve.engine.players.search import search_moves\n"
            "ms = search_moves(new_game(1), iterations=30)\n"
            "print(round(win_chance(0.6, 3000, 40), 6), all(0 <= m.win_chance <= 1 for m in ms))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(round(win_chance(0.6, 3000, 40), 6)), "True"]
