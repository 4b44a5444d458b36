"""The solver benchmarks run (tiny settings); figures are not checked."""

from bench import bench_lookahead, bench_placement


def test_bench_placement_runs(capsys):
    assert bench_placement.main(["--family", "midgame-40-k3", "--no-baseline"]) == 0
    out = capsys.readouterr().out
    assert "midgame-40-k3" in out and "fixed overhead" in out


def test_bench_lookahead_runs(capsys):
    assert bench_lookahead.main(["--orders", "1"]) == 0
    out = capsys.readouterr().out
    assert "lookahead (ours)" in out and "bottom-left" in out and "touch" in out
