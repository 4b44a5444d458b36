"""The web app's catalogues (web/static/i18n/<lang>.json, read by i18n.js): every language has every key of
English, with the same placeholders and the plural forms its language needs; every key the pages use exists.

No browser: the files and the sources are read as text. (tests/web/test_languages.py opens the pages.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "quiltsolve" / "web" / "static"
LANGS = ("en", "uk", "ko", "it")
# The plural categories of each language (Intl.PluralRules' pluralCategories: the browser test checks the
# browser agrees): what a plural entry must have, no more.
PLURALS = {"en": {"one", "other"}, "uk": {"one", "few", "many", "other"}, "ko": {"other"},
           "it": {"one", "many", "other"}}
# Keys made at run time from a stem and a value: every member must exist.
FAMILIES = {
    "error.code.": ["INVALID_ARGUMENT", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED",
                    "UNAVAILABLE", "CANCELLED", "INTERNAL", "UNKNOWN", "NOT_FOUND", "UNIMPLEMENTED",
                    "UNAUTHENTICATED", "PERMISSION_DENIED", "OUT_OF_RANGE", "other"],
    "error.explain.": ["INVALID_ARGUMENT", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED",
                       "UNAVAILABLE", "INTERNAL", "UNAUTHENTICATED"],
    "error.fieldName.": ["seed", "text", "move", "state", "record", "board", "patches", "region", "pieces", "pos"],
    "nav.": ["play", "review", "place", "puzzles", "analysis", "rules"],
    "recent.kind.": ["play", "review", "analysis"],
    "recent.game": ["Deal", "DealOver", "Position", "PositionOver"],
    "recent.review": ["", "Deal", "Players", "PlayersDeal"],
    "play.status.": ["won", "wonTie", "lost", "lostTie"],
    "place.status.": ["optimal", "feasible", "infeasible", "unknown"],
    "review.label.": ["inaccuracy", "mistake", "blunder"],
    "review.labelCap.": ["inaccuracy", "mistake", "blunder"],
    "analysis.proven.": ["wins", "loses", "ties"],
    "reason.proven.": ["wins", "loses"],
    "strength.": ["random", "greedy", "human"],
    "gen.": ["easy", "medium", "hard"],
}
FILE_NAMES = re.compile(r"\.(json|svg|png|js|css|html)$")


def load(lang: str) -> dict:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def placeholders(value) -> set[str]:
    texts = [value] if isinstance(value, str) else list(value.values())
    found = [set(re.findall(r"\{(\w+)\}", t)) for t in texts]
    return set().union(*found)


def backticks(value) -> int:
    texts = [value] if isinstance(value, str) else list(value.values())
    return max(t.count("`") for t in texts)


def used_keys() -> set[str]:
    """Every key the app names: data-i18n* attributes in the HTML, quoted keys in the modules."""
    en = load("en")
    stems = sorted({k.split(".")[0] for k in en})
    quoted = re.compile(r"""['"]((?:%s)\.[A-Za-z0-9_.]+)['"]""" % "|".join(stems))
    keys = set()
    for js in STATIC.glob("js/*.js"):
        if js.name == "i18n.js":
            continue
        keys |= {k for k in quoted.findall(js.read_text(encoding="utf-8")) if not FILE_NAMES.search(k)}
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    keys |= set(re.findall(r'data-i18n(?:-(?:aria-label|title|placeholder|content|alt))?="([^"]+)"', html))
    return keys


def test_english_is_a_flat_catalogue():
    en = load("en")
    assert len(en) > 300
    for key, value in en.items():
        assert re.fullmatch(r"[a-z][A-Za-z0-9]*(\.[A-Za-z0-9_]+)+", key), key
        assert isinstance(value, (str, dict)), key
        if isinstance(value, dict):
            assert set(value) == PLURALS["en"], key


@pytest.mark.parametrize("lang", LANGS[1:])
def test_each_catalogue_has_every_key_with_the_same_placeholders(lang):
    en, cat = load("en"), load(lang)
    assert set(cat) == set(en), (f"{lang}: missing {sorted(set(en) - set(cat))}, "
                                 f"unknown {sorted(set(cat) - set(en))}")
    for key, value in cat.items():
        source = en[key]
        assert isinstance(value, type(source)), (lang, key)
        if isinstance(value, dict):
            assert set(value) == PLURALS[lang], (lang, key, sorted(value))
        texts = [value] if isinstance(value, str) else list(value.values())
        assert all(t.strip() for t in texts), (lang, key)
        assert placeholders(value) == placeholders(source), (lang, key, value)
        assert backticks(value) == backticks(source), (lang, key)


@pytest.mark.parametrize("lang", LANGS[1:])
def test_a_translation_is_not_left_in_english(lang):
    """Sentences (three words or more, with letters: "12, 5, 30" is an example of numbers) differ from
    English in every other language."""
    en, cat = load("en"), load(lang)
    same = [k for k, v in cat.items() if isinstance(v, str) and v == en[k] and len(v.split()) >= 3
            and re.search(r"[A-Za-z]", v) and not re.search(r"[{}]", v)]
    assert same == [], same


def test_every_key_the_app_uses_exists():
    en = load("en")
    missing = sorted(k for k in used_keys() if k not in en)
    assert missing == [], missing


def test_every_key_made_at_run_time_exists():
    en = load("en")
    missing = [stem + member for stem, members in FAMILIES.items() for member in members if stem + member not in en]
    assert missing == [], missing
