"""Accessibility to a standard and the phone (issue 32, parts 4 and 5), in real headless Chromium.

* axe-core (the npm package in tests/web/package.json: a test dependency, never shipped) checks every page and
  every dialog, in English and in Ukrainian, and finds no violation of impact serious or critical. It is
  injected with Playwright's ``add_script_tag`` from node_modules; the app's Content-Security-Policy
  (``default-src 'self'``) would refuse an injected script, so **the axe run alone** uses a browser context
  with ``bypass_csp=True``. Every other test here runs under the app's own CSP.
* Colour contrast (WCAG 2.1 AA): axe's color-contrast rule for the HTML; for what axe cannot see inside the
  SVG pictures, the text drawn on the board, the track and the patch colours (4.5:1), the button dots on
  every patch colour and the focus rings (3:1, WCAG 1.4.11), computed in the page from the styles in use.
* Focus is visible: Tab goes through each page, and each element that takes the focus shows an outline (or a
  box-shadow) of at least 2 px whose colour has 3:1 against what lies behind it.
* The quilts can be read: each quilt carries a text description (its empty cells row by row, the patches
  on it, its button income, a full 7×7 square) that follows the moves, in the page's language.
* Phone: at 390×844, by touch, in each of the four languages, every page has no horizontal scrolling and no
  element wider than its container; the nav and each page's main controls answer a tap.

``npm ci`` in tests/web installs axe-core (``make test`` does it when npm is here; so does the first test
that needs it). Without Chromium these tests are skipped like the other browser tests; without axe-core
(no npm, no network) only the axe test is skipped, saying so. ``QUILTSOLVE_AXE_REPORT=FILE`` writes the
violations found, by impact, page and rule, as JSON (docs/web.md quotes them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest

from quiltsolve import engine
from quiltsolve.clients.links import review_link
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer

from .test_browser import DESKTOP, PHONE, page_factory, wait_for

pytestmark = pytest.mark.timeout(300)

HERE = Path(__file__).resolve().parent
AXE_JS = HERE / "node_modules" / "axe-core" / "axe.min.js"
PLAY = "document.getElementById('page-play').dataset"
REVIEW = "document.getElementById('page-review').dataset"
LANGS = ("en", "uk", "ko", "it")


@pytest.fixture(scope="session")
def axe_js(browser) -> Path:
    """axe.min.js from tests/web/node_modules, installed by ``npm ci`` when missing and npm is here
    (``QUILTSOLVE_AXE=none`` skips the audit). A skip ends the run with a line saying so."""
    reason = None
    if os.environ.get("QUILTSOLVE_AXE", "").lower() == "none":
        reason = "QUILTSOLVE_AXE=none"
    else:
        if not AXE_JS.exists() and shutil.which("npm"):
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=HERE, timeout=300,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if not AXE_JS.exists():
            reason = "axe-core is not installed (npm ci in tests/web needs node, npm and the registry)"
    if reason:
        from .conftest import _BROWSER_SKIPS

        if f"axe-core audit: {reason}" not in _BROWSER_SKIPS:
            _BROWSER_SKIPS.append(f"axe-core audit: {reason}")
        pytest.skip(f"the axe-core audit did not run: {reason}")
    return AXE_JS


@pytest.fixture
def pages(browser, base_url):
    yield from page_factory(browser, base_url)


def record(plies: int, seed: int = 3, first=None, second=None) -> dict:
    """A game of ``plies`` moves from deal ``seed`` (greedy for both unless players are given); unfinished
    records have no result."""
    players = [first or GreedyPlayer(), second or GreedyPlayer()]
    state = engine.new_game(seed)
    start = state.clone()
    actions = []
    while len(actions) < plies and not state.is_terminal():
        a = players[state.current_player()].choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    rec = engine.make_record(start, actions, state, seed)
    if not state.is_terminal():
        rec.pop("result", None)
    return rec


def new_game(page, base_url, lang: str, seed: int = 7):
    page.goto(f"{base_url}/?lang={lang}#play")
    page.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
    page.select_option("#play-strength", "greedy")
    page.fill("#play-seed", str(seed))
    page.click("#play-new")
    wait_for(page, f"(() => {{ const d = {PLAY}; return d.busy === '0' && d.turn === 'human' && "
                   f"window.quiltsolveDebug && window.quiltsolveDebug.game().record.seed === {seed}; }})()",
             what="a new game")


def goto(page, name: str):
    """Another page of the app, by its route (the app's own navigation)."""
    page.evaluate(f"location.hash = '#{name}'")
    try:
        page.wait_for_selector(f"body[data-ready={name}]", state="attached", timeout=60_000)
    except Exception as e:
        raise AssertionError(f"#{name} not ready: " + json.dumps(page.evaluate(
            "() => [location.href, document.body.dataset.ready, document.getElementById('global-msg').textContent,"
            " JSON.stringify(document.getElementById('page-play').dataset)]"))) from e


FOLLOW = "document.getElementById('page-follow').dataset"


def table_game(page):
    """The Setup page: a circle as it lies on a table typed in, then followed (the Follow page at move 0)."""
    from .test_table import TABLE

    goto(page, "setup")
    page.click("#setup-mode-new")
    if page.is_enabled("#setup-clear"):
        page.click("#setup-clear")
    page.fill("#setup-ids", " ".join(map(str, TABLE)))
    page.press("#setup-ids", "Enter")
    page.wait_for_selector("#page-setup[data-circle-check=ok]", state="attached")
    page.click("#setup-follow")
    page.wait_for_selector("body[data-ready=follow]", state="attached")
    wait_for(page, f"{FOLLOW}.busy !== '1' && {FOLLOW}.plies === '0'", what="the followed game")


def hold_first_buyable(page, circle: str, quilt: str) -> None:
    """Pick up the first patch in front of the token that can be bought (keys 1-3); its ghosts appear."""
    slot = page.evaluate("(sel) => { const c = document.querySelector(sel + ' .patch-card.buyable');"
                         " return c ? Number(c.dataset.slot) : 0; }", circle)
    assert slot, "no patch can be bought"
    page.keyboard.press(str(slot))
    page.wait_for_selector(f"{quilt}[data-held]", state="attached")


# ---------------------------------------------------------------- axe

AXE_RUN = """async ([within, opts]) => {
  const r = await axe.run(within ? document.querySelector(within) : document, { resultTypes: ['violations'], ...opts });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(' '), impact: n.impact,
                                  summary: (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 240) })) }));
}"""


class Audit:
    """The violations found, by (language, where), and the report of them."""

    def __init__(self, page, axe: Path):
        self.page = page
        self.axe = axe
        self.found: list[dict] = []
        self.seconds = 0.0          # spent in axe itself

    def __call__(self, lang: str, where: str, options: dict | None = None, within: str | None = None):
        """axe on the page as it stands (``within``: only that element, a dialog above an inert page)."""
        if not self.page.evaluate("typeof window.axe === 'object'"):
            self.page.add_script_tag(path=str(self.axe))   # possible only with bypass_csp (see the module)
        t0 = time.monotonic()
        for v in self.page.evaluate(AXE_RUN, [within, options or {}]):
            self.found.append({"lang": lang, "where": where, **v})
        self.seconds += time.monotonic() - t0

    def serious(self) -> list[str]:
        return [f"{v['lang']} {v['where']}: {v['impact']} {v['id']} ({v['help']}): "
                + "; ".join(f"{n['target']}: {n['summary']}" for n in v["nodes"][:4])
                for v in self.found if v["impact"] in ("serious", "critical")]

    def report(self) -> dict:
        by_impact = Counter()
        for v in self.found:
            by_impact[v["impact"]] += len(v["nodes"])
        return {"axe": self.axe_version(), "nodes_by_impact": dict(by_impact), "violations": self.found}

    def axe_version(self) -> str:
        return self.page.evaluate("window.axe ? axe.version : ''")


def close_dialog(page, sel: str):
    """Escape closes the dialog (from a control inside it: a Tab walk may have left the page)."""
    page.focus(f"{sel} button")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{sel}:not([open])", state="attached")


def audit_every_page(page, base_url, audit: Audit, lang: str, rec_link: str, finished: dict):
    """Each page in the states that show the most of it, and both dialogs: one axe run each."""
    # Play: a game under way with the hint list and a patch in hand (its ghosts on the quilt); then a finished
    # game with the paste form open on an error
    new_game(page, base_url, lang)
    page.keyboard.press("h")
    page.wait_for_selector("#play-hint-list li")
    hold_first_buyable(page, "#play-circle", "#play-quilt-human")
    page.wait_for_selector("#play-quilt-human .ghost", state="attached")
    audit(lang, "play: hint, a patch in hand")
    page.keyboard.press("Escape")
    page.click("#play-paste-toggle")
    page.fill("#play-paste-text", json.dumps(finished))
    page.click("#play-paste button[type=submit]")
    page.wait_for_selector("#play-over:not([hidden])")
    page.click("#play-paste-toggle")
    page.fill("#play-paste-text", "not a position")
    page.click("#play-paste button[type=submit]")
    page.wait_for_selector("#play-msg:not([hidden])")
    audit(lang, "play: the game over, the paste form with an error")
    page.keyboard.press("?")
    page.wait_for_selector("#keys-dialog[open]")
    audit(lang, "keys dialog", within="#keys-dialog")
    close_dialog(page, "#keys-dialog")
    page.evaluate("""() => { const m = document.getElementById('token-msg'); m.hidden = false;
                             m.textContent = document.getElementById('token-why').textContent;
                             document.getElementById('token-dialog').showModal(); }""")
    audit(lang, "token dialog, with its message", within="#token-dialog")
    close_dialog(page, "#token-dialog")
    # Review: a reviewed game (a link) and the drill on its mistakes
    page.evaluate("(link) => { location.hash = link.slice(link.indexOf('#')); }", rec_link)
    wait_for(page, f"{REVIEW}.reviewed && {REVIEW}.reviewed === String(document.querySelectorAll("
                   "'#review-moves li').length) && !document.getElementById('review-learn').disabled",
             timeout=120, what="the review")
    page.select_option("#learn-player", "0")
    page.click("#review-learn")
    wait_for(page, f"{REVIEW}.learnAt === '0'", what="the drill")
    audit(lang, "review: a game reviewed, learn from your mistakes")
    # Place: a solved board
    goto(page, "place")
    page.click("#place-midgame")
    page.click("#place-solve")
    page.wait_for_selector("#place-status[data-status]", state="attached")
    audit(lang, "place: solved")
    # Puzzles: a tiling found, and a new puzzle to solve by hand
    goto(page, "puzzles")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status[data-status]", state="attached")
    page.select_option("#gen-family", "PIECE_FAMILY_TETROMINOES")
    page.click("#gen-new")
    page.wait_for_selector("#gen-play:not([hidden]) #gen-tray figure")
    audit(lang, "puzzles: solved, a new puzzle")
    # Analysis: evaluated, a move made (the tree, Recent), the load form open
    goto(page, "analysis")
    wait_for(page, "document.getElementById('page-analysis').dataset.evaluated", what="the evaluation")
    page.click("#an-advance")
    wait_for(page, "document.querySelectorAll('#an-moves button').length > 0 && "
                   "document.querySelectorAll('#an-recent li').length > 0", what="a move on the board")
    wait_for(page, "document.getElementById('page-analysis').dataset.evaluated", what="the evaluation")
    page.click("#an-paste-toggle")
    audit(lang, "analysis: a move made, the load form")
    page.click("#an-paste-cancel")
    # At the table: the circle with a patch twice (named next to it), the position editor with a field at
    # fault, and a game followed with its hint and evaluation
    goto(page, "setup")
    page.click("#setup-mode-new")
    if page.is_enabled("#setup-clear"):
        page.click("#setup-clear")
    page.fill("#setup-ids", "9, 21, 3, 30, 21")
    page.press("#setup-ids", "Enter")
    page.wait_for_selector("#page-setup[data-circle-check=error]", state="attached")
    audit(lang, "setup: the circle, an error")
    page.click("#setup-mode-pos")
    page.fill("#pos-buttons-0", "5000")
    page.wait_for_selector("#page-setup[data-pos-check=error]", state="attached")
    audit(lang, "setup: the position editor, an error")
    page.fill("#pos-buttons-0", "5")
    table_game(page)
    page.click("#fl-hint")
    page.wait_for_selector("#fl-hint-list li[data-move]")
    page.click("#fl-eval-toggle")
    wait_for(page, f"{FOLLOW}.evaluated", what="the evaluation")
    audit(lang, "follow: the hint and the evaluation")
    # Rules
    goto(page, "rules")
    assert page.is_visible("#rules-title"), "the Rules page is not shown"
    audit(lang, "rules")


def test_axe_finds_no_serious_or_critical_violation_on_any_page_or_dialog(browser, base_url, axe_js):
    # bypass_csp: only so that add_script_tag may inject axe-core; the app's own scripts are unaffected.
    made = page_factory(browser, base_url, bypass_csp=True)
    pages_ = next(made)
    page = pages_()
    audit = Audit(page, axe_js)
    rec = record(10, seed=3, first=RandomPlayer(11))
    finished = record(400, seed=5)
    for lang in ("en", "uk"):
        link = review_link(rec, base=f"{base_url}/", ply=4, iterations=60, seed=0)
        audit_every_page(page, base_url, audit, lang, link, finished)
    # phones: at 390×844, WCAG 2.2's target size for touch (24 px: axe's target-size, off by default)
    page.set_viewport_size(PHONE)
    page.select_option("#lang-select", "en")     # the app's switcher: the pages keep what they show
    wait_for(page, "document.documentElement.lang === 'en'", what="English")
    for name in ("play", "review", "place", "puzzles", "analysis", "setup", "follow", "rules"):
        goto(page, name)
        audit("en", f"{name} at 390×844", {"runOnly": {"type": "rule", "values": ["target-size"]}})
    out = os.environ.get("QUILTSOLVE_AXE_REPORT")
    if out:
        Path(out).write_text(json.dumps(audit.report(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if os.environ.get("QUILTSOLVE_A11Y_DEBUG"):
        print(f"axe: {len(set((v['lang'], v['where']) for v in audit.found))} states with findings, {audit.seconds:.1f} s in axe")
    try:
        next(made)
    except StopIteration:
        pass
    assert audit.serious() == [], "\n".join(audit.serious())


# ---------------------------------------------------------------- focus

# The element that has the focus: what shows it (outline, box-shadow; inside an SVG picture, the stroke of its
# outline path), the ring's colour against what lies next to it (3:1, WCAG 1.4.11), and whether a clipping
# ancestor cuts the ring off.
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const rgba = (text) => {
    const m = String(text).match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [r, g, b, a === undefined || Number.isNaN(a) ? 1 : a];
  };
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  // the colour painted behind a point of node: its own background, else its ancestors', blended over white
  const behind = (node) => {
    const layers = [];
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let out = [255, 255, 255];
    for (const [r, g, b, a] of layers.reverse()) out = [r * a + out[0] * (1 - a), g * a + out[1] * (1 - a), b * a + out[2] * (1 - a)];
    return out;
  };
  const cs = getComputedStyle(el);
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.getAttribute('class') ? '.' + el.getAttribute('class').trim().split(/\\s+/).join('.') : '')
    + (el.dataset && el.dataset.page ? `[${el.dataset.page}]` : '');
  const inSvg = el instanceof SVGElement && el.tagName.toLowerCase() !== 'svg';
  const width = parseFloat(cs.outlineWidth) || 0, offset = parseFloat(cs.outlineOffset) || 0;
  const res = { name, how: null, ratio: null, clipped: false };
  if (cs.outlineStyle !== 'none' && width >= 2) {
    res.how = 'outline';
    const ring = rgba(cs.outlineColor);
    const box = el.getBoundingClientRect(), grow = Math.max(0, offset + width);
    // next to the ring: inside the element for an inset ring, else whatever is painted just outside it (the
    // skip link lies over the header)
    let next = el;
    if (offset + width > 0) {
      const x = Math.max(0, box.left - grow - 1), y = box.top + box.height / 2;
      next = document.elementsFromPoint(x, y).find((n) => !el.contains(n)) || el.parentElement;
    }
    res.ratio = ring && ring[3] >= 1 ? ratio(ring, behind(next)) : 0;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const acs = getComputedStyle(a);
      if (acs.overflowX === 'visible' && acs.overflowY === 'visible') continue;
      const clip = a.getBoundingClientRect();
      if (box.left - grow < clip.left - 1 || box.right + grow > clip.right + 1
          || box.top - grow < clip.top - 1 || box.bottom + grow > clip.bottom + 1) {
        res.clipped = `${a.id || a.className} (ring ${Math.round(box.left - grow)},${Math.round(box.top - grow)}`
          + `–${Math.round(box.right + grow)},${Math.round(box.bottom + grow)}; box ${Math.round(clip.left)},`
          + `${Math.round(clip.top)}–${Math.round(clip.right)},${Math.round(clip.bottom)})`;
      }
    }
  } else if (inSvg) {
    const path = [...el.querySelectorAll('path')].find((p) => getComputedStyle(p).stroke !== 'none');
    const ring = path && rgba(getComputedStyle(path).stroke);
    const rect = el.querySelector('rect');
    if (ring && ring[3] >= 1 && parseFloat(getComputedStyle(path).strokeWidth) >= 0.1) {
      res.how = 'stroke';
      // what lies under the outline: the cell under the focused shape, seen through its own fill
      const fill = rect && rgba(getComputedStyle(rect).fill);
      const under = document.elementsFromPoint(...(() => { const b = rect.getBoundingClientRect(); return [b.x + 2, b.y + 2]; })())
        .find((n) => n.classList && n.classList.contains('cell'));
      let base = under ? (rgba(getComputedStyle(under).fill) || [255, 255, 255, 1]) : [255, 255, 255, 1];
      if (fill && fill[3] > 0) base = base.map((v, i) => (i < 3 ? fill[i] * fill[3] + v * (1 - fill[3]) : 1));
      res.ratio = ratio(ring, base);
    }
  }
  if (!res.how && cs.boxShadow && cs.boxShadow !== 'none') res.how = 'box-shadow';
  return res;
}"""


def tab_through(page, where: str, start: str = ".skip", limit: int = 400) -> tuple[list[str], int]:
    """Focus ``start`` (the skip link: the top of the page), then Tab until the focus comes round to an
    element met before: the problems of each element focused on the way, and how many there were."""
    page.focus(start)
    page.keyboard.press("Shift+Tab")      # and back, by the keyboard: the browser shows focus as it does for keys
    page.keyboard.press("Tab")
    problems, seen = [], set()
    for i in range(limit):
        if i:
            page.keyboard.press("Tab")
        f = page.evaluate(FOCUSED)
        if f is None:
            continue          # past the last element: the browser's own controls; the next Tab comes round
        key = page.evaluate("() => { const e = document.activeElement; if (!e.dataset.tabSeen) "
                            "e.dataset.tabSeen = String(Math.random()); return e.dataset.tabSeen; }")
        if key in seen:
            break
        seen.add(key)
        if os.environ.get("QUILTSOLVE_A11Y_DEBUG"):
            print(where, f)
        if not f["how"]:
            problems.append(f"{where}: {f['name']} shows no focus")
        elif f["ratio"] is not None and f["ratio"] < 3:
            problems.append(f"{where}: {f['name']}'s focus ({f['how']}) has contrast {f['ratio']:.2f} < 3")
        if f["clipped"]:
            problems.append(f"{where}: {f['name']}'s focus ring is cut off by {f['clipped']}")
    page.evaluate("() => { for (const e of document.querySelectorAll('[data-tab-seen]')) delete e.dataset.tabSeen; }")
    return problems, len(seen)


def test_focus_is_visible_on_every_element_tab_reaches(pages, base_url):
    page = pages()
    problems: list[str] = []
    counts = {}

    def walk(where, start=".skip"):
        found, n = tab_through(page, where, start)
        problems.extend(found)
        counts[where] = n

    new_game(page, base_url, "en")
    page.keyboard.press("h")
    page.wait_for_selector("#play-hint-list li")
    hold_first_buyable(page, "#play-circle", "#play-quilt-human")
    page.wait_for_selector("#play-quilt-human .ghost", state="attached")
    walk("play, a patch in hand")
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    page.wait_for_selector("#keys-dialog[open]")
    walk("keys dialog", "#keys-dialog button")
    close_dialog(page, "#keys-dialog")
    page.evaluate("document.getElementById('token-dialog').showModal()")
    walk("token dialog", "#token-input")
    close_dialog(page, "#token-dialog")
    rec = record(8)
    page.evaluate("(link) => { location.hash = link.slice(link.indexOf('#')); }",
                  review_link(rec, base=f"{base_url}/", ply=3, iterations=60, seed=0))
    wait_for(page, f"{REVIEW}.reviewed === '{len(rec['actions'])}'", timeout=120, what="the review")
    walk("review")
    goto(page, "place")
    page.click("#place-midgame")
    page.focus("#place-board")
    page.keyboard.press("ArrowRight")
    page.click("#place-solve")
    page.wait_for_selector("#place-status[data-status]", state="attached")
    walk("place")
    goto(page, "puzzles")
    page.select_option("#gen-family", "PIECE_FAMILY_TETROMINOES")
    page.click("#gen-new")
    page.wait_for_selector("#gen-play:not([hidden]) #gen-tray figure")
    walk("puzzles")
    goto(page, "analysis")
    wait_for(page, "document.getElementById('page-analysis').dataset.evaluated", what="the evaluation")
    page.click("#an-advance")
    wait_for(page, "document.querySelectorAll('#an-moves button').length > 0", what="a move on the board")
    wait_for(page, "document.querySelectorAll('#an-best li').length > 0", what="the engine's moves")
    walk("analysis")
    goto(page, "setup")
    page.fill("#setup-ids", "9, 21, 3")
    page.press("#setup-ids", "Enter")
    walk("setup: the circle")
    page.click("#setup-mode-pos")
    walk("setup: the position editor")
    table_game(page)
    page.click("#fl-hint")
    page.wait_for_selector("#fl-hint-list li[data-move]")
    walk("follow")
    goto(page, "rules")
    assert page.is_visible("#rules-title"), "the Rules page is not shown"
    walk("rules")
    assert problems == [], "\n".join(problems)
    # the walk met the pages' controls: far more than the header's on each page with a form
    assert all(n >= 10 for where, n in counts.items() if "dialog" not in where and where != "rules"), counts
    assert counts["keys dialog"] >= 1 and counts["token dialog"] >= 3, counts


# ---------------------------------------------------------------- colours axe cannot see

# Inside the SVG pictures (role=img: axe leaves them alone) the styles in use, read from sample shapes drawn
# with the app's classes, and the patch colours of draw.js. Text: 4.5:1 against what it is drawn on;
# marks a player must see (the buttons printed on patches, the keyboard cursor of the editors): 3:1.
SVG_COLOURS = """async () => {
  const draw = await import('/js/draw.js');
  const NS = 'http://www.w3.org/2000/svg';
  const host = document.createElement('div');
  host.className = 'card';
  document.querySelector('main').appendChild(host);
  const svg = (cls, inner) => { const s = document.createElementNS(NS, 'svg'); s.setAttribute('class', cls);
    s.innerHTML = inner; host.appendChild(s); return s; };
  const track = svg('track', '<rect class="space"/><rect class="space income"/><text class="num">5</text>'
    + '<circle class="token" fill="var(--p0)"/><circle class="token" fill="var(--p1)"/><text class="token-label">1</text>');
  const quilt = svg('quilt', '<rect class="cell cell-empty"/><g class="ghost"><rect/><text>1</text></g>'
    + '<g class="hint-mark"><rect/><text>1</text></g><g class="ghost engine-ghost"><rect/><text>1</text></g>'
    + '<circle class="button-dot"/>');
  const editor = svg('quilt editor', '<rect class="cursor-halo"/><rect class="cursor-mark"/>');
  const plot = svg('plot', '<text>50%</text><text class="glyph inaccuracy">?!</text><text class="glyph mistake">?</text>'
    + '<text class="glyph blunder">??</text>');
  const rgba = (t) => { const m = String(t).match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const [r, g, b, a] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [r, g, b, a === undefined ? 1 : a]; };
  const hex = (h) => { const n = parseInt(h.slice(1), 16); return [n >> 16, (n >> 8) & 255, n & 255, 1]; };
  const over = (top, base) => top[3] >= 1 ? top : [0, 1, 2].map((i) => top[i] * top[3] + base[i] * (1 - top[3])).concat(1);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const fill = (el) => rgba(getComputedStyle(el).fill), stroke = (el) => rgba(getComputedStyle(el).stroke);
  const card = rgba(getComputedStyle(host).backgroundColor);
  const out = [];
  const need = (what, r, min) => { if (!(r >= min)) out.push(`${what}: ${r.toFixed(2)} < ${min}`); };
  // the track: space numbers on both kinds of space, the token's label on both players' colours
  const [space, income] = track.querySelectorAll('.space');
  const num = fill(track.querySelector('.num'));
  need('track number on a space', ratio(num, fill(space)), 4.5);
  need('track number on an income space', ratio(num, fill(income)), 4.5);
  for (const tok of track.querySelectorAll('.token')) {
    need(`token label on ${getComputedStyle(tok).fill}`, ratio(fill(track.querySelector('.token-label')), fill(tok)), 4.5);
  }
  // ghosts and hint marks lie on empty cells: their numbers on their own tint over an empty cell
  const empty = over(fill(quilt.querySelector('.cell-empty')), card);
  for (const g of quilt.querySelectorAll('g')) {
    const under = over(fill(g.querySelector('rect')), empty);
    need(`${g.getAttribute('class')} number`, ratio(fill(g.querySelector('text')), under), 4.5);
  }
  // the buttons printed on patches: their fill or their rim stands out from every patch colour
  const dot = quilt.querySelector('.button-dot');
  for (let id = 0; id < 33; id++) {
    const c = hex(draw.patchColor(id));
    need(`button on patch ${id} (${draw.patchColor(id)})`, Math.max(ratio(fill(dot), c), ratio(stroke(dot), c)), 3);
  }
  // the editors' keyboard cursor: blue on its white halo, whatever the cell
  need('editor cursor on its halo', ratio(stroke(editor.querySelector('.cursor-mark')),
    stroke(editor.querySelector('.cursor-halo'))), 3);
  // the review's plot: its words and glyphs on the card
  for (const t of plot.querySelectorAll('text')) need(`plot text ${t.textContent}`, ratio(fill(t), card), 4.5);
  // puzzle tiles: each copy's label, light or dark (draw.isDark), on the copy's colour
  for (let i = 0; i < 40; i++) {
    for (let n = 0; n < 8; n++) {
      const c = draw.copyColor(i, n);
      const label = draw.isDark(c) ? [255, 255, 255, 1] : [0, 0, 0, 1];
      need(`tile label on ${c}`, ratio(label, hex(c)), 4.5);
    }
  }
  host.remove();
  return out;
}"""


def test_text_and_marks_on_the_board_and_patch_colours_have_contrast(pages, base_url):
    page = pages()
    page.goto(f"{base_url}/#rules")
    page.wait_for_selector("body[data-ready=rules]", state="attached")
    found = page.evaluate(SVG_COLOURS)
    assert found == [], "\n".join(found)
    # and the CSS those samples read is the one in use: tile labels are opaque black or white
    css = (Path(__file__).resolve().parents[2] / "src" / "quiltsolve" / "web" / "static" / "css" / "app.css").read_text()
    assert ".tile-label.on-dark { fill: #fff; }" in css


# ---------------------------------------------------------------- the quilts in words

def quilt_words(page, svg: str) -> dict:
    """The text a screen reader gets for the quilt ``svg``: its description (aria-describedby, as the
    browser's accessibility tree has it) and the lines of the hidden list after it."""
    return page.evaluate("""(sel) => {
      const svg = document.querySelector(sel);
      const ids = (svg.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean);
      const read = document.getElementById(svg.id + '-read');
      return { ids, summary: document.getElementById(svg.id + '-text').textContent,
               rows: [...read.querySelectorAll('li')].map((li) => li.textContent),
               cells: [...svg.querySelectorAll('rect.cell')].map((r) => [Number(r.dataset.r), Number(r.dataset.c),
                                                                         r.dataset.owner]) };
    }""", svg)


def expected_rows(cells: list, cat: dict) -> list[str]:
    """The rows of a quilt as describeQuilt words them, from the drawn cells (r, c, owner) and a catalogue."""
    def plural(key, n, **v):
        forms = cat[key]
        text = forms if isinstance(forms, str) else (forms.get("one") if n == 1 and "one" in forms else forms["other"])
        for k, x in v.items():
            text = text.replace("{" + k + "}", str(x))
        return text

    grid = {(r, c): o for r, c, o in cells}
    rows = []
    for r in range(9):
        keys = [grid[r, c] or "." for c in range(9)]
        runs, c = [], 0
        while c < 9:
            e = c
            while e + 1 < 9 and keys[e + 1] == keys[c]:
                e += 1
            cols = plural("quilt.text.col", 1, c=c + 1) if c == e else plural("quilt.text.cols", 2, **{"from": c + 1, "to": e + 1})
            k, n = keys[c], e - c + 1
            if k == ".":
                runs.append(plural("quilt.text.empty", n, cols=cols))
            elif k.startswith("p"):
                runs.append(plural("quilt.text.patch", n, cols=cols, id=int(k[1:])))
            elif k.startswith("L"):
                runs.append(plural("quilt.text.leather", n, cols=cols))
            else:
                runs.append(plural("quilt.text.covered", n, cols=cols))
            c = e + 1
        rows.append(plural("quilt.text.row", 1, r=r + 1, runs=", ".join(runs)))
    return rows


def catalogue(lang: str) -> dict:
    static = Path(__file__).resolve().parents[2] / "src" / "quiltsolve" / "web" / "static"
    return json.loads((static / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_the_quilts_are_described_in_words_that_follow_the_moves(pages, base_url):
    page = pages()
    en = catalogue("en")
    new_game(page, base_url, "en")
    start = quilt_words(page, "#play-quilt-human")
    # the svg names its description and the player's stats (buttons, income) beside it
    assert start["ids"] == ["play-quilt-human-text", "play-human-stats"]
    assert start["summary"] == en["quilt.text.summary"]["other"].replace("{n}", "81")
    assert start["rows"] == expected_rows(start["cells"], en)
    assert start["rows"][2] == "Row 3: columns 1–9 empty."
    described = page.evaluate("""() => { const s = document.getElementById('play-quilt-human');
        return s.getAttribute('aria-describedby').split(' ').map((id) => document.getElementById(id))
          .map((e) => e.getAttribute('aria-label') || e.textContent).join(' '); }""")
    assert "81" in described and en["stats.buttons"] not in ("",) and "income" in described
    # a move by the keys: the patch goes down on the solver's first spot (G); the engine answers
    plies = int(page.evaluate(f"{PLAY}.plies"))
    hold_first_buyable(page, "#play-circle", "#play-quilt-human")
    page.wait_for_selector("#play-quilt-human .ghost", state="attached")
    page.keyboard.press("g")
    wait_for(page, f"(() => {{ const d = {PLAY}; return d.busy === '0' && Number(d.plies) > {plies + 1} "
                   f"&& (d.turn === 'human' || d.turn === 'over'); }})()", what="the engine's answer")
    for svg in ("#play-quilt-human", "#play-quilt-engine"):
        now = quilt_words(page, svg)
        filled = sum(1 for _, _, o in now["cells"] if o)
        assert filled > 0, svg
        n = 81 - filled
        assert now["summary"] == en["quilt.text.summary"]["one" if n == 1 else "other"].replace("{n}", str(n)), svg
        assert now["rows"] == expected_rows(now["cells"], en), svg
        ids = {o for _, _, o in now["cells"] if o}
        assert all(f"patch {o[1:]}" in " ".join(now["rows"]) for o in ids if o.startswith("p")), svg
    # the time track in words: each token's space as the stats say
    track = page.evaluate("document.getElementById('play-track-text').textContent")
    me = page.evaluate("window.quiltsolveDebug.game().human")
    view = page.evaluate("window.quiltsolveDebug.game().view")
    for i in (0, 1):
        assert f"Player {i + 1}" in track and f"space {view['players'][i]['position']}," in track
    assert me in (0, 1)
    # another language: the same quilt in Ukrainian, at once
    uk = catalogue("uk")
    page.select_option("#lang-select", "uk")
    wait_for(page, "document.documentElement.lang === 'uk'", what="Ukrainian")
    wait_for(page, "document.getElementById('play-quilt-human-read').textContent.includes('Ряд')",
             what="the quilt in Ukrainian")
    now = quilt_words(page, "#play-quilt-human")
    assert now["rows"][0].startswith("Ряд 1: ") and "стовп" in now["rows"][0]
    assert " з 81" in now["summary"]
    assert not any(w in " ".join(now["rows"]) for w in ("Row", "column", "empty", "patch"))
    # the other boards of the app: the analysis board's quilts and the review's are described the same way
    page.select_option("#lang-select", "en")
    goto(page, "analysis")
    wait_for(page, "document.getElementById('an-quilt-0-read') && document.getElementById('an-quilt-1-read')",
             what="the analysis board's quilts")
    for svg in ("#an-quilt-0", "#an-quilt-1"):
        words = quilt_words(page, svg)
        assert words["rows"] == expected_rows(words["cells"], en), svg
    assert uk["quilt.text.row"].startswith("Ряд")
    # Setup's position editor: a painted cell is in the words at once; the field's message stays named first
    goto(page, "setup")
    page.click("#setup-mode-pos")
    page.focus("#pos-board-0")
    page.keyboard.press("ArrowRight")      # the cursor onto the board, then a cell filled by Space
    page.keyboard.press("Space")
    wait_for(page, "document.getElementById('pos-board-0-text') && "
                   "document.getElementById('pos-board-0-text').textContent.includes('80')", what="a painted cell")
    words = quilt_words(page, "#pos-board-0")
    assert words["ids"] == ["pos-board-0-msg", "pos-board-0-text"]
    # the keyboard's cursor is said as it goes (a polite live region after the board)
    assert page.text_content("#pos-board-0-say") == "Row 1, column 2: covered."
    assert page.get_attribute("#pos-board-0-say", "aria-live") == "polite"
    page.keyboard.press("ArrowDown")
    assert page.text_content("#pos-board-0-say") == "Row 2, column 2: empty."
    assert words["rows"] == expected_rows(words["cells"], en)


# ---------------------------------------------------------------- phone

# The middle of a cell of the quilt sel that a tap would reach bare (no ghost or mark over it), in the window.
FREE_CELL = """(sel) => {
  for (const cell of document.querySelectorAll(sel + ' rect.cell')) {
    const b = cell.getBoundingClientRect(), x = b.x + b.width / 2, y = b.y + b.height / 2;
    if (document.elementFromPoint(x, y) === cell) return [x, y];
  }
  return null;
}"""
NO_SIDEWAYS = "() => [document.scrollingElement.scrollWidth, window.innerWidth]"


def test_every_page_works_by_touch_on_a_phone_in_every_language(pages, base_url):
    from .test_languages import OVERFLOW

    page = pages(PHONE, touch=True)
    rec = record(6)
    link = review_link(rec, base=f"{base_url}/", ply=3, iterations=60, seed=0)
    deal5 = engine.new_game(5).to_notation()
    problems: list[str] = []

    def fits(where):
        width, window = page.evaluate(NO_SIDEWAYS)
        if width > PHONE["width"] or window != PHONE["width"]:
            problems.append(f"{where}: the page scrolls sideways ({width}px in a {window}px window)")
        problems.extend(f"{where}: {o}" for o in page.evaluate(OVERFLOW))

    def tap_to(name):
        """The nav link tapped (Playwright taps where it is seen and checks nothing else takes the tap)."""
        page.tap(f"nav a[data-page={name}]")
        page.wait_for_selector(f"body[data-ready={name}]", state="attached")

    for lang in LANGS:
        new_game(page, base_url, lang, seed=5)      # a deal whose first player can buy (not every deal can)
        # Play: a patch picked up by a tap, shown on the quilt by a tap, put back
        wait_for(page, "document.querySelector('#play-circle .patch-card.buyable')", what=f"{lang}: a patch to buy")
        page.tap("#play-circle .patch-card.buyable")
        wait_for(page, "document.getElementById('play-quilt-human').dataset.held", what=f"{lang}: a patch in hand")
        # once the solver's ghosts are drawn (a tap on one would place the patch), a tap on a free cell
        wait_for(page, "document.querySelector('#play-quilt-human .ghost')", what=f"{lang}: the ghosts")
        page.locator("#play-quilt-human").scroll_into_view_if_needed()
        x, y = page.evaluate(FREE_CELL, "#play-quilt-human")
        page.touchscreen.tap(x, y)
        wait_for(page, "document.querySelector('#play-quilt-human .held-piece')", what=f"{lang}: the patch on the quilt")
        fits(f"{lang} play, a patch on the quilt")
        page.tap("#play-cancel")
        page.tap("#play-paste-toggle")
        fits(f"{lang} play, the paste form")
        page.tap("#play-paste-cancel")
        # Review (a reviewed game: its plot, lists and quilts)
        tap_to("review")
        page.evaluate("(link) => { location.hash = link.slice(link.indexOf('#')); }", link)
        wait_for(page, f"{REVIEW}.reviewed === '{len(rec['actions'])}'", timeout=120, what="the review")
        page.tap("#review-next")
        fits(f"{lang} review")
        # Place and Puzzles, solved by a tap
        tap_to("place")
        page.tap("#place-midgame")
        page.tap("#place-solve")
        page.wait_for_selector("#place-status[data-status]", state="attached")
        fits(f"{lang} place")
        tap_to("puzzles")
        page.tap("#pz-solve")
        page.wait_for_selector("#pz-status[data-status]", state="attached")
        fits(f"{lang} puzzles")
        # Analysis: a patch picked up by a tap (deal 5, as on Play: its first player can buy)
        tap_to("analysis")
        page.evaluate("(h) => { location.hash = h; }", f"#analysis?pos={quote(deal5, safe='')}")
        # The page may still show the position it had (evaluated) while the new address opens: a tap that lands
        # before the board is redrawn picks up a patch of the old board, which the redraw puts back. Wait for the
        # address's position and no move in flight, and tap again if a redraw took the patch back.
        wait_for(page, "document.getElementById('page-analysis').dataset.evaluated === "
                       f"{json.dumps(deal5)} && document.getElementById('page-analysis').dataset.busy !== '1'",
                 what="the evaluation")
        for attempt in range(3):
            page.tap("#an-circle .patch-card.buyable")
            try:
                wait_for(page, "document.querySelector('#page-analysis svg.quilt[data-held]')", timeout=20,
                         what="a patch in hand")
                break
            except AssertionError:
                if attempt == 2:
                    raise
        fits(f"{lang} analysis, a patch in hand")
        page.keyboard.press("Escape")
        # At the table: the position editor, then a game followed (set up once, resumed after), its hint
        tap_to("setup")
        page.tap("#setup-mode-pos")
        fits(f"{lang} setup, the position editor")
        if lang == LANGS[0]:
            table_game(page)
        else:
            goto(page, "follow")
            wait_for(page, f"{FOLLOW}.busy !== '1' && {FOLLOW}.plies === '0'", what=f"{lang}: the followed game")
        page.tap("#fl-hint")
        page.wait_for_selector("#fl-hint-list li[data-move]")
        fits(f"{lang} follow, a hint")
        tap_to("rules")
        assert page.is_visible("#rules-title"), "the Rules page is not shown"
        fits(f"{lang} rules")
    assert problems == [], "\n".join(problems)
