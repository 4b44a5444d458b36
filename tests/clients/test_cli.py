"""The ``suggest`` command: every sub-command, human and JSON output, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CORNER, EMPTY

SUGGEST = Path(sys.executable).parent / "suggest"


def one_line_error(r) -> None:
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert "Traceback" not in r.err


# ---------------------------------------------------------------- patches
def test_patches_human(cli):
    r = cli("patches")
    assert r.code == 0
    assert "patch 32" in r.out and "buttons" in r.out


def test_patches_json(cli):
    r = cli("patches", "--json")
    assert r.code == 0
    d = r.json()
    assert len(d["patches"]) == 33
    p0 = d["patches"][0]
    assert p0 == {"id": 0, "shape": "##", "rows": ["##"], "buttons": 2, "time": 1, "income": 0, "area": 2}


# ------------------------------------------------------------------ place
def test_place_human(cli, board_file, tmp_path):
    svg = tmp_path / "out.svg"
    r = cli("place", str(board_file), "--patch", "12", "-p", "5", "-p", "##./.##", "--svg", str(svg))
    assert r.code == 0, r.err
    assert "OPTIMAL (proven optimal)" in r.out
    assert "empty cells: 42 → 27" in r.out
    assert "7×7 window: none" in r.out
    # Every placed patch has its own letter, explained in the legend.
    for letter in "ABC":
        assert f"{letter} = " in r.out
    grid = [line for line in r.out.splitlines() if line.startswith("# # #")]
    assert len(grid) == 9 and sum(g.count("A") for g in grid) > 0
    assert svg.read_text().startswith("<svg")


def test_place_json(cli, board_file):
    r = cli("place", str(board_file), "--patch", "12,5", "--patch", "##./.##", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["status"] == "OPTIMAL"
    assert (d["empty_before"], d["empty_after"]) == (42, 27)
    assert d["square7"] is None
    assert sorted(str(p["patch"]) for p in d["placements"]) == ["##./.##", "12", "5"]
    cells = [tuple(c) for p in d["placements"] for c in p["cells"]]
    assert len(cells) == len(set(cells)) == 15
    assert all(CORNER[r][c] == "." for r, c in cells)


def test_place_square7_json_from_stdin(cli):
    # Everything but the 7x7 window's last three cells is filled.
    rows = ["#" * 9] * 6 + ["####....."] + ["#" * 9] * 2
    r = cli("place", "-", "--patch", "1", "--objective", "square7", "--json", stdin="\n".join(rows))
    assert r.code == 0, r.err
    d = r.json()
    assert d["square7"] is not None and d["empty_after"] == 2


def test_place_and_puzzle_take_inline_grids(cli):
    board = "/".join(CORNER)
    r = cli("place", board, "--patch", "12,5", "--patch", "##./.##", "--json")
    assert r.code == 0, r.err
    assert (r.json()["empty_before"], r.json()["empty_after"]) == (42, 27)
    r = cli("puzzle", ".../...", "--piece", "##/##", "--piece", "##", "--count", "--json")
    assert r.code == 0, r.err
    assert (r.json()["count"], r.json()["distinct"]) == (2, 1)


def test_place_infeasible_exit_1(cli, board_file):
    r = cli("place", str(board_file), "--patch", "0", "--objective", "square7", "--json")
    assert r.code == 1
    assert r.json()["status"] == "INFEASIBLE"


def test_place_nothing_fits_exit_1(cli):
    r = cli("place", "-", "--patch", "3", stdin="\n".join(["#" * 9] * 9))
    assert r.code == 1
    assert "no placement possible" in r.out


# ------------------------------------------------------------------- next
def test_next_json(cli, board_file):
    r = cli("next", str(board_file), "--patch", "5", "--upcoming", "7,9", "-u", "13", "--top", "3",
            "--time-limit", "2", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["patch"] == 5 and d["upcoming"] == [7, 9, 13]
    assert 1 <= len(d["ranked"]) <= 3
    vals = [x["value"] for x in d["ranked"]]
    assert vals == sorted(vals, reverse=True)
    assert len(d["ranked"][0]["cells"]) == 5


def test_next_human(cli, board_file):
    r = cli("next", str(board_file), "--patch", "0", "--upcoming", "1", "--top", "2", "--time-limit", "2")
    assert r.code == 0, r.err
    assert "empty cells: 42 → 40" in r.out and "A = patch 0" in r.out


def test_next_no_room_exit_1(cli):
    r = cli("next", "-", "--patch", "3", "--json", stdin="\n".join(["#" * 9] * 9))
    assert r.code == 1
    assert r.json()["ranked"] == []


# ------------------------------------------------------------------- move
@pytest.fixture()
def state_file(tmp_path):
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

    s = engine.new_game(5)
    g = GreedyPlayer()
    for _ in range(12):
        s.apply_action(g.choose(s))
    p = tmp_path / "state.json"
    p.write_text(json.dumps(s.to_json()))
    return p


def test_move_json(cli, state_file):
    r = cli("move", str(state_file), "--json", "--time-limit", "0.5")
    assert r.code == 0, r.err
    d = r.json()
    assert d["player"] in (0, 1) and d["terminal"] is False
    kinds = {m["kind"] for m in d["moves"]}
    assert "advance" in kinds or "leather" in kinds
    vals = [m["value"] for m in d["moves"]]
    assert vals == sorted(vals, reverse=True)
    from quiltsolve import engine

    for m in d["moves"]:
        assert engine.parse_action(m["action"]).to_str() == m["action"]
        assert m["reason"]


def test_move_iterations_repeat_exactly(cli, state_file):
    runs = [cli("move", str(state_file), "--json", "--iterations", "200") for _ in range(2)]
    assert all(r.code == 0 for r in runs), runs[0].err
    a, b = (r.json() for r in runs)
    assert a.pop("wall_time") >= 0 and b.pop("wall_time") >= 0     # the one thing that varies
    assert a == b and a["iterations"] == 200 and a["searched"] is True
    r = cli("move", str(state_file), "--iterations", "0")
    assert r.code == 2
    one_line_error(r)


def test_move_human(cli, state_file):
    r = cli("move", str(state_file), "--top", "2", "--time-limit", "0.5")
    assert r.code == 0, r.err
    assert "best: " in r.out and "to move" in r.out


def test_move_terminal_exit_1(cli, tmp_path):
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

    s = engine.new_game(2)
    g = GreedyPlayer()
    while not s.is_terminal():
        s.apply_action(g.choose(s))
    f = tmp_path / "end.json"
    f.write_text(json.dumps(s.to_json()))
    r = cli("move", str(f), "--json")
    assert r.code == 1
    assert r.json()["moves"] == []


# ----------------------------------------------------------------- puzzle
def test_puzzle_find_human_and_json(cli, tmp_path):
    region = tmp_path / "region.txt"
    region.write_text("#....\n.....\n")   # 9 cells, not a rectangle of cells
    args = ("puzzle", str(region), "--piece", "###", "--piece", "##/##", "--piece", "#/#")
    r = cli(*args)
    assert r.code == 0, r.err
    assert "OPTIMAL" in r.out and "A = piece" in r.out
    r = cli(*args, "--json")
    d = r.json()
    assert d["status"] == "OPTIMAL" and (d["width"], d["height"]) == (5, 2)
    cells = sorted(tuple(c) for p in d["tilings"][0] for c in p["cells"])
    assert cells == [(0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4)]


def test_puzzle_letters_match_the_legend(cli):
    from quiltsolve.solver.geometry import Shape

    r = cli("puzzle", "...../...../.....", "--piece", "####/#...", "--piece", "###/.#./.#.",
            "--piece", ".#../####")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    grid = [line.split() for line in lines if len(line.split()) == 5 and all(len(x) == 1 for x in line.split())]
    legend = {line[0]: line.split()[-1] for line in lines if " = piece " in line}
    assert len(grid) == 3 and len(legend) == 3
    for letter, shape in legend.items():
        cells = [(i, j) for i, row in enumerate(grid) for j, x in enumerate(row) if x == letter]
        assert Shape.from_cells(cells) in Shape.parse(shape).orientations(), (letter, shape)


def test_puzzle_count_json(cli):
    r = cli("puzzle", "-", "--piece", "##", "--piece", "##", "--count", "--json", stdin="##\n##\n")
    # '#' cells are not part of the region: nothing left to tile → bad input.
    assert r.code == 2
    r = cli("puzzle", "-", "--piece", "##", "--piece", "##", "--count", "--json", stdin="..\n..\n")
    assert r.code == 0, r.err
    d = r.json()
    assert d["status"] == "OPTIMAL" and d["count"] == 2 and d["distinct"] == 1


def test_puzzle_count_unlimited_pieces_json_exact_at_any_size(cli):
    r = cli("puzzle", "/".join(["." * 10] * 10), "--piece", "##*", "--count", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["status"] == "OPTIMAL" and d["count"] == 258584046368 and d["method"] in ("search", "frontier")
    # 14x14 dominoes: past 2^63 - 1, still a JSON integer, exact (Python's json reads it back whole)
    r = cli("puzzle", "/".join(["." * 14] * 14), "--piece", "##*", "--count", "--method", "frontier", "--json")
    assert r.code == 0, r.err
    assert '"count": 112202208776036178000000' in r.out
    d = r.json()
    assert d["count"] == 112202208776036178000000 and d["method"] == "frontier" and isinstance(d["distinct"], int)
    r = cli("puzzle", "/".join(["." * 14] * 14), "--piece", "##*", "--count", "--method", "frontier")
    assert "tilings: 112202208776036178000000;" in r.out and "frontier" in r.out
    # a piece used once beside an unlimited shape; finding shows both, indexed pieces first
    r = cli("puzzle", "..../....", "--piece", "##/##", "--piece", "#*", "--json")
    assert r.code == 0, r.err
    tiling = r.json()["tilings"][0]
    assert sorted(p["piece"] for p in tiling) == [0, 1, 1, 1, 1]
    assert {p["shape"] for p in tiling} == {"##/##", "#"}


def test_puzzle_infeasible_exit_1(cli):
    r = cli("puzzle", "-", "--piece", "###", "--json", stdin="..\n..\n")
    assert r.code == 1
    r = cli("puzzle", "-", "--piece", "###", "--count", stdin="..\n..\n")
    assert r.code == 1


# --------------------------------------------------------------- generate
def _counted(rows, pieces):
    """The puzzle re-counted by the solver, and the solution checked without it."""
    from quiltsolve.solver import solve_puzzle

    r = solve_puzzle(rows, pieces, count=True, max_tilings=0, time_limit=30.0)
    return r.status.name, r.distinct


def test_generate_json_is_a_unique_puzzle(cli):
    from quiltsolve.solver import PlacedPatch, Shape, mask_of
    from quiltsolve.solver.validate import validate_tiling

    r = cli("generate", "--pieces", "patches", "--seed", "3", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["status"] == "OPTIMAL" and d["distinct"] == 1 and d["difficulty"] > 0
    assert len(d["region"]) == 9 and len(d["pieces"]) >= 10
    assert _counted(d["region"], d["pieces"]) == ("OPTIMAL", 1)
    # the solution has the shape of one of `suggest puzzle --json`'s tilings
    puzzle = cli("puzzle", "/".join(d["region"]), *[a for p in d["pieces"] for a in ("--piece", p)], "--json")
    assert set(d["solution"][0]) == set(puzzle.json()["tilings"][0][0])
    w, h = d["width"], d["height"]
    region = mask_of(((r, c) for r in range(h) for c in range(w) if d["region"][r][c] == "."), w)
    placed = [PlacedPatch(p["piece"], p["orientation"], mask_of(map(tuple, p["cells"]), w), w) for p in d["solution"]]
    validate_tiling(region, w, h, [Shape.parse(p) for p in d["pieces"]], placed)
    again = cli("generate", "--pieces", "patches", "--seed", "3", "--json").json()
    assert {**again, "wall_time": 0} == {**d, "wall_time": 0}


def test_generate_human_and_svg(cli, tmp_path):
    svg = tmp_path / "g.svg"
    r = cli("generate", "--size", "6x6", "--pieces", "tetrominoes", "--seed", "1", "--svg", str(svg), "--solution")
    assert r.code == 0, r.err
    assert "OPTIMAL" in r.out and "solution:" in r.out and "A = piece 0" in r.out and "search nodes" in r.out
    assert svg.read_text().startswith("<svg")


def test_generate_prints_the_solution_only_when_asked(cli, tmp_path):
    # Issue 36, 9: a puzzle to solve comes without its solution (no spoiler) unless --solution.
    argv = ["generate", "--size", "6x6", "--pieces", "tetrominoes", "--seed", "1"]
    puzzle = cli(*argv, "--svg", str(tmp_path / "puzzle.svg"))
    spoiler = cli(*argv, "--solution", "--svg", str(tmp_path / "solution.svg"))
    assert puzzle.code == spoiler.code == 0, (puzzle.err, spoiler.err)
    assert "solution:" not in puzzle.out and "A = piece 0" in puzzle.out and "tilings: 1 " in puzzle.out
    assert spoiler.out.count("solution:") == 1
    # the same text, the solution's grid added before the last line
    head, solution = spoiler.out.split("solution:\n")
    assert head + solution.splitlines()[-1] + "\n" == puzzle.out
    assert {"A", "B"} <= set(solution.split())          # the pieces' letters on the grid
    # both SVGs have the legend (piece A's letter once); only the solution's draws A on its cells too
    assert (tmp_path / "puzzle.svg").read_text().count(">A</text>") == 1
    assert (tmp_path / "solution.svg").read_text().count(">A</text>") == 1 + 4     # a tetromino: 4 cells
    # --json keeps everything
    assert cli(*argv, "--json").json()["solution"]


def test_generate_given_shapes_and_region(cli):
    r = cli("generate", "--region", "...../...../.....", "--piece", "####/#...", "--piece", "###/.#./.#.",
            "--piece", ".#../####", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["region"] == ["....."] * 3 and sorted(d["pieces"]) == sorted(["####/#...", "###/.#./.#.", ".#../####"])
    assert _counted(d["region"], d["pieces"]) == ("OPTIMAL", 1)


def test_generate_unknown_exit_1(cli):
    # the 6x10 rectangle has 2339 distinct tilings by the 12 pentominoes: never one
    r = cli("generate", "--region", "/".join(["." * 10] * 6), "--time-limit", "0.3", "--json")
    assert r.code == 1
    assert r.json()["status"] == "UNKNOWN" and r.json()["region"] == []
    r = cli("generate", "--region", "/".join(["." * 10] * 6), "--time-limit", "0.3")
    assert r.code == 1 and "UNKNOWN" in r.out


@pytest.mark.parametrize("argv, words", [
    (["--size", "9"], "HxW"),
    (["--size", "21x5"], "height"),
    (["--size", "5x5", "--region", "....."], "not allowed with"),
    (["--pieces", "patches", "--piece", "##"], "not allowed with"),
    (["--pieces", "hexominoes"], "invalid choice"),
    (["--difficulty", "insane"], "invalid choice"),
    (["--seed", "-1"], "seed"),
    (["--time-limit", "61"], "time_limit"),
    (["--region", "...."], "covers exactly"),
    (["--piece", "#.#"], "pieces[0]"),
])
def test_generate_bad_input_exit_2(cli, argv, words):
    r = cli("generate", *argv)
    assert r.code == 2
    one_line_error(r)
    assert words in r.err


# -------------------------------------------------------------- bad input
@pytest.mark.parametrize("argv, stdin, needle", [
    (["place", "-", "--patch", "99"], "\n".join(EMPTY), "unknown patch id 99"),
    (["place", "-", "--patch", "#.#"], "\n".join(EMPTY), "4-connected"),
    (["place", "-", "--patch", "1"], "\n".join(EMPTY[:8]), "8 rows"),
    (["place", "-", "--patch", "1"], "\n".join(["..x......"] + EMPTY[1:]), "'x'"),
    (["place", "/nonexistent/board", "--patch", "1"], None, "cannot read"),
    (["place", "-"], "", "--patch"),
    (["place", "-", "--patch", "1", "--objective", "best"], "", "invalid choice"),
    (["place", "-", "--patch", "1", "--time-limit", "-1"], "\n".join(EMPTY), "time_limit: must be positive"),
    (["place", "-", "--patch", "1", "--time-limit", "100"], "\n".join(EMPTY), "time_limit: 100 s is more than"),
    (["place", "-", "--patch", "1", "--time-limit", "nan"], "\n".join(EMPTY), "time_limit: nan is not a finite"),
    (["place", "-", "--patch", "1", "--time-limit", "soon"], "", "--time-limit: not a number"),
    (["next", "-", "--patch", "1", "--top", "-1"], "\n".join(EMPTY), "top: -1 out of range"),
    (["frobnicate"], None, "invalid choice"),
    ([], None, "required"),
    (["move", "-"], "{not json", "not valid JSON"),
    (["move", "-"], '{"edition": "revised"}', "position.players: missing"),
    (["puzzle", "-", "--piece", "##"], "..\n...\n", "region.rows[1]: row has 3 cells; row 0 has 2"),
    (["puzzle", "-", "--piece", "##"], "\n".join(["." * 21] * 2), "region.rows[0]: row has 21 cells; expected 1-20"),
    (["puzzle", "-", "--piece", "#"], "\n".join(["."] * 21), "region.rows: 21 rows; at most 20"),
    (["puzzle", "-", *["--piece", "#"] * 65], "\n".join(["." * 20] * 4), "pieces: 65 pieces; at most 64"),
    (["puzzle", "-", "--piece", "#", "--piece", "99"], "..", "pieces[1]: unknown patch id 99"),
    (["puzzle", "-", "--piece", "##*", "--piece", "#/#*"], "..", "unlimited_pieces[1]: same piece as"),
    (["puzzle", "-", "--piece", "#", "--piece", "*"], "..", "unlimited_pieces[0]: shape is empty"),
    (["puzzle", "-", "--piece", "##*", "--method", "dp"], "..", "--method: invalid choice: 'dp'"),
    (["puzzle", "-", "--piece", "##*", "--method", "frontier"], "..", "--method frontier only counts: add --count"),
    (["next", "-", "--patch", "1,2"], "\n".join(EMPTY), "one patch"),
])
def test_bad_input_exit_2(cli, argv, stdin, needle):
    r = cli(*argv, stdin=stdin)
    assert r.code == 2
    one_line_error(r)
    assert needle in r.err


# ----------------------------------------------------- service unavailable
@pytest.mark.parametrize("command", ["patches", "place", "puzzle", "generate"])
def test_closed_port_exit_3(cli, closed_port, command):
    args = {"patches": ["patches"], "place": ["place", "-", "--patch", "1"],
            "puzzle": ["puzzle", "-", "--piece", "##"], "generate": ["generate"]}[command]
    stdin = {"patches": None, "place": "\n".join(EMPTY), "puzzle": "..\n", "generate": None}[command]
    # gRPC retries UNAVAILABLE (3 times by default, ~0.7 s) within the deadline.
    r = cli(*args, "--server", f"127.0.0.1:{closed_port}", "--deadline", "5", stdin=stdin)
    assert r.code == 3
    one_line_error(r)
    assert "unavailable" in r.err


# ------------------------------------------------------------------- help
@pytest.mark.parametrize("command", ["place", "next", "move", "puzzle", "patches", "generate"])
def test_help_has_example(cli, command):
    r = cli(command, "--help")
    assert r.code == 0
    # argparse prints help to sys.stdout itself; just check it ran.


def test_help_text_has_examples():
    from quiltsolve.clients.cli import build_parser

    p = build_parser()
    sub = next(a for a in p._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        text = parser.format_help()
        assert "examples:" in text and f"suggest {name}" in text.split("examples:")[1], name


# --------------------------------------------------- the real entry point
def test_console_script_place_from_stdin():
    exe = str(SUGGEST) if SUGGEST.exists() else None
    cmd = [exe] if exe else [sys.executable, "-m", "quiltsolve.clients.cli"]
    r = subprocess.run(cmd + ["place", "-", "--patch", "4", "--json"], input="\n".join(CORNER),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["status"] == "OPTIMAL" and d["empty_after"] == 38


def test_module_entry_bad_input_and_help():
    r = subprocess.run([sys.executable, "-m", "quiltsolve.clients.cli", "place", "-", "--patch", "x"], input="",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "quiltsolve.clients.cli", "puzzle", "--help"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "examples:" in r.stdout


def test_remote_place_via_cli(cli, port, board_file):
    local = cli("place", str(board_file), "--patch", "12,5", "--json")
    remote = cli("place", str(board_file), "--patch", "12,5", "--json", "--server", f"127.0.0.1:{port}")
    assert remote.code == local.code == 0, remote.err
    a, b = local.json(), remote.json()
    for k in ("status", "empty_before", "empty_after", "covered", "square7"):
        assert a[k] == b[k]
