"""The Review page's "Learn from your mistakes" drill in headless Chromium (issue 36).

A real patch is placed by the pointer and by the keys and its try evaluated with no page error; a try of the
engine's best move shows the review's own figure (one win chance per move); the global banner goes when a new
review succeeds; the plot's mistake glyphs sit clear of their rings; the drill's buttons draw their costs with
the circle's SVG icons (Debian's fonts have no hourglass character). The page fixture is test_browser.py's,
reduced: every page is checked for page errors, console errors and foreign requests.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from .test_browser import open_page, page_factory, shape_text, wait_for

pytestmark = pytest.mark.timeout(300)

REVIEW = "document.getElementById('page-review').dataset"


@pytest.fixture
def pages(browser, base_url):
    """test_browser.py's factory of checked pages; ``pages.problems[page]`` lists a page's problems so far."""
    yield from page_factory(browser, base_url)


def cells_of_move(text: str) -> list[tuple[int, int]]:
    words = text.split()
    part = words[2] if words[0] == "buy" else words[1]
    return [tuple(map(int, rc.split(","))) for rc in part.split(";")]


def review_sample(page, base_url):
    """The issue's steps: Review, "Load a sample game" (greedy v random), reviewed at 60 iterations a move."""
    open_page(page, base_url, "review")
    page.select_option("#review-depth", "it:60")
    page.click("#review-sample")
    wait_for(page, f"Number({REVIEW}.reviewed) > 0 && "
                   f"{REVIEW}.reviewed === String(document.querySelectorAll('#review-moves li').length)",
             timeout=240, what="the sample game reviewed")


def review_record(page, base_url, record: dict):
    open_page(page, base_url, "review")
    page.fill("#review-text", json.dumps(record))
    page.select_option("#review-depth", "it:60")
    page.click("#review-go")
    wait_for(page, f"{REVIEW}.reviewed === '{len(record['actions'])}'", timeout=200, what="the whole review")


def learn_from(page, player: int, at: int = 0):
    """Start the drill on ``player``'s mistakes (0-based) and wait for exercise ``at``'s choices."""
    page.select_option("#learn-player", str(player))
    page.click("#review-learn")
    wait_for(page, f"{REVIEW}.learnAt === '{at}'", what="the first exercise")
    wait_for(page, "document.querySelector('#learn-patches button') || "
                   "document.getElementById('learn-patches').textContent.includes('leather')", what="the choices")


def drill_state(page, http) -> dict:
    """The position of the exercise on screen: the reviewed record played to the step shown."""
    record = json.loads(page.input_value("#review-text"))
    ply = int(page.get_attribute("#page-review", "data-step"))
    return http.post("/api/v1/game/load", json={"text": json.dumps(record), "plies": ply}).json()["state"]


def legal_for(http, state: dict, pid: int) -> list[str]:
    return http.post("/api/v1/game/legal", json={"state": state, "patch_id": pid}).json()["actions"]


def buyable_patches(page) -> list[tuple[int, int]]:
    """(slot, patch id) of the drill's patch buttons that can be bought (the buttons in the circle's order)."""
    return page.evaluate("() => [...document.querySelectorAll('#learn-patches button')]"
                         ".map((b, i) => [i + 1, Number(b.dataset.patch), b.disabled])"
                         ".filter(([, , off]) => !off).map(([slot, pid]) => [slot, pid])")


def turn_to(page, quilt: str, legal: list[str], turn) -> str:
    """Turn the held patch (``turn(i)``: by button or key) until a legal placement has its orientation."""
    for i in range(8):
        orient = page.get_attribute(quilt, "data-orient")
        matching = [a for a in legal if shape_text(cells_of_move(a)) == orient]
        if matching:
            return matching[len(matching) // 2]
        turn(i)
    raise AssertionError("no orientation of the patch matches a legal placement")


def wait_for_try(page, move: str) -> float:
    """The win chance the drill shows for the try ``move`` (its line reads 'thinking…' until it is evaluated)."""
    wait_for(page, f"document.getElementById('learn-result').textContent.startsWith({json.dumps(f'Your try {move}:')}) "
                   "&& document.getElementById('learn-result').dataset.chance !== undefined",
             timeout=90, what=f"the try {move} evaluated")
    return float(page.get_attribute("#learn-result", "data-chance"))


def place_by_keys(page, quilt: str, slot: int, legal: list[str]) -> str:
    """Pick the patch of ``slot`` up with its key, turn it with R/F, move it with the arrows, put it down with
    Enter (as on the Play page)."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(str(slot))
    page.wait_for_selector(f"{quilt}[data-held]", state="attached")
    target = turn_to(page, quilt, legal, lambda i: page.keyboard.press("f" if i == 3 else "r"))
    cells = cells_of_move(target)
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    page.keyboard.press("ArrowDown")      # the first press shows the patch in the middle of the quilt
    pr, pc = map(int, page.get_attribute(quilt, "data-pos").split(","))
    for key, n in (("ArrowDown", r0 - pr), ("ArrowUp", pr - r0), ("ArrowRight", c0 - pc), ("ArrowLeft", pc - c0)):
        for _ in range(max(0, n)):
            page.keyboard.press(key)
    assert page.get_attribute(quilt, "data-pos") == f"{r0},{c0}"
    assert page.get_attribute(f"{quilt} .held-piece", "data-legal") == "true"
    page.keyboard.press("Enter")
    return target


def place_by_mouse(page, quilt: str, slot: int, legal: list[str], problems: list[str]) -> str:
    """Click the patch's button, turn it with the Rotate/Flip buttons, move the pointer over the quilt until it
    covers a legal placement, click."""
    page.locator("#learn-patches button").nth(slot - 1).click()
    # the steps: a patch picked, the pointer over the quilt: the patch is drawn there, with no error
    page.hover(f"{quilt} rect.cell[data-r='4'][data-c='4']")
    assert problems == []
    page.wait_for_selector(f"{quilt} .held-piece", state="attached", timeout=5_000)
    target = turn_to(page, quilt, legal, lambda i: page.click("#learn-flip" if i == 3 else "#learn-rotate"))
    cells = cells_of_move(target)
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    h = max(r for r, _ in cells) - r0 + 1
    w = max(c for _, c in cells) - c0 + 1
    # the patch is centred on the cell under the pointer: the cell that puts its corner on (r0, c0)
    cell = f"{quilt} rect.cell[data-r='{r0 + (h - 1) // 2}'][data-c='{c0 + (w - 1) // 2}']"
    page.hover(f"{quilt} rect.cell[data-r='0'][data-c='0']")     # moves across the quilt first
    page.hover(cell)
    assert page.get_attribute(quilt, "data-pos") == f"{r0},{c0}"
    assert page.get_attribute(f"{quilt} .held-piece", "data-legal") == "true"
    page.click(cell)
    return target


def test_the_drill_places_a_real_patch_by_mouse_and_by_keys_without_a_page_error(pages, base_url, http, shots_dir):
    page = pages()
    review_sample(page, base_url)
    learn_from(page, 1)       # random's mistakes
    quilt = "#review-quilt-1"
    state = drill_state(page, http)
    slot, pid = buyable_patches(page)[0]
    tried = place_by_mouse(page, quilt, slot, legal_for(http, state, pid), pages.problems[page])
    chance = wait_for_try(page, tried)
    assert 0 <= chance <= 1 and f"Your try {tried}: win chance" in page.text_content("#learn-result")
    assert page.get_attribute(f"{quilt} .last", "data-move") == tried    # the try drawn on the quilt
    assert page.get_attribute(quilt, "data-held") is None                # and the patch put down
    # the same exercise again, by the keys, with the last patch in front that can be bought
    slot, pid = buyable_patches(page)[-1]
    tried = place_by_keys(page, quilt, slot, legal_for(http, state, pid))
    chance = wait_for_try(page, tried)
    assert 0 <= chance <= 1 and f"Your try {tried}: win chance" in page.text_content("#learn-result")
    assert page.get_attribute(f"{quilt} .last", "data-move") == tried
    page.click("#learn-answer")
    assert "The engine's answer" in page.text_content("#learn-result")
    page.screenshot(path=str(shots_dir / "web-review-learn.png"), full_page=True)
    assert pages.problems[page] == []
    assert page.is_hidden("#global-msg") and page.is_hidden("#review-msg")


def test_the_drill_buttons_draw_their_costs_with_svg_icons(pages, base_url, http):
    page = pages()
    review_sample(page, base_url)
    learn_from(page, 1)
    buttons = page.evaluate("() => [...document.querySelectorAll('#learn-box button')].map(b => ({"
                            "text: b.textContent, icons: b.querySelectorAll('svg.ic').length}))")
    assert buttons and not [b for b in buttons if "\u29d7" in b["text"]]
    patch_buttons = page.evaluate("() => [...document.querySelectorAll('#learn-patches button')].map(b => ({"
                                  "pid: Number(b.dataset.patch), text: b.textContent,"
                                  "time: !!b.querySelector('svg.ic path.h'), button: !!b.querySelector('svg.ic circle.b')}))")
    patches = {p["id"]: p for p in http.get("/api/v1/patches").json()["patches"]}
    assert patch_buttons
    for b in patch_buttons:
        assert b["time"] and b["button"], b            # the hourglass and the button are the circle's SVG icons
        p = patches[b["pid"]]
        assert f"patch {p['id']} {p['buttons']} {p['time']}" in " ".join(b["text"].split()), b
    assert "\u29d7" not in page.text_content("body")


def review_items(http, page) -> list[dict]:
    """The review the page streamed, asked of the API with the page's settings (60 iterations, seed 0)."""
    record = json.loads(page.input_value("#review-text"))
    return http.post("/api/v1/analyze-game?format=json", json={
        "record": {"edition": f"EDITION_{record['edition'].upper()}", "circle": record["circle"],
                   "actions": record["actions"]},
        "iterations": 60, "seed": 0}).json()["items"]


def play_try(page, http, quilt: str, move: str):
    """Try ``move`` in the drill: Advance, a leather cell clicked, or a buy placed by the keys."""
    if move == "advance":
        page.click("#learn-advance")
    elif move.startswith("leather"):
        (r, c), = cells_of_move(move)
        page.click(f"{quilt} rect.cell[data-r='{r}'][data-c='{c}']")
    else:
        pid = int(move.split()[1])
        slot = next(s for s, p in buyable_patches(page) if p == pid)
        assert place_by_keys(page, quilt, slot, [move]) == move


def percents(text: str) -> tuple[int, int]:
    """The try's figure and the engine's answer's figure in the drill's result line."""
    tried = re.search(r"Your try .*?: win chance (\d+)%", text)
    answer = re.search(r"The engine's answer: .*\((\d+)%\)\.", text)
    assert tried and answer, text
    return int(tried.group(1)), int(answer.group(1))


def test_the_drill_shows_one_figure_per_move(pages, base_url, http):
    page = pages()
    review_sample(page, base_url)
    items = review_items(http, page)
    queue = [x for x in items if x["player"] == 1 and x.get("label") in ("MOVE_LABEL_MISTAKE", "MOVE_LABEL_BLUNDER")]
    # The drill's exercises in order, up to the last one where a patch could be bought (the last part tries
    # another patch there); which moves are mistakes follows the win-chance model.
    buys = [i for i, x in enumerate(queue) if "buy" in (x["played"]["text"].split()[0], x["best"]["text"].split()[0])]
    assert buys, queue
    queue = queue[:buys[-1] + 1]
    assert len(queue) >= 2
    learn_from(page, 1)
    quilt = "#review-quilt-1"
    kinds = set()
    for k, item in enumerate(queue):
        if k:
            page.click("#learn-next")
            wait_for(page, f"{REVIEW}.learnAt === '{k}'", what=f"exercise {k}")
            wait_for(page, "!!document.querySelector('#learn-patches button') || "
                           "document.getElementById('learn-patches').textContent.includes('leather')",
                     what="the choices")
        # the engine's best move: the review's own figure, the same as the engine's answer shows
        best = item["best"]["text"]
        kinds.add(best.split()[0])
        play_try(page, http, quilt, best)
        chance = wait_for_try(page, best)
        assert chance == pytest.approx(item["value_best"], abs=1e-4)
        assert page.get_attribute("#learn-result", "data-source") == "best"
        page.click("#learn-answer")
        tried, answer = percents(page.text_content("#learn-result"))
        assert tried == answer == round(item["value_best"] * 100)
    assert "buy" in kinds         # a real patch among the best moves placed
    # the game's move shows the review's value_played; any other try is evaluated once: again, the same figure
    played = queue[-1]["played"]["text"]
    play_try(page, http, quilt, played)
    assert wait_for_try(page, played) == pytest.approx(queue[-1]["value_played"], abs=1e-4)
    assert page.get_attribute("#learn-result", "data-source") == "played"
    state = drill_state(page, http)
    slot, pid = buyable_patches(page)[0]
    other = next(a for a in legal_for(http, state, pid) if a not in (played, queue[-1]["best"]["text"]))
    figures = []
    for source in ("search", "cache"):
        play_try(page, http, quilt, other)
        figures.append(wait_for_try(page, other))
        assert page.get_attribute("#learn-result", "data-source") == source
    assert figures[0] == figures[1]
    assert pages.problems[page] == []


def test_the_mistake_glyphs_sit_clear_of_their_rings(pages, base_url):
    page = pages()
    review_sample(page, base_url)
    boxes = page.evaluate("""() => {
        const svg = document.getElementById('review-plot');
        const vb = svg.viewBox.baseVal;
        return [...svg.querySelectorAll('circle.mistake')].map((ring) => {
            const glyph = [...svg.querySelectorAll('text.glyph')].find((t) => t.getAttribute('x') === ring.getAttribute('cx'));
            const b = (e) => { const r = e.getBBox(); return [r.x, r.y, r.x + r.width, r.y + r.height]; };
            const stroke = parseFloat(getComputedStyle(ring).strokeWidth) / 2;
            const [x0, y0, x1, y1] = b(ring);
            return { ply: ring.dataset.ply, ring: [x0 - stroke, y0 - stroke, x1 + stroke, y1 + stroke],
                     glyph: glyph && b(glyph), text: glyph && glyph.textContent,
                     halo: glyph && getComputedStyle(glyph).paintOrder, plot: [vb.x, vb.y, vb.x + vb.width, vb.y + vb.height] };
        });
    }""")
    labelled = [b for b in boxes if b["glyph"]]
    assert labelled, boxes         # the sample's large mistakes carry ? or ??
    for b in labelled:
        (gx0, gy0, gx1, gy1), (rx0, ry0, rx1, ry1) = b["glyph"], b["ring"]
        apart = gx1 <= rx0 or rx1 <= gx0 or gy1 <= ry0 or ry1 <= gy0
        assert apart, b
        px0, py0, px1, py1 = b["plot"]
        assert px0 <= gx0 and py0 <= gy0 and gx1 <= px1 and gy1 <= py1, b      # inside the plot, not clipped
        assert b["halo"].startswith("stroke"), b                               # a halo of the card's colour
    # the quilts' stats: the final score at the end, the score "if the game ended now" before it
    page.click("#review-last")
    assert re.search(r"· score -?\d+", page.text_content("#review-stats-0"))
    page.click("#review-first")
    page.keyboard.press("ArrowRight")
    wait_for(page, "document.getElementById('review-stats-0').textContent.includes('if the game ended now')",
             what="the score before the end says what it is")


def short_record(plies: int = 6) -> dict:
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

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


def test_the_global_banner_goes_when_a_new_review_succeeds(pages, base_url):
    page = pages()
    open_page(page, base_url, "review")
    # an error no page handled: main.js's window listener shows the banner (a dispatched event, not a thrown
    # error, so that the fixture's page-error check stays meaningful)
    page.evaluate("() => window.dispatchEvent(new ErrorEvent('error', { message: 'the drill failed' }))")
    assert page.is_visible("#global-msg")
    assert "the drill failed" in page.text_content("#global-msg")
    time.sleep(0.5)
    assert page.is_visible("#global-msg")      # it stays until an action succeeds
    rec = short_record()
    page.fill("#review-text", json.dumps(rec))
    page.select_option("#review-depth", "it:60")
    page.click("#review-go")
    page.wait_for_selector("#page-review[data-step='0']", state="attached")
    page.wait_for_selector("#global-msg", state="hidden")
    wait_for(page, f"{REVIEW}.reviewed === '{len(rec['actions'])}'", timeout=120, what="the review")
    assert page.is_hidden("#global-msg")
