"""bench engine and bench strength run (tiny settings); figures are not checked."""

from bench import bench_engine, bench_strength


def test_bench_engine_runs(capsys):
    assert bench_engine.main(["--playouts", "50", "--py-playouts", "5", "--iterations", "20", "--v1-iterations", "5",
                              "--positions", "1", "--suggest", "0", "--match-games", "2", "--v1-games", "1",
                              "--think", "search:0.005", "--think-games", "1"]) == 0
    out = capsys.readouterr().out
    for row in ("random playouts / s, C core", "ratio v2 / v1", "match search:400it vs greedy, v2",
                "think time search:0.005 (mean)"):
        assert row in out
    assert bench_engine.main(["--playouts", "0"]) == 2
    assert bench_engine.main(["--think-games", "-1"]) == 2


def test_bench_strength_runs_and_refuses_bad_options(capsys):
    assert bench_strength.main(["--pairs", "search:3it/greedy", "--games", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "| search:3it vs greedy | 2 |" in out
    assert bench_strength.main(["--pairs", "nope/greedy", "--games", "2"]) == 2
    assert bench_strength.main(["--pairs", "greedy", "--games", "2"]) == 2
    assert bench_strength.main(["--games", "3"]) == 2
