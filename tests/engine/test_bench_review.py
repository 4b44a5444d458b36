"""The calibration check (``python -m bench review``) and self-play (``python -m bench selfplay``): the
statistics on known cases, the record format, tiny runs (figures not checked)."""

from __future__ import annotations

import doctest
import json
import math
import os
import random

import pytest

from bench import bench_review, bench_selfplay, winchance_fit

pytest.importorskip("sklearn", reason="the fit needs scikit-learn (the dev extra)")


def test_doctests():
    for module, least in ((winchance_fit, 3), (bench_selfplay, 2)):
        failed, tried = doctest.testmod(module)
        assert tried >= least and failed == 0


def test_chi2_tail_against_its_known_quantiles_and_its_series():
    q95 = [3.841, 5.991, 7.815, 9.488, 11.070, 12.592, 14.067, 15.507, 16.919, 18.307]
    q99 = [6.635, 9.210, 11.345, 13.277, 15.086, 16.812, 18.475, 20.090, 21.666, 23.209]
    for k in range(1, 11):
        assert abs(winchance_fit.chi2_sf(q95[k - 1], k) - 0.05) < 2e-4
        assert abs(winchance_fit.chi2_sf(q99[k - 1], k) - 0.01) < 1e-4
    for k in (1, 2, 5, 9, 10):
        for x in (0.3, 2.0, 9.7, 25.0):
            s, h = k / 2, x / 2
            term = total = 1 / s
            n = 1
            while term > 1e-18 * total:
                term *= h / (s + n)
                total += term
                n += 1
            lower = math.exp(-h + s * math.log(h) - math.lgamma(s)) * total
            assert abs(winchance_fit.chi2_sf(x, k) - (1 - lower)) < 1e-12


def test_ece_and_hosmer_lemeshow_on_a_known_case():
    # bucket 1: 100 positions at 0.15, 20 won (o − p = 0.05); bucket 7: 50 at 0.75, 35 won (−0.05);
    # bucket 9: 50 at 0.95, 50 won (+0.05)
    rows = [[] for _ in range(10)]
    rows[1] = [(0.15, int(i < 20)) for i in range(100)]
    rows[7] = [(0.75, int(i < 35)) for i in range(50)]
    rows[9] = [(0.95, 1) for _ in range(50)]
    assert winchance_fit.ece(rows) == pytest.approx(0.05)
    chi2, dof, p = winchance_fit.hosmer_lemeshow(rows)
    want = (20 - 15) ** 2 / (100 * 0.15 * 0.85) + (35 - 37.5) ** 2 / (50 * 0.75 * 0.25) + (50 - 47.5) ** 2 / (50 * 0.95 * 0.05)
    assert dof == 3 and chi2 == pytest.approx(want)
    assert p == pytest.approx(winchance_fit.chi2_sf(want, 3))
    # exactly calibrated buckets: no error, χ² 0, p 1
    exact = [[(0.3, int(i < 3)) for i in range(10)], [(0.5, i % 2) for i in range(8)]]
    assert winchance_fit.ece(exact) == pytest.approx(0.0, abs=1e-12)
    assert winchance_fit.hosmer_lemeshow(exact)[0] == pytest.approx(0.0, abs=1e-12)


def test_hosmer_lemeshow_of_calibrated_draws_is_chi2():
    # outcomes drawn from their own chances: the statistic's mean is about its degrees of freedom, and
    # p < 0.01 about one run in a hundred
    rng = random.Random(9)
    stats, low = [], 0
    for _ in range(300):
        rows = [[(p, int(rng.random() < p)) for p in (rng.uniform(k / 10, (k + 1) / 10) for _ in range(200))]
                for k in range(10)]
        chi2, dof, p = winchance_fit.hosmer_lemeshow(rows)
        stats.append(chi2)
        low += p < 0.01
    assert dof == 10
    assert 8.5 < sum(stats) / len(stats) < 11.5
    assert low <= 10


def test_the_draw_takes_one_position_per_game_per_bucket():
    shown = [(0.12, 1, 7), (0.14, 0, 7), (0.18, 1, 7), (0.55, 1, 7), (0.13, 0, 8), (0.95, 1, 8), (1.0, 1, 8)]
    rows = winchance_fit.draw(shown)
    assert [len(r) for r in rows] == [0, 2, 0, 0, 0, 1, 0, 0, 0, 1]
    assert winchance_fit.draw(shown) == rows
    assert rows[1] == [(0.12, 1), (0.13, 0)]                 # each game's first position in the bucket
    old = winchance_fit.draw(shown, first=False)             # the former draw, seeded by the deal
    assert [len(r) for r in old] == [len(r) for r in rows] and winchance_fit.draw(shown, first=False) == old


def test_a_calibrated_observer_fails_the_random_draw_but_not_the_first_visit():
    # 300 games of 30 searched decisions each, movers alternating: the simulated checks of a perfectly calibrated
    # model (one outcome a game) show the random draw's bias and the first visit's soundness.
    records = [{"deal": 5001 + g, "winner": 0, "decisions": [
        {"kind": "search", "left": 106 - 3 * i, "mover": i % 2} for i in range(30)]} for g in range(300)]
    nc = winchance_fit.null_check(records, [0.2, 0.8, 0.35, 0.65], sims=30, seed=3)
    first, biased = nc.ece["shared"], nc.ece["shared, random draw"]
    assert nc.quantile(biased, 0.5) > nc.quantile(first, 0.5) + 0.005
    assert nc.quantile(first, 0.5) < 0.03 and len(first) == 30
    assert 0 < nc.p_value(nc.quantile(nc.chi2["shared"], 0.5)) <= 1


def test_a_game_record_round_trips(tmp_path):
    rec = bench_selfplay.play_game(5001, "6it")
    assert rec["format"] == bench_selfplay.FORMAT and rec["deal"] == 5001 and rec["budget"] == "6it"
    assert rec["winner"] in (0, 1) and rec["plies"] == len(rec["decisions"]) > 10
    kinds = {d["kind"] for d in rec["decisions"]}
    assert "search" in kinds and kinds <= {"search", "proven", "forced"}
    for d in rec["decisions"]:
        if d["kind"] == "search":
            assert d["it"] == 6 and 0 < d["v"] < 1 and d["n"] <= d["root_n"] == 6
        if d["kind"] == "proven":
            assert d["chance"] in (0.0, 0.5, 1.0) and isinstance(d["margin"], int)
    again = bench_selfplay.play_game(5001, "6it")
    strip = ("wall", "cpu")
    assert {k: v for k, v in again.items() if k not in strip} == {k: v for k, v in rec.items() if k not in strip}
    path = tmp_path / "g.jsonl"
    with open(path, "w") as f:
        bench_selfplay.write_record(f, rec)
    assert bench_selfplay.read_records([str(path)]) == [json.loads(json.dumps(rec))]


@pytest.mark.parametrize("line, message", [
    ("[1]", "must be a JSON object"),
    ('{"format": "x"}', "format: expected"),
    ('{"format": "quiltsolve-selfplay/1", "deal": 1, "budget": "3x", "winner": 0, "decisions": []}', "budget:"),
    ('{"format": "quiltsolve-selfplay/1", "deal": 1, "budget": "3it", "winner": 2, "decisions": []}', "winner:"),
    ('{"format": "quiltsolve-selfplay/1", "deal": 1, "budget": "3it", "winner": 0, '
     '"decisions": [{"kind": "search", "mover": 0, "it": 3}]}', r"decisions\[0\]\.v"),
    ("{", "not JSON"),
])
def test_bad_records_name_the_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(bench_selfplay.RecordError, match=message) as e:
        bench_selfplay.read_records([str(path)])
    assert str(e.value).startswith(f"{path}:1")


def test_a_failing_player_leaves_its_position_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    from quiltsolve.engine.state import GameState

    real = bench_selfplay.make_side
    plies = {"n": 0}

    def side(budget, seed):
        player = real(budget, seed)
        if seed // 2 != 5002:
            return player

        class Failing:   # deal 5002's first player fails on its fourth move (ply 3 or later)
            def choose(self, state):
                plies["n"] += 1
                if plies["n"] > 3:
                    raise AssertionError("no child reaches the proven value")
                return player.choose(state)

            def __getattr__(self, name):
                return getattr(player, name)
        return Failing()

    monkeypatch.setattr(bench_selfplay, "make_side", side)
    out = str(tmp_path / "runs")
    assert bench_selfplay.main(["--games", "5it:5001-5003", "--out", out, "--workers", "1"]) == 3
    err = capsys.readouterr().err
    assert "5it deal 5002 failed at ply 3: AssertionError: no child reaches the proven value" in err
    records = bench_selfplay.read_records([os.path.join(out, "selfplay-5it-5001-5003.jsonl")])
    assert [r["deal"] for r in records] == [5001, 5003]
    with open(os.path.join(out, bench_selfplay.ERRORS), encoding="utf-8") as f:
        (failed,) = [json.loads(line) for line in f]
    assert (failed["deal"], failed["budget"], failed["ply"]) == (5002, "5it", 3)
    assert "no child reaches the proven value" in failed["error"]
    state = GameState.from_json(failed["state"])   # the position the player failed in, to reproduce it
    assert not state.is_terminal() and state.to_json() == failed["state"]
    monkeypatch.setattr(bench_selfplay, "make_side", real)
    assert bench_selfplay.main(["--games", "5it:5001-5003", "--out", out, "--workers", "1"]) == 0   # played again
    records = bench_selfplay.read_records([os.path.join(out, "selfplay-5it-5001-5003.jsonl")])
    assert [r["deal"] for r in records] == [5001, 5002, 5003]


def test_selfplay_writes_resumes_and_reads_back(tmp_path, capsys):
    out = str(tmp_path)
    assert bench_selfplay.main(["--games", "5it:5001-5002", "--games", "4it:2000001", "--out", out,
                                "--workers", "1"]) == 0
    names = sorted(os.listdir(out))
    assert names == ["selfplay-4it-2000001-2000001.jsonl", "selfplay-5it-5001-5002.jsonl"]
    first = bench_selfplay.read_records([os.path.join(out, n) for n in names])
    assert [(r["budget"], r["deal"]) for r in first] == [("4it", 2000001), ("5it", 5001), ("5it", 5002)]
    capsys.readouterr()
    assert bench_selfplay.main(["--games", "5it:5001-5003", "--out", out, "--workers", "1"]) == 0
    assert "1 games to play (2 already in" in capsys.readouterr().out
    assert [r["deal"] for r in bench_selfplay.read_records([os.path.join(out, "selfplay-5it-5001-5003.jsonl")])] == [5003]


@pytest.mark.parametrize("args, message", [
    (["--games", "300"], "write BUDGET:FIRST-LAST"),
    (["--games", "300x:1-2"], "budget '300x'"),
    (["--games", "300it:5-1"], "FIRST <= LAST"),
    (["--workers", "0"], "--workers"),
    (["--deadline", "nan"], "--deadline"),
])
def test_selfplay_bad_options_exit_2(args, message, capsys):
    assert bench_selfplay.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("selfplay"))
    assert bench_selfplay.main(["--games", "8it:2000001-2000006", "--games", "40it:2000001-2000004",
                                "--games", "8it:5001-5003", "--games", "8it:5801-5802", "--out", out,
                                "--workers", "1"]) == 0
    return out


def test_a_tiny_fit_writes_a_model_the_engine_reads(tiny_runs, tmp_path, capsys):
    from quiltsolve.engine.players.calibration import is_increasing, load_model

    train = [os.path.join(tiny_runs, n) for n in os.listdir(tiny_runs) if "2000001" in n]
    out = tmp_path / "m.json"
    # (the budget·phase term needs more games than these: at some corner every step would be 0)
    assert bench_review.main(["--fit", *train, "--out", str(out), "--knots", "4", "--terms", "budget,phase"]) == 0
    text = capsys.readouterr().out
    # the default budget knots (3,000 and 30,000 iterations) lie beyond these games: named and left out
    assert text.startswith("budget knots outside the decisions' 8-40 iterations left out: 3,000, 30,000\nfit on ")
    assert "increasing: True" in text
    model = load_model(out.read_text())
    assert is_increasing(model) and model.fitted["games"] == {"8it": 6, "40it": 4}
    assert len(model.log_iterations) == 2 and "(first)" in model.fitted["by"]
    # a knot inside them bends the budget term there; the other weighting is an option
    assert bench_review.main(["--fit", *train, "--out", str(out), "--knots", "4", "--budget-knots", "20",
                              "--weighting", "bucket", "--terms", "budget,phase"]) == 0
    capsys.readouterr()
    model = load_model(out.read_text())
    assert is_increasing(model) and len(model.log_iterations) == 3 and len(model.b) == 2
    assert "(bucket)" in model.fitted["by"] and "budget knots at 20 iterations" in model.fitted["by"]
    assert bench_review.main(["--fit", *train, "--out", str(out), "--budget-knots", "x"]) == 2
    assert "--budget-knots" in capsys.readouterr().err


def test_cross_validation_keeps_each_game_in_one_fold_and_scores_every_decision():
    rng = random.Random(7)
    pts = [winchance_fit.Point(rng.uniform(0.1, 0.9), it, rng.randint(0, 100), rng.randint(0, 1), (f"{it}it", g))
           for it in (300, 3000) for g in range(12) for _ in range(6)]
    fold = winchance_fit.folds(pts, 3)
    by_game: dict = {}
    for p, f in zip(pts, fold):
        by_game.setdefault(p.game, set()).add(f)
    assert all(len(fs) == 1 for fs in by_game.values())
    for it in (300, 3000):              # every fold gets games of every budget
        assert {f for p, f in zip(pts, fold) if p.iterations == it} == {0, 1, 2}
    cv = winchance_fit.cross_validate(pts, 4, 3, rounds=1)
    assert set(cv.by_budget) == {"300it", "3000it"} and 0 < cv.overall < 2
    with pytest.raises(ValueError, match="folds"):
        winchance_fit.folds(pts[:6], 3)     # one game cannot make three folds


def test_the_fit_chooses_its_knots_by_cross_validation_on_training_games(tiny_runs, tmp_path, capsys):
    from quiltsolve.engine.players.calibration import load_model

    train = [os.path.join(tiny_runs, n) for n in os.listdir(tiny_runs) if "2000001" in n]
    out = tmp_path / "m.json"
    assert bench_review.main(["--fit", *train, "--out", str(out), "--cv", "2", "--knots-grid", "3,4"]) == 0
    text = capsys.readouterr().out
    assert "cross-validation: 2 folds by game" in text and "| 3 | " in text and "| 4 | " in text
    chosen = int(text.split("chosen: ")[1].split()[0])
    assert chosen in (3, 4) and f"{chosen} quantile knots" in load_model(out.read_text()).fitted["by"]
    assert bench_review.main(["--fit", *train, "--out", str(out), "--cv", "1"]) == 2
    assert "--cv needs at least 2 folds" in capsys.readouterr().err


def test_a_tiny_check_prints_its_figures_and_a_diagram(tiny_runs, tmp_path, capsys):
    # the third round's deals: the committed model was trained on the spent rounds
    held = [os.path.join(tiny_runs, n) for n in os.listdir(tiny_runs) if "5801" in n]
    assert bench_review.main([*held, "--svg-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| shown win chance | positions | mean shown | observed win rate |" in out
    assert "8it: ECE " in out and "Hosmer-Lemeshow χ²" in out and "games 2 (≥ 400: NO) → MISSED" in out
    svg = (tmp_path / "winchance-8it.svg").read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>") and "<circle" in svg


def test_held_out_and_training_deals_stay_apart(tiny_runs, tmp_path, capsys):
    from quiltsolve.engine.players.calibration import load_model

    train = [os.path.join(tiny_runs, n) for n in os.listdir(tiny_runs) if "2000001" in n]
    spent = [os.path.join(tiny_runs, n) for n in os.listdir(tiny_runs) if "5001" in n]
    unread = [os.path.join(tiny_runs, n) for n in os.listdir(tiny_runs) if "5801" in n]
    assert bench_review.main(["--fit", *unread, "--out", os.devnull]) == 2
    assert "not a training deal" in capsys.readouterr().err
    assert bench_review.main([*train, "--svg-dir", ""]) == 2
    assert "not a held-out deal" in capsys.readouterr().err
    # the spent held-out deals (read by earlier checks) may train a model; its check then refuses them
    out = tmp_path / "m.json"
    assert bench_review.main(["--fit", *train, *spent, "--out", str(out), "--knots", "4"]) == 0
    assert load_model(out.read_text()).fitted["trained_deals"] == [[5001, 5003], [2000001, 2000006]]
    capsys.readouterr()
    assert bench_review.main(["--model", str(out), *spent, "--svg-dir", "", "--null-sims", "0"]) == 2
    assert "trained on this deal" in capsys.readouterr().err
    assert bench_review.main(["--model", str(out), *unread, "--svg-dir", "", "--null-sims", "0"]) == 0
    assert "held-out games (deals 5801-5802)" in capsys.readouterr().out


def test_review_bad_options_exit_2(capsys, tmp_path):
    assert bench_review.main(["--fit"]) == 2
    assert "--fit needs" in capsys.readouterr().err
    assert bench_review.main([str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert bench_review.main(["--model", str(tmp_path / "none.json"), str(tmp_path / "x")]) == 2
    assert "--model" in capsys.readouterr().err
