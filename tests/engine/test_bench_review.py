"""The calibration check (``python -m bench review``): its statistics, its fit and a tiny run (figures not checked)."""

from __future__ import annotations

import doctest
import math
import random
from itertools import product

from bench import bench_review
from quiltsolve.engine.players import calibration


def test_doctests():
    failed, tried = doctest.testmod(bench_review)
    assert tried >= 5 and failed == 0


def test_chi2_tail_against_its_series_and_its_known_quantiles():
    # the 95th and 99th percentiles of χ² for 1-10 degrees of freedom (printed tables)
    q95 = [3.841, 5.991, 7.815, 9.488, 11.070, 12.592, 14.067, 15.507, 16.919, 18.307]
    q99 = [6.635, 9.210, 11.345, 13.277, 15.086, 16.812, 18.475, 20.090, 21.666, 23.209]
    for k in range(1, 11):
        assert abs(bench_review.chi2_sf(q95[k - 1], k) - 0.05) < 2e-4
        assert abs(bench_review.chi2_sf(q99[k - 1], k) - 0.01) < 1e-4
    # the regularised upper gamma Q(k/2, x/2) by its power series, at other points
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
            assert abs(bench_review.chi2_sf(x, k) - (1 - lower)) < 1e-12
    assert bench_review.chi2_sf(0.0, 10) == 1.0


def test_fit_recovers_a_known_map():
    # positions whose win chance is the committed 300 map of their reward: the fit finds about those constants
    truth = calibration.CALIBRATION_COEFFICIENTS[300]
    rng = random.Random(7)
    points = []
    for _ in range(6000):
        r = rng.uniform(0.03, 0.97)
        points.append((r, int(rng.random() < calibration.win_chance(r, coefficients=truth))))
    coef = bench_review.fit(points)
    for r in (0.1, 0.3, 0.5, 0.7, 0.9):
        assert abs(calibration.win_chance(r, coefficients=coef) - calibration.win_chance(r, coefficients=truth)) < 0.04


def test_coverage_chance_against_every_outcome_and_the_binomial():
    # a small bucket of mixed predictions: sum the chance of each of the 2^9 outcomes whose interval contains
    # the mean prediction
    preds = [0.05, 0.2, 0.31, 0.33, 0.5, 0.62, 0.7, 0.9, 0.97]
    mean = sum(preds) / len(preds)
    brute = 0.0
    for outcome in product((0, 1), repeat=len(preds)):
        chance = math.prod(p if won else 1 - p for p, won in zip(preds, outcome))
        brute += chance if bench_review.interval_contains(sum(outcome), len(preds), mean) else 0.0
    assert abs(bench_review.coverage_chance([(p, 0) for p in preds]) - brute) < 1e-12
    # equal predictions: the binomial's coverage of the Wilson interval, by its own terms
    for n, p in ((37, 0.14), (400, 0.35), (250, 0.965)):
        binom = sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)
                    if bench_review.interval_contains(k, n, p))
        assert abs(bench_review.coverage_chance([(p, 1)] * n) - binom) < 1e-9
        assert 0.9 < binom < 0.99                   # near the interval's 95 %


def test_pass_chance_is_what_simulated_calibrated_checks_show():
    # ten buckets of a calibrated map (wins drawn from the predictions): the share of runs missing no bucket
    # is the pass chance, within the simulation's error
    rng = random.Random(11)
    rows = [[(min(0.999, max(0.001, (k + rng.random()) / 10)), 0) for _ in range(120)] for k in range(10)]
    chance = bench_review.pass_chance(rows)

    def no_miss(drawn):
        return all(bench_review.interval_contains(wins, n, pred)
                   for n, pred, wins in map(bench_review.bucket_summary, drawn))

    runs = 2000
    passed = sum(no_miss([[(p, int(rng.random() < p)) for p, _ in items] for items in rows]) for _ in range(runs))
    assert 0.45 < chance < 0.75
    assert abs(passed / runs - chance) < 4 * math.sqrt(chance * (1 - chance) / runs)


def test_a_tiny_check_prints_its_table_and_chi2(capsys):
    assert bench_review.main(["--games", "3", "--iterations", "8", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "| shown win chance | positions |" in out and "buckets whose interval misses the prediction:" in out
    assert "χ² of the" in out and "p = " in out
    assert "chance that a calibrated map misses no bucket on these positions: " in out


def test_bad_options_exit_2(capsys):
    assert bench_review.main(["--games", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_a_tiny_fit_prints_coefficients(capsys):
    assert bench_review.main(["--fit", "--games", "3", "--iterations", "8", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fit on ") and "coefficients = (" in out and "segment slopes" in out
