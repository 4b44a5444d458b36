"""``suggest`` conventions: --version, shell completion, JSON errors, help,
inline grids, and one line (never a traceback) for every bad file or state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quiltsolve.solver import limits

from .conftest import CORNER, EMPTY

BIN = Path(sys.executable).parent
SUGGEST = BIN / "suggest"


def one_line_error(r, code: int = 2) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


# ------------------------------------------------------------------ version
def test_version(capsys):
    from importlib.metadata import version

    from quiltsolve.clients.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"suggest (quiltsolve) {version('quiltsolve')}"


# --------------------------------------------------------------- completion
@pytest.mark.skipif(not SUGGEST.exists(), reason="the console script is not installed")
@pytest.mark.parametrize("line, expected", [
    ("suggest pl", {"place", "play"}),
    ("suggest re", {"review"}),
    ("suggest place board.txt --pa", {"--patch"}),
    ("suggest place board.txt --objective ", {"cover", "square7"}),
    ("suggest next b --patch 3", {"3", "30", "31", "32"}),
    ("suggest --vers", {"--version"}),
])
def test_shell_completion(tmp_path, line, expected):
    out = tmp_path / "completions"
    env = dict(os.environ, _ARGCOMPLETE="1", COMP_LINE=line, COMP_POINT=str(len(line)),
               _ARGCOMPLETE_STDOUT_FILENAME=str(out), _ARGCOMPLETE_IFS="\n")
    r = subprocess.run([str(SUGGEST)], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert {w.strip() for w in out.read_text().split("\n") if w.strip()} == expected


def test_completion_marker_in_the_entry_module():
    from quiltsolve import clients
    import quiltsolve.clients.cli

    # argcomplete's global completion looks for it in the first 1024 bytes.
    assert "PYTHON_ARGCOMPLETE_OK" in Path(clients.cli.__file__).read_text()[:1024]


# -------------------------------------------------------------- JSON errors
@pytest.mark.parametrize("argv, stdin, code, needle", [
    (["place", "-", "--patch", "99", "--json"], "\n".join(EMPTY), 2, "unknown patch id 99"),
    (["--json", "place", "-"], "", 2, "--patch"),                    # a usage error
    (["place", "-", "--json", "--patch", "1", "--objective", "x"], "", 2, "invalid choice"),
    (["move", "-", "--json"], "[" * 20_000, 2, "nested too deeply"),
])
def test_json_errors(cli, argv, stdin, code, needle):
    r = cli(*argv, stdin=stdin)
    line = one_line_error(r, code)
    err = json.loads(line)
    assert err["code"] == code and needle in err["error"] and set(err) == {"error", "code"}


def test_json_error_service_unavailable(cli, closed_port):
    r = cli("patches", "--json", "--server", f"127.0.0.1:{closed_port}", "--deadline", "5")
    err = json.loads(one_line_error(r, 3))
    assert err["code"] == 3 and "unavailable" in err["error"]


def test_plain_errors_are_not_json(cli):
    line = one_line_error(cli("place", "-", "--patch", "99", stdin="\n".join(EMPTY)))
    assert line.startswith("suggest: error: patches[0].id: unknown patch id 99")


# --------------------------------------------------------------------- help
def test_full_help():
    from quiltsolve.clients.cli import build_parser

    p = build_parser()
    top = p.format_help()
    for word in ("place", "next", "move", "puzzle", "patches", "--version", "exit codes:", "inline grids:",
                 "--tls", "--token-file"):
        assert word in top, word
    sub = next(a for a in p._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        text = parser.format_help()
        assert "exit codes:" in text and "examples:" in text, name
        for action in parser._actions:  # every option and argument is explained
            assert action.help, (name, action.dest)


# ------------------------------------------------------------- inline grids
def test_one_row_inline_region(cli):
    r = cli("puzzle", "....", "--piece", "##", "--piece", "##", "--json")
    assert r.code == 0, r.err
    assert (r.json()["width"], r.json()["height"]) == (4, 1)


def test_existing_file_wins_over_inline(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "..##").write_text("..\n..\n")       # a file whose name looks like a grid
    r = cli("puzzle", "..##", "--piece", "##/##", "--json")
    assert r.code == 0, r.err
    assert (r.json()["width"], r.json()["height"]) == (2, 2)
    r = cli("puzzle", "...#", "--piece", "###", "--json")   # no such file: inline
    assert r.code == 0 and (r.json()["width"], r.json()["height"]) == (4, 1)


def test_inline_board(cli):
    r = cli("place", "/".join(CORNER), "--patch", "1", "--json")
    assert r.code == 0 and r.json()["empty_before"] == 42


# ------------------------------------------------- files: one line, exit 2
def _board_text(rows=CORNER) -> str:
    return "\n".join(rows) + "\n"


def test_board_with_a_bom(cli, tmp_path):
    f = tmp_path / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbf" + _board_text().encode())
    r = cli("place", str(f), "--patch", "1", "--json")
    assert r.code == 0, r.err
    assert r.json()["empty_before"] == 42
    r = cli("place", "-", "--patch", "1", "--json", stdin="\ufeff" + _board_text())
    assert r.code == 0, r.err


@pytest.mark.parametrize("make, needle", [
    (lambda d: "/dev/zero", "larger than 1 MiB"),
    (lambda d: str(d), "directory"),
    (lambda d: _write(d / "bin", bytes(range(256)) * 4), "binary"),
    (lambda d: _write(d / "latin1", "caf\xe9\n".encode("latin-1")), "not UTF-8"),
    (lambda d: _write(d / "huge", b"." * (2 << 20)), "larger than 1 MiB"),
    (lambda d: "/nonexistent/board.txt", "No such file"),
])
@pytest.mark.parametrize("command", ["place", "next", "move", "puzzle"])
def test_bad_files(cli, tmp_path, make, needle, command):
    path = make(tmp_path)
    extra = {"place": ["--patch", "1"], "next": ["--patch", "1"], "move": [], "puzzle": ["--piece", "1"]}[command]
    r = cli(command, path, *extra)
    line = one_line_error(r)
    assert needle in line, line


def test_wide_board_and_region(cli):
    wide = ("." * 5000 + "\n") * 9
    assert "board.rows[0]: row has 5000 cells; expected 9" in one_line_error(cli("place", "-", "--patch", "1",
                                                                                  stdin=wide))
    assert "region.rows[0]: row has 5000 cells; expected 1-20" in one_line_error(cli("puzzle", "-", "--piece", "1",
                                                                                    stdin=wide))


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def test_svg_into_a_directory_or_missing_folder(cli, tmp_path):
    for target in (tmp_path, tmp_path / "no" / "such.svg"):
        r = cli("patches", "--svg", str(target))
        assert "cannot write" in one_line_error(r)


# --------------------------------------------------------- game states
@pytest.fixture()
def state_text() -> str:
    from quiltsolve import engine

    return json.dumps(engine.new_game(3).to_json())


@pytest.mark.parametrize("buttons", ["1" + "0" * 400, "1" + "0" * 4000, "1" + "0" * 5000])
def test_huge_buttons(cli, state_text, buttons):
    text = state_text.replace('"buttons": 5', f'"buttons": {buttons}', 1)
    assert text != state_text
    r = cli("move", "-", "--iterations", "20", stdin=text)
    # The engine may play it or refuse it; the CLI never shows a traceback.
    assert r.code in (0, 2), r.err
    if r.code == 2:
        one_line_error(r)


def test_state_too_large_for_the_service_is_refused_embedded_too(cli, state_text):
    state = json.loads(state_text)
    state["padding"] = "x" * limits.MAX_STATE_JSON
    r = cli("move", "-", stdin=json.dumps(state))
    line = one_line_error(r)
    assert f"characters; at most {limits.MAX_STATE_JSON}" in line


# ------------------------------------------------------------ duplicates
@pytest.mark.parametrize("patches", [["0", "##"], ["##", "0"], ["0", "#/#"], ["-1", "#"], ["##./.##", ".##/##."]])
def test_same_patch_two_ways_is_refused(cli, patches):
    argv = ["place", "-"]
    for p in patches:
        argv += ["--patch", p]
    line = one_line_error(cli(*argv, stdin="\n".join(EMPTY)))
    assert "patches[1]: same patch as patches[0]" in line


def test_repeats_and_same_shaped_ids_are_copies(cli):
    # The same spelling twice is two copies; ids 25 and 26 share a shape but
    # are different patches.
    r = cli("place", "-", "--patch", "0,0", "--patch", "25", "--patch", "26", "--json", stdin="\n".join(EMPTY))
    assert r.code == 0, r.err
    assert sorted(p["patch"] for p in r.json()["placements"]) == [0, 0, 25, 26]


def test_duplicate_in_upcoming(cli):
    line = one_line_error(cli("next", "-", "--patch", "1", "--upcoming", "0,##", stdin="\n".join(EMPTY)))
    assert "upcoming[1]: same patch as upcoming[0]" in line


# -------------------------------------------------------------------- SVG
def _legend_texts(svg_text: str) -> list[str]:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg_text)       # well-formed XML
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    first = root[0]
    assert first.tag == f"{ns}rect" and first.get("fill") == "#ffffff"   # opaque background
    return ["".join(t.itertext()) for t in root.iter(f"{ns}text")]


def test_place_svg_legend_and_outlines(cli, board_file, tmp_path):
    svg = tmp_path / "place.svg"
    r = cli("place", str(board_file), "--patch", "12", "--patch", "##./.##", "--svg", str(svg), "--json")
    assert r.code == 0, r.err
    text = svg.read_text()
    texts = _legend_texts(text)
    assert texts[0] == "OPTIMAL: empty cells 42 → 32" and "->" not in text
    assert "patch 12  #.#/###/.#." in texts and "cost 3 buttons · time 6 · income 2" in texts
    assert "custom shape  ##./.##" in texts and "4 cells" in texts
    import xml.etree.ElementTree as ET

    paths = list(ET.fromstring(text).iter("{http://www.w3.org/2000/svg}path"))
    assert len(paths) == 4          # the two patches on the board, and their two legend icons


def test_patch_sheet_svg_is_a_grid(cli, tmp_path):
    import xml.etree.ElementTree as ET

    svg = tmp_path / "patches.svg"
    assert cli("patches", "--svg", str(svg)).code == 0
    texts = _legend_texts(svg.read_text())
    for p in (0, 12, 32):
        assert f"patch {p}" in texts
    assert "cost 3 buttons" in texts and "time 6 · income 2" in texts        # patch 12
    # Six columns: the captions of patches 0-5 share a row, patch 6 starts the next.
    root = ET.fromstring(svg.read_text())
    ys = {t.text: float(t.get("y")) for t in root.iter("{http://www.w3.org/2000/svg}text")
          if (t.text or "").startswith("patch ")}
    assert len({ys[f"patch {i}"] for i in range(6)}) == 1 and ys["patch 6"] > ys["patch 5"]
    xs = {float(t.get("x")) for t in root.iter("{http://www.w3.org/2000/svg}text")
          if (t.text or "").startswith("patch ")}
    assert len(xs) == 6


def test_puzzle_and_move_svg(cli, tmp_path, state_text):
    svg = tmp_path / "p.svg"
    assert cli("puzzle", "...", "--piece", "##", "--piece", "#", "--svg", str(svg)).code == 0
    texts = _legend_texts(svg.read_text())
    assert "piece 0  ##" in texts or "piece 1  #" in texts
    assert cli("move", "-", "--iterations", "50", "--svg", str(svg), stdin=state_text).code == 0
    assert _legend_texts(svg.read_text())[0].startswith("player ")
