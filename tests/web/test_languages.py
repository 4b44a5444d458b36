"""The web app in its four languages, in real headless Chromium: each page opened with ``?lang=xx`` shows no
English left (proper nouns, numbers and notation aside: ALLOWED), ``<html lang>`` follows the language, no
element is wider than its container at 390×844 or at 1280×800, and the switcher's choice survives a reload.

One browser page does it all, by navigations: each language is one page load, then the app's own routes.
Skipped, with the other browser tests, where there is no Chromium. The screenshots of each language
(docs/img/web-<lang>-*.png) are taken here: ``QUILTSOLVE_SCREENSHOTS=docs/img``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from quiltsolve import engine
from quiltsolve.clients.links import review_link
from quiltsolve.engine.players import GreedyPlayer

from .test_browser import DESKTOP, PHONE, page_factory, wait_for

pytestmark = pytest.mark.timeout(300)

STATIC = Path(__file__).resolve().parents[2] / "src" / "quiltsolve" / "web" / "static"
LANGS = ("uk", "ko", "it")
SIZES = ({"width": 390, "height": 844}, {"width": 1280, "height": 800})
# Words in Latin letters a page may show in any language: names, formats, keys on a keyboard, the switcher's
# own language names, and the notation of shapes. Compared lower-case.
ALLOWED = {"quiltsolve", "patchwork", "uwe", "rosenberg", "api", "http", "openapi", "json", "svg", "png", "enter",
           "esc", "home", "end", "delete", "shift", "english", "italiano", "xn", "pos"}
# Phrases shown as they are (a command to type), taken out before the words are looked at.
PHRASES = ("python -m quiltsolve.engine replay", "JSON lines")
# The texts a reader meets: visible text nodes, the options of visible selects, the tooltips of visible SVG
# pictures, and the aria-label / title / placeholder / aria-valuetext of visible elements; the page's title.
TEXTS = """() => {
  const out = [];
  const visible = (el) => el.checkVisibility({ visibilityProperty: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.nodeValue.trim() || el.closest('script, style')) continue;
    const tip = el.closest('svg title');
    if (tip) { if (visible(tip.closest('svg'))) out.push(n.nodeValue); continue; }
    if (el.tagName === 'OPTION') { const s = el.closest('select'); if (s && visible(s)) out.push(n.nodeValue); continue; }
    if (visible(el)) out.push(n.nodeValue);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [aria-valuetext]')) {
    if (!visible(el)) continue;
    for (const a of ['aria-label', 'title', 'placeholder', 'aria-valuetext']) {
      if (el.hasAttribute(a)) out.push(el.getAttribute(a));
    }
  }
  out.push(document.title);
  return out;
}"""
# Every visible element inside its parent (unless the parent scrolls or clips: a scroller's content may be wider),
# no block wider inside than outside, and the page no wider than the window.
OVERFLOW = """() => {
  const bad = [];
  const page = document.documentElement.scrollWidth - window.innerWidth;
  if (page > 1) bad.push(`the page is ${page}px wider than the window`);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const clips = (cs) => ['auto', 'scroll', 'hidden', 'clip'].includes(cs.overflowX);
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const cs = getComputedStyle(el);
    if (cs.position === 'absolute' || cs.position === 'fixed') continue;
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    const parent = el.parentElement;
    if (parent && parent !== document.body) {
      const pcs = getComputedStyle(parent), p = parent.getBoundingClientRect();
      const left = p.left + parseFloat(pcs.borderLeftWidth), right = p.right - parseFloat(pcs.borderRightWidth);
      if (!clips(pcs) && (r.right > right + 1 || r.left < left - 1)) {
        bad.push(`${name(el)} sticks out of ${name(parent)} by ${Math.round(Math.max(r.right - right, left - r.left))}px`);
      }
    }
    if (cs.display !== 'inline' && !clips(cs) && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      bad.push(`${name(el)}'s content is ${el.scrollWidth - el.clientWidth}px wider than it`);
    }
  }
  return bad;
}"""


def catalogue(lang: str) -> dict:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def words_of(cat: dict) -> set[str]:
    out: set[str] = set()
    for value in cat.values():
        for text in [value] if isinstance(value, str) else value.values():
            out |= {w.lower() for w in re.findall(r"[^\W\d_]{2,}", text)}
    return out


ENGLISH_WORDS = words_of(catalogue("en"))


def english_left(lang: str, texts: list[str]) -> list[str]:
    """The words of ``texts`` that are English: for Ukrainian and Korean any word in Latin letters, for Italian
    (a Latin script too) the words of the English catalogue the Italian one does not use; ALLOWED aside."""
    own = words_of(catalogue(lang))
    left = []
    for text in texts:
        for phrase in PHRASES:
            text = text.replace(phrase, " ")
        for word in re.findall(r"[^\W\d_]{2,}", text):
            w = word.lower()
            if w in ALLOWED:
                continue
            latin = re.fullmatch(r"[A-Za-z]+", word) is not None
            if (lang in ("uk", "ko") and latin) or (lang == "it" and w in ENGLISH_WORDS and w not in own):
                left.append(f"{word!r} in {text.strip()[:80]!r}")
    return left


def short_record(plies: int = 6) -> dict:
    state = engine.new_game(3)
    start = state.clone()
    actions = []
    for _ in range(plies):
        a = GreedyPlayer().choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    rec = engine.make_record(start, actions, state, 3)
    del rec["result"]
    return rec


@pytest.fixture
def pages(browser, base_url):
    yield from page_factory(browser, base_url)


# The screenshots docs/img keeps of each language (QUILTSOLVE_SCREENSHOTS=docs/img): page -> the width.
SHOTS = {"play": 1280, "rules": 390}


def check(page, lang: str, where: str) -> list[str]:
    """The page as it stands in ``lang``: its English words left and its overflows at both sizes."""
    problems = [f"{where}: {w}" for w in english_left(lang, page.evaluate(TEXTS))]
    shots = os.environ.get("QUILTSOLVE_SCREENSHOTS")
    for size in SIZES:
        page.set_viewport_size(size)
        problems += [f"{where} at {size['width']}px: {o}" for o in page.evaluate(OVERFLOW)]
        if shots and SHOTS.get(where) == size["width"]:
            page.screenshot(path=str(Path(shots) / f"web-{lang}-{where}.png"), full_page=size["width"] < 500)
    page.set_viewport_size(DESKTOP)
    return problems


def test_every_page_in_each_language_has_no_english_left_and_fits(pages, base_url):
    page = pages()
    rec = short_record()
    link = review_link(rec, base=f"{base_url}/", ply=4, iterations=60, seed=0)
    problems: list[str] = []
    for lang in LANGS:
        cat = catalogue(lang)
        page.goto(f"{base_url}/?lang={lang}#play")
        page.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
        assert page.evaluate("document.documentElement.lang") == lang
        assert page.text_content("nav a[data-page=play]") == cat["nav.play"]
        assert page.title() == cat["app.pageTitle"].replace("{page}", cat["nav.play"])
        page.keyboard.press("h")                                  # the hint list: the engine's reasons, reworded
        page.wait_for_selector("#play-hint-list li")
        problems += check(page, lang, "play")
        page.keyboard.press("?")                                  # the keys dialog
        page.wait_for_selector("#keys-dialog[open]")
        problems += [f"keys: {w}" for w in english_left(lang, page.evaluate(TEXTS))]
        page.keyboard.press("Escape")
        # the review (a link: the record in the fragment, reviewed at once)
        page.evaluate("(link) => { location.hash = link.slice(link.indexOf('#')); }", link)
        wait_for(page, f"document.getElementById('page-review').dataset.reviewed === '{len(rec['actions'])}'",
                 timeout=120, what="the review")
        problems += check(page, lang, "review")
        page.evaluate("location.hash = '#place'")
        page.wait_for_selector("body[data-ready=place]", state="attached")
        page.click("#place-solve")
        page.wait_for_selector("#place-status[data-status]", state="attached")
        problems += check(page, lang, "place")
        page.evaluate("location.hash = '#puzzles'")
        page.wait_for_selector("body[data-ready=puzzles]", state="attached")
        page.click("#pz-solve")
        page.wait_for_selector("#pz-status[data-status]", state="attached")
        problems += check(page, lang, "puzzles")
        page.evaluate("location.hash = '#analysis'")
        page.wait_for_selector("body[data-ready=analysis]", state="attached")
        wait_for(page, "document.getElementById('page-analysis').dataset.evaluated", what="the evaluation")
        problems += check(page, lang, "analysis")
        page.evaluate("location.hash = '#rules'")
        page.wait_for_selector("body[data-ready=rules]", state="attached")
        assert page.text_content("#rules-title") == cat["rules.title"]
        problems += check(page, lang, "rules")
    assert problems == [], "\n".join(problems)


def test_the_switcher_keeps_the_choice_and_the_page_follows_it(pages, base_url):
    page = pages(PHONE)
    page.goto(f"{base_url}/#play")
    page.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
    en, ko = catalogue("en"), catalogue("ko")
    assert page.evaluate("document.documentElement.lang") == "en"          # the browser's language (en-US)
    status = page.text_content("#play-status")
    page.select_option("#lang-select", "ko")
    # everything re-rendered at once, the page's own texts included, without a reload
    wait_for(page, "document.documentElement.lang === 'ko'", what="Korean")
    assert page.text_content("nav a[data-page=review]") == ko["nav.review"]
    assert page.text_content("#play-status") != status and re.search(r"[가-힣]", page.text_content("#play-status"))
    assert page.evaluate("localStorage.getItem('quiltsolve.language')") == "ko"
    page.reload()
    page.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
    assert page.evaluate("document.documentElement.lang") == "ko"
    assert page.input_value("#lang-select") == "ko"
    assert page.text_content("nav a[data-page=review]") == ko["nav.review"]
    # ?lang= wins over the saved choice; switching then writes it into the address, so a reload keeps it
    page.goto(f"{base_url}/?lang=uk#rules")
    page.wait_for_selector("body[data-ready=rules]", state="attached")
    assert page.evaluate("document.documentElement.lang") == "uk"
    page.select_option("#lang-select", "en")
    wait_for(page, "document.documentElement.lang === 'en'", what="English")
    assert "lang=en" in page.url
    page.reload()
    page.wait_for_selector("body[data-ready=rules]", state="attached")
    assert page.text_content("#rules-title") == en["rules.title"]
    # the browser's preferences when nothing is saved or asked for
    it = pages(locale="it-IT")
    it.goto(f"{base_url}/#rules")
    it.wait_for_selector("body[data-ready=rules]", state="attached")
    assert it.evaluate("document.documentElement.lang") == "it"


def test_plurals_numbers_and_errors_follow_the_language(pages, base_url):
    page = pages()
    page.goto(f"{base_url}/?lang=uk#rules")
    page.wait_for_selector("body[data-ready=rules]", state="attached")
    got = page.evaluate("""async () => {
        const i18n = await import('/js/i18n.js');
        const api = await import('/js/api.js');
        const cats = {};
        for (const l of ['en', 'uk', 'ko', 'it']) cats[l] = new Intl.PluralRules(l).resolvedOptions().pluralCategories;
        const forms = [1, 3, 5, 21, 11].map((n) => i18n.tn('gen.piecesLeft', n));
        const err = new api.ApiError(400, 'INVALID_ARGUMENT', 'seed', 'seed: must be at most 2147483647');
        const box = document.createElement('div');
        document.body.appendChild(box);
        api.showMessage(box, err);
        const shown = [box.querySelector('.msg-text').textContent, box.querySelector('.msg-detail').textContent];
        await i18n.setLanguage('it');
        return { cats, forms, shown, big: i18n.formatNumber('258584046368'), pct: i18n.formatPercent(0.76),
                 lang: i18n.language() };
    }""")
    from .test_catalogues import PLURALS

    assert {k: set(v) for k, v in got["cats"].items()} == PLURALS
    one, few, many, one21, many11 = got["forms"]
    uk = catalogue("uk")["gen.piecesLeft"]
    assert [one, few, many] == [uk[c].replace("{n}", n) for c, n in (("one", "1"), ("few", "3"), ("many", "5"))]
    assert one21 == uk["one"].replace("{n}", "21") and many11 == uk["many"].replace("{n}", "11")
    # an error explained from its code and field in the reader's language; the server's words only as the detail
    cat = catalogue("uk")
    text, detail = got["shown"]
    assert cat["error.code.INVALID_ARGUMENT"] in text and cat["error.fieldName.seed"] in text and "400" in text
    assert "must be at most" not in text and "must be at most" in detail
    assert got["big"] == "258.584.046.368" and got["pct"] == "76%" and got["lang"] == "it"
