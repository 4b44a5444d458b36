"""``python -m quiltsolve.engine``: replay and match, and exit 2 with one line on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quiltsolve.engine.__main__ import main

GOLDEN = Path(__file__).parents[1] / "data" / "golden-games.jsonl"


def test_replay_golden_file_subprocess():
    out = subprocess.run([sys.executable, "-m", "quiltsolve.engine", "replay", str(GOLDEN)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == ["198 passed, 0 failed"]


def test_replay_reports_each_bad_record(tmp_path, capsys):
    lines = GOLDEN.read_text().splitlines()[:3]
    bad = json.loads(lines[1])
    bad["result"]["scores"] = [0, 0]
    worse = json.loads(lines[2])
    worse["actions"][0] = "buy 99 0,0;0,1"
    f = tmp_path / "r.jsonl"
    f.write_text("\n".join([lines[0], json.dumps(bad), json.dumps(worse), "{not json", ""]) + "\n")
    assert main(["replay", str(f)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"line 2 (seed {bad['seed']}): result.scores: record says [0, 0]")
    assert out[1].startswith(f'line 3 (seed {worse["seed"]}): actions[0]: "buy 99 0,0;0,1": patch 99 is not')
    assert out[2].startswith("line 4: not JSON")
    assert out[-1] == "1 passed, 3 failed"


def test_match_json_and_records(tmp_path, capsys):
    rec = tmp_path / "games.jsonl"
    assert main(["match", "--a", "greedy", "--b", "random", "--games", "4", "--seed", "1", "--json",
                 "--records", str(rec)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"games", "wins_a", "wins_b", "mean_score_a", "mean_score_b"} <= set(summary)
    assert summary["games"] == 4 and summary["wins_a"] + summary["wins_b"] == 4
    assert main(["replay", str(rec)]) == 0
    assert capsys.readouterr().out.strip() == "4 passed, 0 failed"


def test_match_table(capsys):
    assert main(["match", "--a", "random", "--b", "random", "--games", "2", "--edition", "original"]) == 0
    out = capsys.readouterr().out
    assert "random (a) vs random (b): 2 games, original edition" in out and "95% CI" in out


@pytest.mark.parametrize("argv", [
    ["match", "--a", "greedy"],
    ["match", "--a", "greedy", "--b", "nobody"],
    ["match", "--a", "greedy", "--b", "random", "--games", "0"],
    ["match", "--a", "greedy", "--b", "random", "--games", "many"],
    ["match", "--a", "greedy", "--b", "random", "--edition", "deluxe"],
    ["match", "--a", "greedy", "--b", "random", "--server", "nohostport"],
    ["match", "--a", "greedy", "--b", "random", "--records", "/nonexistent/dir/x.jsonl"],
    ["replay", "/nonexistent/file.jsonl"],
    ["frobnicate"],
    [],
])
def test_bad_input_exits_2_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as e:
        raise SystemExit(main(argv))
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error" in err


def test_server_advisor_comes_from_the_entry_point(monkeypatch, capsys):
    made = []

    class FakeAdvisor:
        closed = False

        def close(self):
            FakeAdvisor.closed = True

    class EP:
        name, group, value = "grpc", "quiltsolve.advisors", "fake:Factory"

        def load(self):
            def factory(target):
                made.append(target)
                return FakeAdvisor()
            return factory

    import importlib.metadata
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [EP()] if group == EP.group else [])
    assert main(["match", "--a", "greedy", "--b", "random", "--games", "2", "--json",
                 "--server", "127.0.0.1:50051"]) == 0
    assert made == ["127.0.0.1:50051"] and FakeAdvisor.closed
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    assert main(["match", "--a", "greedy", "--b", "random", "--server", "127.0.0.1:50051"]) == 2
    assert "no 'grpc' advisor" in capsys.readouterr().err


def test_a_broken_advisor_plugin_is_an_error_naming_it(monkeypatch, capsys):
    """An installed plug-in whose import fails is reported as broken, never as "not installed"."""
    import importlib.metadata

    from quiltsolve.engine.advisor import PluginError, advisor_from_entry_point

    class Broken:
        name, group, value = "grpc", "quiltsolve.advisors", "quiltsolve.clients.grpc_client:PlacementClient"

        def load(self):
            raise ModuleNotFoundError("No module named 'grpc'")

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [Broken()])
    with pytest.raises(PluginError, match=r"plug-in 'grpc' .*clients.grpc_client:PlacementClient.*No module named 'grpc'"):
        advisor_from_entry_point("grpc", "h:1")
    assert main(["match", "--a", "greedy", "--b", "random", "--server", "127.0.0.1:50051"]) == 2
    err = capsys.readouterr().err
    assert "plug-in 'grpc'" in err and "No module named 'grpc'" in err and "not installed" not in err
