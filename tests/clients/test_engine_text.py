"""The engine's prose in the command line's languages (clients/engine_text.py): every reason the engine can
write, the review's lines and summaries, and ``suggest play``'s whole session, worded in Ukrainian, Korean
and Italian with no English left; in English, the engine's own text.

The reasons are made by the engine's own functions (``move_reason``, ``proof_reason``, the search's stand-in)
from representative inputs, so a new form of reason the engine learns to write fails here until the client
knows it.
"""

from __future__ import annotations

import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from quiltsolve import engine
from quiltsolve.clients import engine_text, i18n
from quiltsolve.clients.cli import main
from quiltsolve.engine import ADVANCE, parse_action
from quiltsolve.engine.actions import Buy, PlaceLeather
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.engine.players.proven import proof_reason
from quiltsolve.engine.players.search import SearchPlayer, move_reason
from quiltsolve.engine.review import MoveReview, PlayerSummary

babel = pytest.importorskip("babel", reason="the English words of the catalogue come from its template (Babel)")
from babel.messages.pofile import read_po  # noqa: E402

LANGS = [lang for lang in i18n.LANGUAGES if lang != "en"]
LOCALE = Path(i18n.locale_dir())
WORD = re.compile(r"[^\W\d_]{2,}")
# What a person types at `suggest play` (the same words in every language) and names that are no English prose.
COMMANDS = {"buy", "advance", "leather", "hint", "take", "undo", "save", "load", "notation", "show", "help", "quit",
            "more", "file", "id", "json", "jsonl", "ctrl", "patchwork", "state"}


def _texts(lang: str | None) -> list[str]:
    """The template's messages (lang None) or a catalogue's translations, every plural form."""
    path = LOCALE / ("quiltsolve.pot" if lang is None else f"{lang}/LC_MESSAGES/quiltsolve.po")
    with open(path, "rb") as f:
        cat = read_po(f, locale=lang)
    out: list[str] = []
    for m in cat:
        if m.id:
            if lang is None:
                out += [m.id] if isinstance(m.id, str) else list(m.id)
            else:
                out += [m.string] if isinstance(m.id, str) else list(m.string)
    return out


ENGLISH = {w.lower() for text in _texts(None) for w in WORD.findall(text)}
OWN = {lang: {w.lower() for text in _texts(lang) for w in WORD.findall(text)} for lang in LANGS}


def english_left(lang: str, text: str, allowed: set[str] = frozenset()) -> list[str]:
    """The English words of ``text``: in Ukrainian and Korean any word in Latin letters, in Italian the words of
    the English messages the Italian catalogue does not use; ``allowed`` aside."""
    left = []
    for word in WORD.findall(text):
        w = word.lower()
        if w in allowed:
            continue
        latin = re.fullmatch(r"[A-Za-z]+", word) is not None
        if (lang in ("uk", "ko") and latin) or (lang == "it" and w in ENGLISH and w not in OWN[lang]):
            left.append(word)
    return left


@pytest.fixture
def speak(monkeypatch):
    """speak(lang): the environment asks for that language (gettext reads it at each call)."""
    def set_language(lang: str) -> None:
        for name in i18n.ENVIRONMENT:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LANGUAGE", lang)
    return set_language


# ---------------------------------------------------------------- every reason the engine writes

@dataclass
class Child:
    """A searched root move's statistics, as engine/players/search.py's move_reason reads them."""

    action: object
    n: int
    w: float
    wins: int
    margin: float


def engine_reasons() -> list[str]:
    """A reason of every form the engine writes, each through the engine's own function."""
    out = []
    state = engine.new_game(5)      # on until an advance moves more than one space and three patches can be bought
    while True:
        cur = state.current_player()
        buys = [a for a in state.legal_actions() if isinstance(a, Buy)]
        if state.players[1 - cur].position > state.players[cur].position and len({a.patch_id for a in buys}) >= 2:
            break
        state.apply_action(GreedyPlayer().choose(state))
    moves = [ADVANCE] + buys[:1] + [a for a in buys if a.patch_id != buys[0].patch_id][:1]
    near = engine.new_game(5)                             # an advance of exactly one space: both on space 0
    pending = engine.new_game(17)                         # a 1×1 patch to place
    while not pending.leather_to_place:
        pending.apply_action(GreedyPlayer().choose(pending))
    leather = [a for a in pending.legal_actions() if isinstance(a, PlaceLeather)][:2]
    for position, actions in ((state, moves), (near, [ADVANCE]), (pending, leather)):
        for a in actions:
            out.append(move_reason(position, Child(a, 0, 0.0, 0, 0.0)))              # not searched
            out.append(move_reason(position, Child(a, 1, 1.0, 1, 3.0)))              # one playout
            out.append(move_reason(position, Child(a, 292, 150.0, 222, -93.5)))      # many
    for margin in (1, 3, -1, -12):
        out.append(proof_reason(margin, None, 0))
    out += [proof_reason(0, None, 0), proof_reason(0, 0, 0), proof_reason(0, 1, 0)]
    out.append(SearchPlayer(iterations=1).stand_in(state).reason)
    return out


REASONS = engine_reasons()


def test_every_reason_the_engine_writes_is_a_known_template_and_every_template_is_met():
    unknown = [r for r in REASONS if engine_text.template_of(r) is None]
    assert unknown == []
    assert {engine_text.template_of(r) for r in REASONS} == {name for name, _, _ in engine_text.TEMPLATES}
    heads = {m.group(0).split()[0] for r in REASONS if (m := re.match(r"(advance|buy|leather) ", r))}
    assert heads == {"advance", "buy", "leather"}
    assert any(r.startswith("advance 1 space ") for r in REASONS) and any(" of 1 playouts" in r for r in REASONS)


def test_in_english_a_reason_is_the_engines_own(speak):
    speak("en")
    for r in REASONS:
        assert engine_text.reason_text(r, verbose=True) == r
        # without -v the share of playouts won leaves the text (a second, uncalibrated win chance)
        assert engine_text.reason_text(r) == re.sub(r": won \d+% of (\d+) playouts", r": \1 playouts", r)
    assert engine_text.reason_text("a reason of another kind") == "a reason of another kind"


@pytest.mark.parametrize("lang", LANGS)
def test_every_reason_is_worded_with_no_english_left_and_its_figures_kept(speak, lang):
    speak(lang)
    for r in REASONS:
        for verbose in (False, True):
            said = engine_text.reason_text(r, verbose)
            assert said != r, (lang, r)
            assert english_left(lang, said) == [], (lang, r, said)
            figures = re.findall(r"[+-]?\d+(?:\.\d+)?", r)
            if not verbose:    # the playout rate is the one figure left out
                figures = re.findall(r"[+-]?\d+(?:\.\d+)?", re.sub(r"won \d+% of ", "", r))
            for figure in figures:
                assert figure in said, (lang, r, said, figure)


# ---------------------------------------------------------------- the review's lines

def reviews() -> list[MoveReview]:
    buy = parse_action("buy 0 4,2;4,3")
    other = parse_action("buy 7 0,0;0,1;1,0;1,1")
    leather = parse_action("leather 4,4")
    return [
        MoveReview(0, 0, ADVANCE, ADVANCE, 0.5, 0.5, 0.0, False),                       # the best move: "same"
        MoveReview(3, 1, buy, other, 0.44, 0.5, 0.06, False),                           # an inaccuracy
        MoveReview(12, 1, ADVANCE, buy, 0.38, 0.5, 0.12, True),                         # a mistake, large
        MoveReview(21, 0, leather, ADVANCE, 0.3, 0.52, 0.22, True),                     # a blunder, large
        MoveReview(50, 0, ADVANCE, buy, 0.0, 1.0, 1.0, True, -2, 3, 5),                 # proven, 5 points
        MoveReview(51, 1, buy, ADVANCE, 0.0, 1.0, 1.0, True, -1, 0, 1),                 # proven, 1 point
        MoveReview(52, 1, buy, buy, 1.0, 1.0, 0.0, False, 4, 4, 0),                     # proven, the best
    ]


SUMMARIES = [PlayerSummary(40, 0.031, 2, 3, 4, 88.25, 5, 2, 1), PlayerSummary(1, 0.0, 1, 1, 1, 100.0, 1, 1, 1),
             PlayerSummary(0, 0.0, 0), PlayerSummary(22, 0.1, 0, 0, 0, 61.0, 0, 3, 0)]


def test_in_english_the_review_is_the_engines_own(speak):
    speak("en")
    for r in reviews():
        assert engine_text.review_text(r) == r.to_str()
    for s in SUMMARIES:
        assert engine_text.summary_text(s) == s.to_str()
    for a in (ADVANCE, parse_action("buy 0 4,2;4,3"), parse_action("leather 4,4")):
        assert engine_text.move_text(a) == a.to_str()


@pytest.mark.parametrize("lang", LANGS)
def test_the_review_is_worded_with_no_english_left(speak, lang):
    speak(lang)
    for r in reviews():
        said = engine_text.review_text(r)
        assert said != r.to_str() and english_left(lang, said) == [], (lang, said)
        assert f"{r.loss:.3f}" in said and f"{r.value_played:.3f}" in said
    for s in SUMMARIES:
        said = engine_text.summary_text(s)
        assert said != s.to_str() and english_left(lang, said) == [], (lang, said)


# ---------------------------------------------------------------- the commands, end to end

def in_process(monkeypatch, lang: str, *args: str, stdin: str = "") -> tuple[int, str]:
    for name in i18n.ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGUAGE", lang)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = main(list(args), stdout=out, stderr=io.StringIO())
    return code, out.getvalue()


@pytest.mark.parametrize("lang", LANGS)
def test_suggest_move_and_review_say_the_engines_words_in_the_language(monkeypatch, tmp_path, lang):
    state = tmp_path / "state.json"
    code, text = in_process(monkeypatch, "en", "state", "--seed", "7", "--plies", "20")
    state.write_text(text)
    code, out = in_process(monkeypatch, lang, "move", str(state), "--iterations", "60", "--top", "4", "-v")
    assert code == 0, out
    said = out.split("\n", 1)[1]        # (the first line is the position's notation)
    assert english_left(lang, said, COMMANDS) == [], (lang, out)   # (the moves in the engine's text form)
    record = Path(__file__).resolve().parents[1] / "data" / "golden-games.jsonl"
    monkeypatch.chdir(record.parent)
    code, out = in_process(monkeypatch, lang, "review", record.name, "--plies", "6", "--iterations", "20")
    assert code == 0, out
    out = out.replace(record.name, "")      # (the file's name is no prose)
    assert len(out.splitlines()) == 1 + 6 + 2
    assert english_left(lang, out) == [], (lang, out)


@pytest.mark.parametrize("lang", LANGS)
def test_suggest_play_says_everything_in_the_language(monkeypatch, tmp_path, lang):
    """A followed game at the terminal: every line the session prints, the prompts included, in the language;
    the commands typed stay what they are (COMMANDS)."""
    monkeypatch.chdir(tmp_path)
    typed = ["help", "hint 3", "take 9", "buy #99", "buy 1", "more", "", "advance", "undo", "undo", "bogus",
             "take 1", "save", "save g.jsonl", "load", "show", "quit"]
    code, out = in_process(monkeypatch, lang, "play", "--follow", "--seed", "3", "--iterations", "30",
                           stdin="\n".join(typed) + "\n")
    assert code == 0, out
    left = english_left(lang, out, COMMANDS | {"bogus"})      # (the unknown command is quoted as typed)
    assert left == [], (lang, sorted(set(left)), out[-3000:])
    # the session went where it was sent: the help, a hint, errors said, a pass taken back, the game saved
    said = i18n.translation({"LANGUAGE": lang})
    for message in ("(not bought)", "nothing to undo", "save FILE: which file?", "load FILE [K]: which file?",
                    "('take K' plays move K)", "(fits N: cells of the next patches that still fit after it)"):
        assert said.gettext(message) in out, message
    assert said.ngettext("took back {n} move: {moves}", "", 1).format(n=1, moves=said.gettext("advance")) in out
    assert (tmp_path / "g.jsonl").exists()
