"""``suggest play`` end to end through a pseudo-terminal (pexpect): a few
moves against a fast engine (greedy) with a hint, a buy through a numbered
placement, undo, save, load and quit; a follow-mode session entering both
sides' moves in every form; a leather patch due in a position; and the
session's answers to bad input."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from quiltsolve import engine

pexpect = pytest.importorskip("pexpect")
import pexpect.fdpexpect  # noqa: E402

SUGGEST = Path(sys.executable).parent / "suggest"
ENV = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS="160")
NOTATION = re.compile(r"\n(r \S+ \S+ \S+ \S+ \S+)\r?\n")
LEATHER_DUE = "r 26,0,tnmhc3d,575777677577423401400 24,4,au1gqri,000000000000601701747577777 5vl0kb68f9opes7j42w 0L1 -"

pytestmark = pytest.mark.skipif(not SUGGEST.exists(), reason="the suggest console script is not installed")


def spawn(cwd: Path, *args: str):
    """``suggest play ARGS`` on a new pseudo-terminal, driven with pexpect.

    The child is started by ``subprocess`` (not ``pexpect.spawn``, which
    forks this process: the test session holds gRPC servers, and forking a
    process with gRPC's threads is unsafe), its stdin, stdout and stderr on
    the terminal's slave side; pexpect reads and writes the master side."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 200, 0, 0))
    proc = subprocess.Popen([str(SUGGEST), "play", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=str(cwd), env=ENV, start_new_session=True)
    os.close(slave)
    child = pexpect.fdpexpect.fdspawn(master, encoding="utf-8", timeout=60)
    child.proc = proc
    return child


def notation(child, prompt: str) -> str:
    child.sendline("notation")
    child.expect(NOTATION)
    text = child.match.group(1)
    child.expect_exact(prompt)
    return text


def finish(child) -> None:
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert child.proc.wait(timeout=30) == 0, child.before


def stop(child) -> None:
    if child.proc.poll() is None:
        child.proc.kill()
        child.proc.wait(timeout=30)
    if child.child_fd >= 0:
        child.close()


def replayed(record: dict):
    return engine.replay(record, check_result=False)


def test_against_greedy_hint_buy_undo_save_load(tmp_path):
    child = spawn(tmp_path, "--engine", "greedy", "--seed", "3", "--iterations", "60", "--time-limit", "0.3")
    try:
        child.expect_exact("'help' lists the commands")
        # The whole table: both quilts, the track, the circle with costs.
        child.expect_exact("player 1 (you)")
        child.expect_exact("player 2 (greedy)")
        child.expect_exact("space 0, 5 buttons")
        child.expect_exact("income 0, 81 empty")
        child.expect_exact("time track")
        child.expect_exact(".....$.....$.....$.....$..L..$..L..$..L..$..L..$..L..$")
        child.expect_exact("1) patch 10")
        child.expect_exact("1 button, 2 time")
        child.expect_exact("player 1 > ")

        child.sendline("help")
        child.expect_exact("undo")
        child.expect_exact("player 1 > ")

        child.sendline("hint")
        child.expect(r"hint for player 1 \(you\) \(search: 60 iterations in [0-9.]+ s\):")
        child.expect(r"1\. (advance|buy \d+ [0-9,;]+) +win chance 0\.\d\d")
        child.expect_exact("player 1 > ")

        child.sendline("buy 1")                     # the first patch in front of the token: 10
        child.expect_exact("placements of patch 10, best first:")
        child.expect_exact("1: fits ")
        child.expect_exact("5: fits ")
        child.expect_exact("placement (1-5, 'more'")
        child.sendline("1")
        child.expect(r"player 1 \(you\) buys patch 10 \(1 button, 2 time, \+0 income\) at ([0-9,;]+)\r?\n")
        cells = child.match.group(1)
        child.expect(r"player 2 \(greedy\) (buys|advances)")
        child.expect_exact("player 1 > ")
        after_buy = notation(child, "player 1 > ")

        child.sendline("advance")
        child.expect_exact("player 1 (you) advances to space")
        child.expect_exact("player 1 > ")
        assert notation(child, "player 1 > ") != after_buy

        child.sendline("undo")                      # back to my previous turn: the engine's reply goes too
        child.expect(r"took back \d+ moves: advance")
        child.expect_exact("player 1 > ")
        assert notation(child, "player 1 > ") == after_buy

        child.sendline("save game.jsonl")
        child.expect(r"saved the game \((\d+) moves\) as an engine record to game.jsonl")
        n = int(child.match.group(1))
        child.expect_exact("player 1 > ")
        record = json.loads((tmp_path / "game.jsonl").read_text())
        assert len(record["actions"]) == n >= 2
        assert record["actions"][0] == "buy 10 " + cells
        assert record["players"] == ["human", "greedy"] and record["seed"] == 3 and "result" not in record
        assert replayed(record).to_notation() == after_buy

        child.sendline("advance")
        child.expect_exact("player 1 (you) advances")
        child.expect_exact("player 1 > ")
        child.sendline("load game.jsonl")           # back to the saved game
        child.expect_exact(f"loaded game.jsonl: {n} moves")
        child.expect_exact("player 1 > ")
        assert notation(child, "player 1 > ") == after_buy
        finish(child)
    finally:
        stop(child)


def test_follow_both_sides_in_every_form(tmp_path):
    s = engine.new_game(5)
    child = spawn(tmp_path, "--follow", "--seed", "5", "--iterations", "40", "--time-limit", "0.3")
    try:
        child.expect_exact("player 1 to move")
        child.expect_exact("player 1 > ")
        child.sendline("advance")
        child.expect_exact("player 1 advances to space 1 (+1 button)")
        s.apply_action(engine.ADVANCE)
        assert s.current_player() == 1
        child.expect_exact("player 2 > ")

        # Player 1 buys by position, then gives the cells of a placement.
        pos, pid = next((k, p) for k, p in enumerate(s.available_patches(), 1) if p in s.buyable_patches())
        mask = s.placements(pid)[-1]
        buy = engine.Buy(pid, mask)
        cells = buy.to_str().split()[2]
        child.sendline(f"buy {pos}")
        child.expect_exact(f"placements of patch {pid}, best first:")
        child.expect_exact("placement (1-")
        child.sendline(cells)
        child.expect_exact(f"player 2 buys patch {pid} ")
        child.expect_exact(f"at {cells}")
        s.apply_action(buy)
        prompt = f"player {s.current_player() + 1} > "
        child.expect_exact(prompt)

        # The next move in the engine's text form.
        move = next(a for a in s.legal_actions() if isinstance(a, engine.Buy))
        child.sendline(move.to_str())
        child.expect_exact(f"player {s.current_player() + 1} buys patch {move.patch_id} ")
        s.apply_action(move)
        prompt = f"player {s.current_player() + 1} > "
        child.expect_exact(prompt)
        assert notation(child, prompt) == s.to_notation()

        child.sendline("hint 2")
        child.expect_exact(f"hint for player {s.current_player() + 1} (search: 40 iterations")
        child.expect(r"2\. ")
        child.expect_exact("'take K' plays move K")
        child.expect_exact(prompt)
        child.sendline("take 1")
        child.expect(rf"player {s.current_player() + 1} (buys|advances)")
        child.sendline("undo")
        child.expect_exact("took back 1 move: ")
        child.expect_exact(prompt)
        assert notation(child, prompt) == s.to_notation()

        child.sendline("buy #99")
        child.expect_exact("error: patch 99 is not in front of the token")
        child.sendline("frobnicate")
        child.expect_exact("error: unknown command 'frobnicate'")
        child.expect_exact(prompt)

        child.sendline("save followed.jsonl")
        child.expect_exact("saved the game (3 moves)")
        child.expect_exact(prompt)
        record = json.loads((tmp_path / "followed.jsonl").read_text())
        assert record["actions"] == ["advance", buy.to_str(), move.to_str()]
        assert record["players"] == ["human", "human"]
        finish(child)
    finally:
        stop(child)


def test_leather_due_in_a_position(tmp_path):
    child = spawn(tmp_path, "--follow", "--position", LEATHER_DUE, "--time-limit", "0.3")
    try:
        child.expect_exact("player 1 to move: place 1 leather patch")
        child.expect_exact("place the leather patch: a number below, or a cell r,c")
        child.expect(r"1\) (\d),(\d)")
        cell = (int(child.match.group(1)), int(child.match.group(2)))
        child.expect_exact("player 1 leather (1-5 or r,c) > ")
        child.sendline("advance")                       # not now
        child.expect_exact("error: a leather patch is due first")
        child.sendline("1")
        child.expect_exact(f"player 1 places a leather patch at {cell[0]},{cell[1]}")
        s = engine.GameState.from_notation(LEATHER_DUE)
        s.apply_action(engine.PlaceLeather(cell))
        prompt = f"player {s.current_player() + 1} > "
        child.expect_exact(prompt)
        assert notation(child, prompt) == s.to_notation()

        child.sendline("save pos.json")
        child.expect_exact("saved the position as state JSON")
        child.expect_exact(prompt)
        assert engine.GameState.from_json(json.loads((tmp_path / "pos.json").read_text())) == s

        child.sendline("undo")
        child.expect_exact("took back 1 move: leather")
        child.expect_exact("player 1 leather (1-5 or r,c) > ")
        board = engine.GameState.from_notation(LEATHER_DUE).players[0].board
        k = next(k for k in range(81) if board >> k & 1)
        child.sendline(f"{k // 9},{k % 9}")              # a covered cell
        child.expect_exact(f"error: leather patch cannot go on covered cell {k // 9},{k % 9}")
        child.sendline("load pos.json")
        child.expect_exact("loaded pos.json: 0 moves")
        child.expect_exact(prompt)
        assert notation(child, prompt) == s.to_notation()
        finish(child)
    finally:
        stop(child)


@pytest.fixture()
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_finished_game_saves_a_record_with_its_result(in_tmp):
    from .conftest import run_cli

    lines = "\n".join(["hint 1", "take 1"] * 120 + ["save end.jsonl", "quit"]) + "\n"
    r = run_cli("play", "--engine", "greedy", "--side", "1", "--seed", "2", "--iterations", "20", stdin=lines)
    assert r.code == 0, r.err
    record = json.loads((in_tmp / "end.jsonl").read_text())
    final = engine.replay(record)               # a full record: its result checks
    assert final.is_terminal() and record["players"] == ["greedy", "human"]
    assert f"player 1 scores {final.scores()[0]}, player 2 scores {final.scores()[1]}" in r.out
    # the end of the game prints a link to its review in the web app, the record in the fragment
    from quiltsolve.clients.links import read_review_link
    links = [line.split(": ", 1)[1] for line in r.out.splitlines() if line.startswith("review it in the web app: ")]
    assert len(links) == 1
    assert read_review_link(links[0]).record == record


@pytest.mark.parametrize("argv, needle", [
    (["--engine", "nobody"], "unknown player 'nobody'"),
    (["--engine", "search:fast"], "search player takes seconds"),
    (["--json"], "--json: play is a terminal session"),
    (["--position", "-"], "stdin is where the moves are typed"),
    (["--position", "r 0,5,-,0 0,5,-,0 tak 0 -"], "position: circle: patch 0"),
    (["--line", "2"], "--line needs --load"),
    (["--load", "/nonexistent/game.jsonl"], "No such file"),
    (["--side", "2"], "invalid choice"),
    # a circle by ids (issue 32): the service's one check of a circle names the entry at fault
    (["--follow", "--circle", "1,2,3"], "circle: 3 patches; a circle holds all 33"),
    (["--follow", "--circle", "12,5,x"], "circle[2]: 'x' is not an integer"),
    (["--follow", "--circle", ",".join(map(str, [*range(1, 8), 3, *range(9, 33), 0]))], "circle[7]: patch 3 is listed twice"),
    (["--follow", "--circle", ",".join(map(str, [0, *range(1, 33)]))], "circle[32]: must be patch 0"),
    (["--follow", "--circle", ",".join(map(str, [*range(1, 33), 40]))], "circle[32]: unknown patch id 40"),
    (["--follow", "--circle", "3", "--position", "r 0,5,-,0 0,5,-,0 tak 0 -"], "not allowed with argument"),
])
def test_bad_start_is_one_line_exit_2(cli, argv, needle):
    r = cli("play", *argv, stdin="quit\n")
    assert r.code == 2 and r.out == "", (r.code, r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1 and needle in r.err and "Traceback" not in r.err, r.err


def test_follow_a_game_from_a_circle_given_by_ids(cli, in_tmp):
    """``--follow --circle``: the game set up from the circle as it lies on a table (the engine's own start of
    it), both sides entered, saved as a record of that circle with no seed."""
    circle = [*range(32, 0, -1), 0]       # not a seeded deal: as a person laid it out
    r = cli("play", "--follow", "--circle", ",".join(map(str, circle)), "--edition", "original",
            stdin="advance\nadvance\nnotation\nsave table.jsonl\nquit\n")
    assert r.code == 0, r.err
    s = engine.GameState.from_circle(circle, "original")
    assert s.available_patches() == circle[:3]
    for _ in range(2):
        s.apply_action(engine.ADVANCE)
    assert any(line.endswith(f"> {s.to_notation()}") for line in r.out.splitlines()), r.out
    record = json.loads((in_tmp / "table.jsonl").read_text())
    assert record["circle"] == circle and record["seed"] is None and record["edition"] == "original"
    assert record["players"] == ["human", "human"] and engine.replay(record, check_result=False) == s


def test_hints_show_one_win_chance_per_move_and_the_playout_share_with_verbose(cli, monkeypatch):
    # Issue 36, 5: a hint's figure is the calibrated win chance; the raw share of playouts won only with -v.
    monkeypatch.setenv("COLUMNS", "300")
    plain = cli("play", "--follow", "--seed", "3", "--iterations", "40", stdin="hint 3\nquit\n")
    assert plain.code == 0, plain.err
    hints = [line for line in plain.out.splitlines() if re.match(r"  \d\. ", line)]
    assert len(hints) == 3
    assert all(line.count("win chance ") == 1 and "% of" not in line and " playouts, mean margin " in line
               for line in hints), hints
    verbose = cli("play", "--follow", "--seed", "3", "--iterations", "40", "--verbose", stdin="hint 3\nquit\n")
    assert verbose.code == 0, verbose.err
    assert len(re.findall(r"  \d\. .*: won \d+% of \d+ playouts", verbose.out)) == 3


def test_end_of_input_leaves_quietly(cli):
    r = cli("play", "--follow", stdin="")
    assert r.code == 0 and "player 1 > " in r.out and r.err == ""


def test_hints_and_placements_through_the_service(cli, port, in_tmp):
    lines = "hint 3\nbuy 1\n1\nhint\nsave s.jsonl\nquit\n"
    r = cli("play", "--follow", "--seed", "3", "--iterations", "50", "--server", f"127.0.0.1:{port}",
            "--deadline", "30", stdin=lines)
    assert r.code == 0, r.err
    assert r.out.count("hint for player") == 2 and "3. " in r.out
    assert "placements of patch 10, best first:" in r.out and "player 1 buys patch 10" in r.out
    record = json.loads((in_tmp / "s.jsonl").read_text())
    assert len(record["actions"]) == 1 and record["actions"][0].startswith("buy 10 ")


def test_service_down_at_start_is_exit_3(cli, closed_port):
    r = cli("play", "--follow", "--server", f"127.0.0.1:{closed_port}", "--deadline", "1", stdin="quit\n")
    assert r.code == 3 and "unavailable" in r.err and len(r.err.strip().splitlines()) == 1, r.err
