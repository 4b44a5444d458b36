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


def test_bench_frontier_states_puzzles_for_xcover():
    from bench.bench_frontier import xcover_options
    # 2x4 dominoes (unlimited): a cell item per cell, no piece item; 6 + 4 placements
    opts = xcover_options(["...."] * 2, [], ["##"])
    assert sorted(len(o) for o in opts) == [2] * 10 and all(x.startswith("c") for o in opts for x in o)
    # a piece used once gets an item of its own, every cell is covered by some option
    opts = xcover_options(["..."] * 2, ["###", "#", "##"], [])
    assert {x for o in opts for x in o} == {f"c{i}" for i in range(6)} | {"t0", "t1", "t2"}
    assert all(sum(x.startswith("t") for x in o) == 1 for o in opts)
    # several copies that could run out: exact cover cannot say it
    assert xcover_options(["..."] * 2, ["##", "##", "#", "#"], []) is None
