"""Your own game at the table (issue 32, part 2), in headless Chromium: the Setup page's circle and position
editor, the Follow page, both on a desktop and by touch on a phone.

Every move the page plays is checked against the engine replaying the game from its circle (no solver
involved), every hint and evaluation against the legal moves of the position, and every refusal against the
field the position codec names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quiltsolve import engine
from quiltsolve.engine.players import GreedyPlayer

from .test_browser import PHONE, open_page, page_factory, shape_text, wait_for

pytestmark = pytest.mark.timeout(240)

FOLLOW = "document.getElementById('page-follow').dataset"
SETUP = "document.getElementById('page-setup').dataset"
# The Follow page's inspector (follow.js's ``inspect``) as a window global, put there by these tests only.
INSPECTOR = """
if (location.protocol.startsWith('http')) {
  import('/js/follow.js').then((m) => {
    Object.defineProperty(window, 'quiltsolveFollow', { value: m.inspect, configurable: true });
  }).catch(() => {});
}
"""
# A circle as a person lays it out at a table (no seed deals it): patch 0 last.
TABLE = [9, 21, 3, 30, 14, 27, 1, 18, 25, 6, 32, 12, 23, 5, 16, 29, 8, 19, 2, 26, 11, 31, 15, 4, 22, 28, 10,
         17, 24, 7, 20, 13, 0]


@pytest.fixture
def pages(browser, base_url):
    def make(*args, **kw):
        page = factory(*args, **kw)
        page.context.add_init_script(INSPECTOR)
        return page

    gen = page_factory(browser, base_url)
    factory = next(gen)
    yield make
    next(gen, None)


def followed(page) -> dict:
    return page.evaluate("() => window.quiltsolveFollow.game()")


def settled(page, plies: int):
    wait_for(page, f"(() => {{ const d = {FOLLOW}; return d.busy !== '1' && d.plies === '{plies}'; }})()",
             what=f"the followed game at {plies} moves")


def cell_point(page, svg: str, r: int, c: int) -> tuple[float, float]:
    """The centre of cell (r, c) of a quilt drawn by draw.js (a margin of 0.08 cell around 9 cells)."""
    page.locator(svg).scroll_into_view_if_needed()
    box = page.locator(svg).bounding_box()
    unit = box["width"] / 9.16
    return box["x"] + (c + 0.58) * unit, box["y"] + (r + 0.58) * unit


def enter_move(page, move: str, touch: bool = False):
    """Enter a move on the Follow page as a person does, by click (or by touch): a patch picked up from the
    circle, turned with the buttons to the move's orientation and put down on the mover's quilt; a 1×1 patch
    put on its cell; a pass with its button."""
    press = page.tap if touch else page.click
    view = followed(page)["view"]
    quilt = f"#fl-quilt-{view['current_player']}"
    if move == "advance":
        press("#fl-advance")
        return
    words = move.split()
    cells = [tuple(map(int, rc.split(","))) for rc in words[-1].split(";")]
    if words[0] == "buy":
        slot = [a["id"] for a in view["available"]].index(int(words[1])) + 1
        press(f"#fl-circle .patch-card[data-slot='{slot}']")
        page.wait_for_selector(f"{quilt}[data-held]", state="attached")
        want = shape_text(cells)
        for turn in range(8):
            if page.get_attribute(quilt, "data-orient") == want:
                break
            press("#fl-flip" if turn == 3 else "#fl-rotate")
        else:
            raise AssertionError(f"no orientation of {move} reached with the buttons")
    else:
        page.wait_for_selector(f"{quilt}[data-held='-1']", state="attached")
    h = max(r for r, _ in cells) - min(r for r, _ in cells) + 1
    w = max(c for _, c in cells) - min(c for _, c in cells) + 1
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    x, y = cell_point(page, quilt, r0 + (h - 1) // 2, c0 + (w - 1) // 2)   # the hand centres on the cell
    if touch:
        page.touchscreen.tap(x, y)                     # a tap shows the patch there
        assert page.get_attribute(f"{quilt} .held-piece", "data-legal") == "true"
        page.touchscreen.tap(*cell_point(page, quilt, *cells[0]))   # a tap on it puts it down
    else:
        page.mouse.click(x, y)


def choose(state: engine.GameState, i: int) -> engine.Action:
    """The move the tests play: the greedy player's, a pass now and then (the engine decides, not the page)."""
    if i % 4 == 3 and state.leather_to_place == 0:
        return engine.ADVANCE
    return GreedyPlayer().choose(state)


def enter_circle(page, circle: list[int]):
    """The circle entered three ways: the first patches clicked on the palette, the next typed, the rest typed
    and added with Enter."""
    for pid in circle[:6]:
        page.click(f"#setup-palette button[data-id='{pid}']")
    page.fill("#setup-ids", ", ".join(map(str, circle[6:20])))
    page.click("#setup-type button[type=submit]")
    page.fill("#setup-ids", " ".join(map(str, circle[20:])))
    page.press("#setup-ids", "Enter")


def no_overflow(page, root: str) -> list[str]:
    """Every visible element of ``root`` that is wider than its container (not counting one that scrolls its
    content on purpose, as the patch circle does, nor an SVG's inside)."""
    return page.evaluate("""(sel) => {
      const out = [];
      for (const el of document.querySelector(sel).querySelectorAll('*')) {
        if (!el.getClientRects().length || el.ownerSVGElement) continue;
        const parent = el.parentElement;
        if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(parent).overflowX)) continue;
        const a = el.getBoundingClientRect(), b = parent.getBoundingClientRect();
        if (a.right > b.right + 1 || a.left < b.left - 1) {
          out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className && el.className.baseVal === undefined ? el.className : ''} ${Math.round(a.left)}-${Math.round(a.right)} in ${Math.round(b.left)}-${Math.round(b.right)}`);
        }
      }
      return out;
    }""", root)


def page_width_overflow(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


# ---------------------------------------------------------------- a circle, ten moves, a reload

def test_a_circle_entered_then_ten_moves_followed_then_a_reload_keeps_the_game(pages, base_url, http, shots_dir):
    page = pages()
    open_page(page, base_url, "setup")
    # A repeated patch is named at once, next to the circle, with its entry marked; undo takes it back.
    for pid in TABLE[:4]:
        page.click(f"#setup-palette button[data-id='{pid}']")
    page.click(f"#setup-palette button[data-id='{TABLE[1]}']")
    page.wait_for_selector("#page-setup[data-circle-check=error]", state="attached")
    assert page.get_attribute("#setup-circle-msg", "data-field") == "circle[4]"
    assert f"patch {TABLE[1]} is listed twice" in page.text_content("#setup-circle-msg")
    assert page.get_attribute("#setup-circle li:nth-child(5) .chip", "aria-invalid") == "true"
    page.click("#setup-clear")
    # Patch 0 not last: the service says so once all 33 are in, next to the circle.
    enter_circle(page, [0] + TABLE[:-1])
    page.wait_for_selector("#page-setup[data-circle-check=error]", state="attached")
    assert page.get_attribute("#setup-circle-msg", "data-field") == "circle[32]"
    assert page.is_visible("#setup-circle-msg")
    page.click("#setup-clear")
    enter_circle(page, TABLE[:-1])
    page.click("#setup-palette button[data-id='5']")      # a slip: patch 5 again ...
    page.wait_for_selector("#page-setup[data-circle-check=error]", state="attached")
    page.click("#setup-undo")                             # ... taken back
    page.click("#setup-palette button[data-id='0']")
    page.wait_for_selector("#page-setup[data-circle-check=ok]", state="attached")
    page.screenshot(path=str(shots_dir / "web-setup.png"), full_page=True)
    assert page.get_attribute("#page-setup", "data-circle") == ",".join(map(str, TABLE))
    state = engine.GameState.from_circle(TABLE)
    assert page.get_attribute("#page-setup", "data-notation") == state.to_notation()
    # Analyse from setup: the analysis board on the circle's start.
    page.click("#setup-analyse")
    page.wait_for_selector(f"#page-analysis[data-notation='{state.to_notation()}']", state="attached")
    page.go_back()
    page.wait_for_selector("#page-setup:not([hidden])")
    page.wait_for_selector("#page-setup[data-circle-check=ok]", state="attached")

    page.click("#setup-follow")
    page.wait_for_selector("body[data-ready=follow]", state="attached")
    settled(page, 0)
    assert followed(page)["record"]["circle"] == TABLE and "seed" not in followed(page)["record"]
    movers = set()
    for i in range(10):
        move = choose(state, i)
        movers.add(state.current_player())
        enter_move(page, move.to_str())
        settled(page, i + 1)
        state.apply_action(move)
        g = followed(page)
        assert g["record"]["actions"][-1] == move.to_str()
        assert page.get_attribute("#page-follow", "data-notation") == state.to_notation()
    assert movers == {0, 1}
    page.screenshot(path=str(shots_dir / "web-follow.png"), full_page=True)

    # A hint and the evaluation bar on request: legal moves of this position, for the player to move.
    legal = {a.to_str() for a in state.legal_actions()}
    page.click("#fl-hint")
    page.wait_for_selector("#fl-hint-list li[data-move]")
    hinted = page.eval_on_selector_all("#fl-hint-list li", "els => els.map(e => e.dataset.move)")
    assert hinted and set(hinted) <= legal
    assert page.is_hidden("#fl-eval-panel")
    page.click("#fl-eval-toggle")
    wait_for(page, f"{FOLLOW}.evaluated === {json.dumps(state.to_notation())}", what="the evaluation")
    first = float(page.get_attribute("#fl-evalbar", "data-first"))
    assert 0 <= first <= 1
    best = page.eval_on_selector_all("#fl-best li", "els => els.map(e => e.dataset.move)")
    assert best and set(best) <= legal

    # Undo, and the same move again.
    last = followed(page)["record"]["actions"][-1]
    page.click("#fl-undo")
    settled(page, 9)
    before = engine.GameState.from_circle(TABLE)
    for text in followed(page)["record"]["actions"]:
        before.apply_action(engine.parse_action(text))
    assert page.get_attribute("#page-follow", "data-notation") == before.to_notation()
    enter_move(page, last)
    settled(page, 10)
    # the evaluation, once asked for, follows the moves
    wait_for(page, f"{FOLLOW}.evaluated === {json.dumps(state.to_notation())}", what="the evaluation again")

    # A reload keeps the game, and undo still works there (the game is played again from its start).
    page.reload()
    page.wait_for_selector("body[data-ready=follow]", state="attached")
    settled(page, 10)
    assert page.get_attribute("#page-follow", "data-notation") == state.to_notation()
    page.click("#fl-undo")
    settled(page, 9)
    assert page.get_attribute("#page-follow", "data-notation") == before.to_notation()
    enter_move(page, last)
    settled(page, 10)
    record = dict(followed(page)["record"], players=["human", "human"])
    assert engine.replay(record, check_result=False) == state

    # Kept under Recent like any game, and opened on the analysis board with its moves.
    kept = page.evaluate("() => JSON.parse(localStorage.getItem('quiltsolve.recent')).items"
                         ".filter(i => i.kind === 'follow').map(i => i.data.record.actions.length)")
    assert kept == [10]
    page.click("#fl-analyse")
    start = engine.GameState.from_circle(TABLE).to_notation()
    page.wait_for_selector(f"#page-analysis[data-notation='{state.to_notation()}']", state="attached")
    line = page.get_attribute("#page-analysis", "data-line")
    assert line == "~".join(record["actions"])
    assert page.evaluate("() => decodeURIComponent(location.hash)").startswith(f"#analysis?pos={start}")
    link = page.locator("#an-recent li[data-kind=follow] a")
    assert link.get_attribute("href").startswith("#follow?resume=")
    link.click()
    settled(page, 10)


# ---------------------------------------------------------------- the position editor

def _position() -> engine.GameState:
    """A position under way: greedy moves from a deal, before any 1×1 patch or bonus tile."""
    state = engine.new_game(14)
    for _ in range(9):
        state.apply_action(GreedyPlayer().choose(state))
    assert not state.leather_to_place and all(not p.bonus and not p.leather for p in state.players)
    return state


def test_a_position_painted_in_the_editor_opens_on_the_analysis_board(pages, base_url):
    state = _position()
    data = state.to_json()
    page = pages()
    open_page(page, base_url, "setup")
    page.click("#setup-mode-pos")
    for i, p in enumerate(data["players"]):
        svg = f"#pos-board-{i}"
        filled = [(r, c) for r, row in enumerate(p["board"]) for c, ch in enumerate(row) if ch == "#"]
        for r, c in filled:
            page.mouse.click(*cell_point(page, svg, r, c))
        assert page.get_attribute(svg, "data-rows") == "/".join(p["board"])
        page.fill(f"#pos-buttons-{i}", str(p["buttons"]))
        page.fill(f"#pos-position-{i}", str(p["position"]))
        page.check(f"input[name=pos-target][value='{i}']")
        page.fill("#pos-ids", ",".join(map(str, p["patches"])))
        page.click("#pos-type button[type=submit]")
        # the income follows the patches put on the quilt
        assert page.input_value(f"#pos-income-{i}") == str(p["income"])
    page.check(f"#pos-turn-{data['current_player']}")
    # Patches missing from the circle: the codec names it, shown next to the circle.
    page.wait_for_selector("#page-setup[data-pos-check=error]", state="attached")
    assert page.get_attribute("#pos-circle-msg", "data-field") == "state.circle"
    assert page.is_visible("#pos-circle-msg")
    page.check("input[name=pos-target][value=circle]")
    page.fill("#pos-ids", " ".join(map(str, data["circle"])))
    page.press("#pos-ids", "Enter")
    # A painted cell too many on player 2's quilt: named next to that quilt.
    free = next((r, c) for r, row in enumerate(data["players"][1]["board"]) for c, ch in enumerate(row) if ch == ".")
    page.mouse.click(*cell_point(page, "#pos-board-1", *free))
    page.wait_for_selector("#page-setup[data-pos-check=error]", state="attached")
    assert page.get_attribute("#pos-board-1-msg", "data-field") == "state.players[1].board"
    assert page.get_attribute("#pos-board-1", "aria-invalid") == "true"
    page.mouse.click(*cell_point(page, "#pos-board-1", *free))
    # Buttons beyond the codec's bounds: named next to the field.
    page.fill("#pos-buttons-0", "5000")
    page.wait_for_selector("#page-setup[data-pos-check=error]", state="attached")
    assert page.get_attribute("#pos-buttons-0-msg", "data-field") == "state.players[0].buttons"
    assert page.get_attribute("#pos-buttons-0", "aria-invalid") == "true"
    page.fill("#pos-buttons-0", str(data["players"][0]["buttons"]))
    page.wait_for_selector("#page-setup[data-pos-check=ok]", state="attached")
    assert page.input_value("#pos-notation") == state.to_notation()
    assert page.get_attribute("#pos-buttons-0", "aria-invalid") is None
    page.click("#pos-analyse")
    page.wait_for_selector(f"#page-analysis[data-notation='{state.to_notation()}']", state="attached")
    assert page.input_value("#an-notation") == state.to_notation()


# ---------------------------------------------------------------- a phone, by touch

def test_the_table_pages_work_by_touch_on_a_phone(pages, base_url, shots_dir):
    page = pages(PHONE, touch=True)
    open_page(page, base_url, "setup")
    assert page_width_overflow(page) <= 1
    assert no_overflow(page, "#page-setup") == []
    for pid in TABLE:
        page.tap(f"#setup-palette button[data-id='{pid}']")
    page.wait_for_selector("#page-setup[data-circle-check=ok]", state="attached")
    assert page_width_overflow(page) <= 1 and no_overflow(page, "#page-setup") == []
    page.screenshot(path=str(shots_dir / "web-setup-phone.png"), full_page=True)
    page.tap("#setup-follow")
    page.wait_for_selector("body[data-ready=follow]", state="attached")
    settled(page, 0)
    state = engine.GameState.from_circle(TABLE)
    for i in range(3):
        move = choose(state, i)
        enter_move(page, move.to_str(), touch=True)
        settled(page, i + 1)
        state.apply_action(move)
        assert page.get_attribute("#page-follow", "data-notation") == state.to_notation()
    page.tap("#fl-eval-toggle")
    wait_for(page, f"{FOLLOW}.evaluated === {json.dumps(state.to_notation())}", what="the evaluation")
    page.tap("#fl-hint")
    page.wait_for_selector("#fl-hint-list li[data-move]")
    assert page_width_overflow(page) <= 1
    assert no_overflow(page, "#page-follow") == []
    page.screenshot(path=str(shots_dir / "web-follow-phone.png"), full_page=True)
    page.tap("#fl-undo")
    settled(page, 2)

    # In every language (?lang=xx): the pages' words from its catalogue, and still no element too wide.
    static = Path(__file__).resolve().parents[2] / "src" / "quiltsolve" / "web" / "static" / "i18n"
    for lang in ("uk", "ko", "it"):
        words = json.loads((static / f"{lang}.json").read_text(encoding="utf-8"))
        for name in ("setup", "follow"):
            page.goto(f"{base_url}/?lang={lang}#{name}")
            page.wait_for_selector(f"body[data-ready={name}]", state="attached")
            assert page.get_attribute("html", "lang") == lang
            assert page.text_content(f"#{name}-title") == words[f"{name}.title"]
            if name == "setup":
                page.tap("#setup-mode-pos")
            else:
                settled(page, 2)
            assert page_width_overflow(page) <= 1, (lang, name)
            assert no_overflow(page, f"#page-{name}") == [], (lang, name)

    open_page(page, base_url, "setup")
    page.tap("#setup-mode-pos")
    page.touchscreen.tap(*cell_point(page, "#pos-board-0", 8, 0))
    assert page.get_attribute("#pos-board-0", "data-rows").split("/")[8] == "#........"
    page.tap("#pos-palette button[data-id='0']")
    page.wait_for_selector("#page-setup[data-pos-check=error]", state="attached")
    assert page_width_overflow(page) <= 1
    assert no_overflow(page, "#page-setup") == []
