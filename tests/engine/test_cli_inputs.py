"""``python -m quiltsolve.engine`` conventions: --version, help for every option, main() -> int, shell
completion, review, and one line on stderr (exit 2) for any bad input, checked by a seeded fuzz.

``state`` and ``review`` run ``suggest state`` / ``suggest review`` (issue 35): the cases here hold for
the old names too, with suggest's words."""

from __future__ import annotations

import argparse
import io
import json
import random
from pathlib import Path

import pytest

import quiltsolve.engine.__main__ as cli
from quiltsolve.engine.__main__ import main

GOLDEN = Path(__file__).parents[1] / "data" / "golden-games.jsonl"
GOLDEN_LINES = GOLDEN.read_text().splitlines()


def run(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert isinstance(code, int)
    return code, out, err


def one_error_line(err: str) -> None:
    assert len(err.strip().splitlines()) == 1, err
    assert "error" in err and "Traceback" not in err


# ------------------------------------------------------------------ conventions
def test_version(capsys):
    from importlib.metadata import version
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip().endswith(version("quiltsolve"))


def test_every_option_has_help():
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"match", "replay"}      # state and review: suggest's parsers
    for name, p in [("", parser)] + list(sub.choices.items()):
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help and action.help.strip(), (name, action.option_strings or action.dest)
        assert p.description or name == "", name


@pytest.mark.parametrize("command,words", [
    ("match", ["--games N", "games to play", "--seed N", "seed of the deals"]),
    ("state", ["--format {json,notation}", "--position STATE", "--plies K"]),
    ("review", ["--iterations N", "--time-limit S", "--large-loss F", "--json"]),
    ("replay", ["FILE.jsonl", "stdin"]),
])
def test_help_text(command, words, capsys):
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    for w in words:
        assert w in out


def test_main_returns_the_exit_status(capsys):
    assert run([], capsys)[0] == 2
    assert run(["--help"], capsys)[0] == 0
    assert run(["state", "--seed", "x"], capsys)[0] == 2


def test_argcomplete_marker_and_completion(monkeypatch, capsys):
    argcomplete = pytest.importorskip("argcomplete")
    head = Path(cli.__file__).read_bytes()[:1024]
    assert b"PYTHON_ARGCOMPLETE_OK" in head
    seen = []
    monkeypatch.setattr(cli.argcomplete, "autocomplete", lambda parser: seen.append(parser))
    run(["--version"], capsys)
    assert len(seen) == 1 and isinstance(seen[0], argparse.ArgumentParser)

    class Finder(argcomplete.CompletionFinder):
        def _init_debug_stream(self):       # not fd 9: pytest uses it
            argcomplete.io.debug_stream = io.StringIO()
    for line, want in [("quiltsolve-engine rep", "replay"), ("quiltsolve-engine match --a gr", "greedy"),
                       ("quiltsolve-engine match --edition o", "original")]:
        monkeypatch.setenv("_ARGCOMPLETE", "1")
        monkeypatch.setenv("COMP_LINE", line)
        monkeypatch.setenv("COMP_POINT", str(len(line)))
        monkeypatch.setenv("_ARGCOMPLETE_IFS", "\n")
        out = io.StringIO()
        Finder()(cli._parser(), exit_method=lambda code=0: None, output_stream=out)
        assert out.getvalue().split() == [want]


# ------------------------------------------------------------------ replay
def record(i=0) -> dict:
    return json.loads(GOLDEN_LINES[i])


@pytest.mark.parametrize("change,message", [
    (lambda r: r.pop("result"), "result: missing; a record holds a finished game"),
    (lambda r: r.update(result={}), "result.scores: missing"),
    (lambda r: r["result"].pop("winner"), "result.winner: missing"),
    (lambda r: r.update(actions=[]), "actions: the game is not over after 0 actions"),
    (lambda r: r.update(actions=r["actions"][:10]), "actions: the game is not over after 10 actions"),
    (lambda r: r["result"].update(winner=True), "result.winner: record says true"),
    (lambda r: r.update(circle="x" * 15_000), 'circle: must be a list of the 33 patch ids, got "xxx'),
    (lambda r: r.update({"\ud800": 1}), '"\\ud800": unknown field'),
])
def test_replay_rejects_unfinished_and_malformed_records(tmp_path, capsys, change, message):
    r = record()
    change(r)
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(r) + "\n")
    code, out, _ = run(["replay", f], capsys)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"line 1 (seed {r['seed']}): {message}"), first
    assert len(first) < 200 and out.splitlines()[-1] == "0 passed, 1 failed"


def test_replay_reads_a_bom_and_stdin(tmp_path, capsys, monkeypatch):
    f = tmp_path / "bom.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + "\n".join(GOLDEN_LINES[:3]).encode() + b"\r\n")
    assert run(["replay", f], capsys)[1].strip() == "3 passed, 0 failed"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\n".join(GOLDEN_LINES[:2]).encode())))
    assert run(["replay", "-"], capsys)[1].strip() == "2 passed, 0 failed"


def deep_json(n=100_000) -> str:
    return "[" * n + "]" * n


@pytest.fixture
def bad_files(tmp_path):
    files = {
        # (path, what replay says, what suggest says for state and review)
        "missing": (tmp_path / "missing.jsonl", "cannot read", "cannot read"),
        "directory": (tmp_path, "Is a directory", "it is a directory"),
        "binary": (tmp_path / "bin.jsonl", "not a UTF-8 text file", "a binary file, not text"),
        "huge": (tmp_path / "huge.jsonl", "larger than 16 MiB", "longer than 1 MiB"),
        "nul in name": (str(tmp_path / "a") + "\0b", "not a usable file name", "embedded null byte"),
    }
    rng = random.Random(1)
    files["binary"][0].write_bytes(bytes(rng.randrange(256) for _ in range(5000)))
    with open(files["huge"][0], "wb") as f:
        f.truncate(16 * 1024 * 1024 + 1)
    return files


@pytest.mark.parametrize("which", ["missing", "directory", "binary", "huge", "nul in name"])
@pytest.mark.parametrize("command", [["replay"], ["state", "--record"], ["review", "--iterations", "5"]])
def test_unreadable_files_give_one_line_and_exit_2(bad_files, which, command, capsys):
    path, replay_message, suggest_message = bad_files[which]
    argv = ["state", "--record", path] if command[0] == "state" else [command[0], path] + command[1:]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    one_error_line(err)
    assert (replay_message if command[0] == "replay" else suggest_message) in err


@pytest.mark.parametrize("content,message", [
    (deep_json(), "nested too deeply"),
    ("{not json", "not JSON"),
    ('{"seed": ' + "9" * 5000 + "}", "too many digits"),
    ("[1, 2]", "must be a JSON object"),
    ('{"circle": [' + deep_json(100_000) + "]}", "nested too deeply"),
])
@pytest.mark.parametrize("command", ["state", "review"])
def test_bad_record_content_for_state_and_review(tmp_path, capsys, content, message, command):
    f = tmp_path / "r.jsonl"
    f.write_text(content + "\n")
    argv = ["state", "--record", f] if command == "state" else ["review", f, "--iterations", "5"]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    one_error_line(err)
    assert message in err and len(err) < 400


def test_replay_of_bad_content_reports_each_line(tmp_path, capsys):
    f = tmp_path / "r.jsonl"
    f.write_text("\n".join([deep_json(), '{"seed": ' + "9" * 5000 + "}", GOLDEN_LINES[0]]) + "\n")
    code, out, _ = run(["replay", f], capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "line 1: not JSON this tool reads: nested too deeply"
    assert lines[1] == "line 2: not JSON this tool reads: a number has too many digits"
    assert lines[2] == "1 passed, 2 failed"


def test_state_record_prefix_and_bad_numbers(capsys):
    assert run(["state", "--record", GOLDEN, "--line", "0"], capsys)[0] == 2
    code, _, err = run(["state", "--plies", "9" * 50], capsys)
    assert code == 2 and len(err) < 200
    code, out, _ = run(["state", "--record", GOLDEN, "--line", "2", "--plies", "5", "--format", "notation"],
                       capsys)
    assert code == 0 and len(out.split()) == 6


# ------------------------------------------------------------------ review
def test_review_lines_and_summary(capsys):
    code, out, err = run(["review", GOLDEN, "--line", "3", "--iterations", "30", "--plies", "4"], capsys)
    assert code == 0 and err == ""
    head, *lines = out.splitlines()
    assert head.endswith("line 3: 4 moves, 30 iterations per position, seed 0"), head
    assert len(lines) == 6
    actions = record(2)["actions"]
    for i, line in enumerate(lines[:4]):
        # players are numbered 1 and 2 in text (the first player moves at ply 0): P1 or P2, never P0
        assert line.split()[0] == str(i) and line.split()[1] in ("P1", "P2") and actions[i] in line
    assert lines[0].split()[1] == "P1"
    assert lines[4].startswith("player 1: ") and "mean loss" in lines[4] and "large mistake" in lines[4]
    assert lines[5].startswith("player 2: ")


def test_review_json(capsys):
    code, out, _ = run(["review", GOLDEN, "--iterations", "30", "--plies", "3", "--json", "--seed", "4"], capsys)
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 4
    assert [o["ply"] for o in objs[:3]] == [0, 1, 2]
    assert set(objs[0]) == {"ply", "player", "played", "best", "value_played", "value_best", "loss", "label", "large", "margin_played", "margin_best",
                            "loss_points"}
    summary = objs[3]
    assert [s["player"] for s in summary["summary"]] == [0, 1]
    assert sum(s["moves"] for s in summary["summary"]) == 3
    assert summary["iterations"] == 30 and summary["seed"] == 4
    # Reproducible with an iteration budget.
    assert run(["review", GOLDEN, "--iterations", "30", "--plies", "3", "--json", "--seed", "4"], capsys)[1] == out


def test_review_reviews_unfinished_games_but_not_illegal_ones(tmp_path, capsys):
    r = record()
    r["actions"] = r["actions"][:2]
    del r["result"]
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(r))
    code, out, _ = run(["review", f, "--iterations", "10"], capsys)
    assert code == 0 and len(out.splitlines()) == 5     # a heading, two moves, two summaries
    r["actions"].append("jump")
    f.write_text(json.dumps(r))
    code, out, err = run(["review", f, "--iterations", "10"], capsys)
    assert code == 2 and out == ""
    one_error_line(err)
    assert 'record.actions[2]: unknown action "jump"' in err


@pytest.mark.parametrize("argv", [
    ["review", GOLDEN, "--iterations", "0"],
    ["review", GOLDEN, "--time-limit", "-1"],
    ["review", GOLDEN, "--large-loss", "2"],
    ["review", GOLDEN, "--line", "999"],
    ["review"],
])
def test_review_bad_arguments(argv, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    one_error_line(err)


# ------------------------------------------------------------------ fuzz
def random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(12 if depth < 4 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, -1, 53, 2 ** 81, 10 ** 30, rng.randrange(-100, 100)])
    if kind == 3:
        return rng.choice([0.5, 3.0, 1e300, -0.0])
    if kind == 4:
        return rng.choice(["", "advance", "buy 0 0,0;0,1", "leather 9,9", "\ud800", "x" * 300, "revised"])
    if kind == 5:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(8)))
    if kind == 6:
        return rng.randrange(33)
    if kind < 9:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(5))]
    keys = ["edition", "seed", "circle", "actions", "result", "players", "scores", "winner", "x"]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def mutated_record(rng: random.Random) -> dict:
    """A golden record with one field (up to 3 levels down) replaced by random JSON, or deleted."""
    r = record(rng.randrange(len(GOLDEN_LINES)))
    node = r
    for _ in range(3):
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        child = node[key]
        if not isinstance(child, (dict, list)) or not child or rng.random() < 0.4:
            break
        node = child
    if rng.random() < 0.2 and isinstance(node, dict):
        del node[key]
    else:
        node[key] = random_json(rng)
    return r


def fuzz_inputs(n: int, seed: int):
    rng = random.Random(seed)
    for i in range(n):
        kind = i % 4
        if kind == 0:
            yield bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        elif kind == 1:
            yield json.dumps(random_json(rng)).encode("utf-8", "surrogatepass")
        elif kind == 2:
            yield json.dumps(mutated_record(rng)).encode("utf-8", "surrogatepass")
        else:
            text = "\n".join(json.dumps(mutated_record(rng)) for _ in range(3))
            yield rng.choice([b"\xef\xbb\xbf", b"", b"\n"]) + text.encode("utf-8", "surrogatepass")


def test_fuzz_files_never_give_a_traceback(tmp_path, capsys):
    f = tmp_path / "fuzz.jsonl"
    outcomes = set()
    for data in fuzz_inputs(160, seed=12345):
        f.write_bytes(data)
        for argv in (["replay", f], ["state", "--record", f, "--plies", "3", "--format", "notation"],
                     ["review", f, "--iterations", "2", "--plies", "1", "--json"]):
            code, out, err = run(argv, capsys)
            assert code in (0, 1, 2), (argv, data[:200])
            assert "Traceback" not in out + err and len(err.splitlines()) <= 1, (argv, data[:200], err)
            outcomes.add((argv[0], code))
    assert {("replay", 1), ("state", 2), ("review", 2), ("state", 0), ("review", 0)} <= outcomes


def test_fuzz_notation_never_gives_a_traceback(capsys):
    rng = random.Random(7)
    base = "r 26,0,tnmhc3d,575777677577423401400 24,4,au1gqri,000000000000601701747577777 5vl0kb68f9opes7j42w 0L1 -"
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzL,+- \ud800é\t"
    codes = set()
    for _ in range(300):
        chars = list(base)
        for _ in range(rng.randrange(1, 4)):
            chars[rng.randrange(len(chars))] = rng.choice(alphabet)
        code, out, err = run(["state", "--notation", "".join(chars), "--format", "notation"], capsys)
        assert code in (0, 2) and "Traceback" not in err and len(err.splitlines()) <= 1
        codes.add(code)
    assert codes == {0, 2}


def test_stdout_with_odd_text_does_not_fail(tmp_path, capsys):
    r = record()
    r["seed"] = "\ud800" + "é" * 100
    r["result"]["winner"] = 1 - r["result"]["winner"]
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(r))
    code, out, _ = run(["replay", f], capsys)
    assert code == 1 and out.startswith('line 1 (seed "\\ud800') and len(out.splitlines()[0]) < 200
