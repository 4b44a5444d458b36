"""The command line in four languages: gettext catalogues (clients/locale) chosen by LANGUAGE, LC_ALL,
LC_MESSAGES and LANG; complete, with the template's placeholders, compiled; ``--json`` language-neutral.

The expected words come from the catalogues themselves (a translation looked up, then filled), never
written out here; the placements printed are checked by the solver-free validator.
"""

from __future__ import annotations

import gettext
import io
import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from quiltsolve.clients import i18n
from quiltsolve.clients.cli import main
from quiltsolve.solver import candidates_from, validate_placements
from quiltsolve.solver.geometry import board_from_rows
from quiltsolve.solver.types import PlacedPatch

babel = pytest.importorskip("babel", reason="the catalogue checks need Babel (the dev extra)")
from babel.messages.extract import extract_from_dir  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LOCALE = Path(i18n.locale_dir())
SUGGEST = Path(sys.executable).parent / "suggest"
BOARD = "#########/####.####/####.####/...#.###./......###/......###/......###/.......##/........#"
PATCHES = ["--patch", "8", "--patch", "11", "--patch", "26"]
LANGS = [lang for lang in i18n.LANGUAGES if lang != "en"]
# Plural forms each language's catalogue must have (gettext's nplurals): Ukrainian three, Korean one.
NPLURALS = {"uk": 3, "ko": 1, "it": 2}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in i18n.ENVIRONMENT}
    return subprocess.run([str(SUGGEST), *args], env={**base, **env}, capture_output=True, text=True, timeout=120)


def translated(lang: str, message: str) -> str:
    return gettext.translation(i18n.DOMAIN, localedir=i18n.locale_dir(), languages=[lang]).gettext(message)


def placeholders(text: str) -> set[str]:
    return {f"{name}:{spec}" for _, name, spec, _ in string.Formatter().parse(text) if name is not None}


# ---------------------------------------------------------------- suggest place in each language

def in_process(monkeypatch, env: dict[str, str], *args: str) -> tuple[int, str]:
    """``suggest ARGS`` run in this process (main), under the language variables ``env``: (exit code, stdout)."""
    for name in i18n.ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = io.StringIO()
    code = main(list(args), stdout=out, stderr=io.StringIO())
    return code, out.getvalue()


@pytest.fixture
def english(monkeypatch):
    code, out = in_process(monkeypatch, {"LANG": "C.UTF-8"}, "place", BOARD, *PATCHES)
    assert code == 0
    return out


def check_place(lang: str, out: str, english: str) -> None:
    assert out != english
    status = translated(lang, "OPTIMAL (proven optimal)")
    assert status != "OPTIMAL (proven optimal)"
    assert out.splitlines()[0] == translated(lang, "status: {status}").format(status=status)
    m = re.match(r"empty cells: (\d+) → (\d+) \(covered (\d+), bound (\d+)\)", english.splitlines()[1])
    assert m, english
    before, after, covered, bound = map(int, m.groups())
    assert out.splitlines()[1] == translated(lang, "empty cells: {before} → {after} (covered {covered}, bound {bound})") \
        .format(before=before, after=after, covered=covered, bound=bound)
    assert translated(lang, "7×7 window: none completed") in out
    # the drawing is the same in every language: the same letters on the same cells
    assert out.splitlines()[3:12] == english.splitlines()[3:12]
    patch_word = translated(lang, "patch {id} {shape}").split("{")[0]
    assert sum(line.split(" = ")[1].startswith(patch_word) for line in out.splitlines() if " = " in line) == 3


def test_lang_uk_suggest_place_prints_ukrainian(english):
    """The console script itself, as a person runs it: LANG=uk_UA.UTF-8 suggest place ..."""
    r = run({"LANG": "uk_UA.UTF-8"}, "place", BOARD, *PATCHES)
    assert r.returncode == 0, r.stderr
    check_place("uk", r.stdout, english)


@pytest.mark.parametrize("lang, env", [
    ("uk", {"LC_MESSAGES": "uk_UA.UTF-8", "LANG": "C.UTF-8"}),
    ("ko", {"LC_ALL": "ko_KR.UTF-8", "LANG": "C.UTF-8"}),
    ("it", {"LANGUAGE": "it:en", "LANG": "uk_UA.UTF-8"}),       # LANGUAGE first, as gettext reads them
])
def test_suggest_place_speaks_the_language_of_the_environment(monkeypatch, english, lang, env):
    code, out = in_process(monkeypatch, env, "place", BOARD, *PATCHES)
    assert code == 0
    check_place(lang, out, english)


def test_unknown_and_c_locales_are_english(monkeypatch, english):
    for env in ({"LANG": "fr_FR.UTF-8"}, {"LANGUAGE": "C"}, {"LC_ALL": "POSIX"}, {}):
        code, out = in_process(monkeypatch, env, "place", BOARD, *PATCHES)
        assert code == 0 and out == english, env


def test_json_stays_language_neutral(monkeypatch):
    """--json is for programs: the same answer in every language, and a valid placement."""
    answers = []
    for env in ({"LANG": "C.UTF-8"}, {"LANG": "uk_UA.UTF-8"}, {"LANGUAGE": "ko"}, {"LC_MESSAGES": "it_IT.UTF-8"}):
        code, out = in_process(monkeypatch, env, "place", BOARD, *PATCHES, "--json")
        assert code == 0
        d = json.loads(out)
        d.pop("wall_time")
        answers.append(d)
    assert all(a == answers[0] for a in answers)
    # the answer itself, checked without the solver
    rows = BOARD.split("/")
    placed = [PlacedPatch(key=p["patch"], orientation=p["orientation"],
                          mask=sum(1 << (r * 9 + c) for r, c in p["cells"])) for p in answers[0]["placements"]]
    validate_placements(board_from_rows(rows), candidates_from([8, 11, 26]), placed)
    assert answers[0]["empty_after"] == answers[0]["empty_before"] - sum(len(p["cells"]) for p in answers[0]["placements"])


COMMANDS = {
    "next": ["next", BOARD, "--patch", "5", "--upcoming", "7,9,13", "--top", "3"],
    "move": ["move", "{state}", "--iterations", "50", "--top", "2"],
    "review": ["review", str(ROOT / "tests" / "data" / "golden-games.jsonl"), "--plies", "3", "--iterations", "20"],
    "puzzle": ["puzzle", "...../...../.....", "--piece", "####/#...", "--piece", "###/.#./.#.", "--piece", ".#../####"],
    "count": ["puzzle", "...../...../.....", "--piece", "####/#...", "--piece", "###/.#./.#.", "--piece", ".#../####",
              "--count"],
    "generate": ["generate", "--pieces", "tetrominoes", "--size", "4x4", "--seed", "1", "--solution"],
    "patches": ["patches"],
    # 8 plies before the end of a seeded game: solved in a few hundredths of a second
    "solve": ["solve", "r 47,37,tirvpmf2w3g,777577557557777077077005005 46,12,l97aq0u6k8n,777777777743741740770774770 "
              "j4he1odbsc5 1 -"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_speaks_each_language(monkeypatch, tmp_path, command):
    """Each command's human output runs in every language, and its first words are that language's."""
    state = tmp_path / "state.json"
    code, text = in_process(monkeypatch, {"LANG": "C"}, "state", "--seed", "7", "--plies", "20")
    assert code == 0
    state.write_text(text)
    args = [a.replace("{state}", str(state)) for a in COMMANDS[command]]
    code, english = in_process(monkeypatch, {"LANG": "C"}, *args)
    assert code == 0, english
    for lang in LANGS:
        code, out = in_process(monkeypatch, {"LANGUAGE": lang}, *args)
        assert code == 0, (lang, out)
        assert out.splitlines()[0] != english.splitlines()[0], (lang, out)


def test_the_language_is_read_at_each_call(monkeypatch):
    """In-process callers (the tests, a program importing main) get the language of the moment."""
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    assert i18n._("no placement possible") == translated("ko", "no placement possible") != "no placement possible"
    assert i18n.language() == "ko"
    monkeypatch.setenv("LANGUAGE", "uk")
    assert i18n.language() == "uk"
    # Ukrainian plurals: one, few, many
    forms = [i18n.ngettext("{n} button, {time} time", "{n} buttons, {time} time", n) for n in (1, 3, 5, 21, 11)]
    assert forms[0] == forms[3] and forms[1] != forms[0] and forms[2] == forms[4] != forms[1]
    monkeypatch.setenv("LANGUAGE", "en")
    assert i18n._("no placement possible") == "no placement possible" and i18n.language() == "en"


# ---------------------------------------------------------------- the catalogues

def extracted() -> dict[str | tuple[str, ...], None]:
    """The messages the sources mark now (as ``make i18n`` extracts them: babel.cfg)."""
    method_map = [("src/quiltsolve/clients/**.py", "python")]
    found: dict[str | tuple[str, ...], None] = {}
    for _file, _line, message, _comments, _context in extract_from_dir(str(ROOT), method_map):
        found[message] = None
    return found


def catalogue(lang: str):
    with open(LOCALE / lang / "LC_MESSAGES" / "quiltsolve.po", "rb") as f:
        return read_po(f, locale=lang)


def test_the_template_holds_what_the_sources_mark():
    with open(LOCALE / "quiltsolve.pot", "rb") as f:
        pot = read_po(f)
    assert {m.id if isinstance(m.id, str) else tuple(m.id) for m in pot if m.id} == set(extracted()), \
        "run make i18n: the template is not what the sources mark"


@pytest.mark.parametrize("lang", LANGS)
def test_each_catalogue_is_complete_with_the_same_placeholders(lang):
    cat = catalogue(lang)
    assert cat.num_plurals == NPLURALS[lang], cat.plural_forms
    ids = {}
    for m in cat:
        if not m.id:
            continue
        assert "fuzzy" not in m.flags, m.id
        key = m.id if isinstance(m.id, str) else tuple(m.id)
        ids[key] = m
        sources = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.id, str) else list(m.string)
        assert len(strings) == (1 if isinstance(m.id, str) else NPLURALS[lang]), m.id
        for text in strings:
            assert text, f"{lang}: {m.id!r} is untranslated"
            assert placeholders(text) == placeholders(sources[-1]), (lang, m.id, text)
    assert set(ids) == set(extracted()), f"{lang}: run make i18n (and translate what it adds)"


@pytest.mark.parametrize("lang", LANGS)
def test_each_compiled_catalogue_is_its_source(lang):
    """The .mo shipped is the .po compiled (make i18n compiles it): every message and plural form, nothing else."""
    cat = catalogue(lang)
    with open(LOCALE / lang / "LC_MESSAGES" / "quiltsolve.mo", "rb") as f:
        mo = gettext.GNUTranslations(f)
    want: dict = {}
    for m in cat:
        if not m.id:
            continue
        if isinstance(m.id, str):
            want[m.id] = m.string
        else:
            for i, form in enumerate(m.string):
                want[(m.id[0], i)] = form
    assert {k: v for k, v in mo._catalog.items() if k != ""} == want
    assert mo.info()["plural-forms"] == cat.plural_forms


def test_the_catalogues_are_package_data():
    """pyproject's package-data names every catalogue file, so that a wheel carries them."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "quiltsolve.clients"]
    files = [p.relative_to(LOCALE.parent).as_posix() for p in LOCALE.rglob("*") if p.is_file()]
    assert {Path(f).suffix for f in files} == {".pot", ".po", ".mo"}
    assert all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files), (files, patterns)

