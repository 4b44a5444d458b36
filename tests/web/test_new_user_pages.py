"""What a newcomer meets on the Play, Analysis and Puzzles pages (issue 36), in headless Chromium.

Each test names the defect it guards; each also asserts that the page raised no error (and the
``pages`` factory fails the test on any page error, console error or foreign request as well).
"""

from __future__ import annotations

import json
import re

import pytest

from quiltsolve import engine
from quiltsolve.engine.players import GreedyPlayer

from .test_browser import (PHONE, PLAY, board_settled, game, idle_after, new_game, open_page, page_factory,
                           wait_for)

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def pages(browser, base_url):
    yield from page_factory(browser, base_url)


def page_errors(page) -> list[str]:
    """The page's uncaught errors from now on (a list that fills as they happen)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _luminance(rgb: tuple[float, float, float]) -> float:
    lin = [v / 255 / 12.92 if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(ink: str, background: str) -> float:
    """WCAG contrast of ``ink`` (CSS ``rgb(...)``/``rgba(...)``, its alpha blended) on ``background`` (``#rrggbb``)."""
    bg = tuple(int(background[i:i + 2], 16) for i in (1, 3, 5))
    parts = [float(x) for x in re.findall(r"[\d.]+", ink)]
    alpha = parts[3] if len(parts) == 4 else 1.0
    fg = tuple(alpha * parts[i] + (1 - alpha) * bg[i] for i in range(3))
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def seam_segments(page, svg: str) -> set[tuple[str, int, int]]:
    """The unit seam segments drawn in ``svg``: ('h', row, col) above cell (row, col), ('v', row, col) left of it."""
    d = page.evaluate(f"() => [...document.querySelectorAll('{svg} .seams path')]"
                      ".map(p => p.getAttribute('d')).join('')")
    return {("h" if kind == "h" else "v", int(y), int(x)) for x, y, kind in re.findall(r"M(\d+) (\d+)([hv])1", d)}


def set_region_size(page, rows: int, cols: int):
    page.fill("#pz-h", str(rows))
    page.dispatch_event("#pz-h", "change")
    page.fill("#pz-w", str(cols))
    page.dispatch_event("#pz-w", "change")


# ---------------------------------------------------------------- Puzzles (defects 2, 3, 4)

def test_each_copy_of_an_unlimited_piece_is_drawn_with_its_own_outline(pages, base_url, http, shots_dir):
    """Defect 2: twelve dominoes in a 4 × 6 region are twelve outlined copies, not one orange block."""
    page = pages()
    errors = page_errors(page)
    open_page(page, base_url, "puzzles")
    set_region_size(page, 4, 6)
    page.fill("#pz-pieces", "D: ## x*")
    page.dispatch_event("#pz-pieces", "input")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status:has-text('1 tiling found')")
    cells = page.evaluate("() => [...document.querySelectorAll('#pz-answer rect.cell')].map(r => [Number(r.dataset.r), "
                          "Number(r.dataset.c), r.dataset.copy, r.dataset.piece, r.getAttribute('fill')])")
    copy_of = {(r, c): copy for r, c, copy, _, _ in cells}
    assert sorted(copy_of) == [(r, c) for r in range(4) for c in range(6)]
    assert {piece for *_, piece, _ in cells} == {"0"}   # all one kind of piece...
    assert len(set(copy_of.values())) == 12             # ...in twelve copies
    assert page.get_attribute("#pz-answer", "data-copies") == "12"
    # The copies are the API's placements, each a domino.
    rows = page.evaluate("() => document.getElementById('pz-region').dataset.rows").split("/")
    api = http.post("/api/v1/solve-puzzle", json={"region": {"rows": rows}, "unlimited_pieces": ["##"],
                                                  "mode": "PUZZLE_MODE_FIND", "max_tilings": 1}).json()
    placements = api["tilings"][0]["placements"]
    assert len(placements) == 12
    drawn = sorted(sorted((r, c) for (r, c), k in copy_of.items() if k == copy) for copy in set(copy_of.values()))
    assert drawn == sorted(sorted((x.get("row", 0), x.get("col", 0)) for x in p["cells"]) for p in placements)
    # Between two neighbouring cells of different copies a seam is drawn; inside a copy none is.
    seams = seam_segments(page, "#pz-answer")
    for (r, c), k in copy_of.items():
        if (r, c + 1) in copy_of:
            assert (("v", r, c + 1) in seams) == (copy_of[(r, c + 1)] != k), (r, c)
        if (r + 1, c) in copy_of:
            assert (("h", r + 1, c) in seams) == (copy_of[(r + 1, c)] != k), (r, c)
    # Copies of one piece differ in shade too, and each copy carries its label.
    assert len({fill for *_, fill in cells}) > 1
    labels = page.evaluate("() => [...document.querySelectorAll('#pz-answer .tile-label')]"
                           ".map(t => [t.dataset.copy, t.textContent])")
    assert sorted(int(k) for k, _ in labels) == list(range(12)) and {t for _, t in labels} == {"D"}
    # Every label reads against its copy's shade: WCAG contrast of at least 3 (large text).
    inks = page.evaluate("() => [...document.querySelectorAll('#pz-answer .tile-label')]"
                         ".map(t => [t.dataset.copy, getComputedStyle(t).fill])")
    fill_of = {copy: fill for _, _, copy, _, fill in cells}
    for copy, ink in inks:
        assert contrast(ink, fill_of[copy]) >= 3, (copy, ink, fill_of[copy])
    page.locator("#pz-result").screenshot(path=str(shots_dir / "web-puzzles-copies.png"))
    assert errors == []


def test_a_puzzle_error_goes_once_a_new_puzzle_is_made(pages, base_url):
    """Defect 3: the solver's "pieces[0]" error does not outlive a successful new puzzle; the new-puzzle card's
    message does not outlive a successful solve."""
    page = pages()
    errors = page_errors(page)
    open_page(page, base_url, "puzzles")
    page.fill("#pz-pieces", "A: #.#\nB: ##")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-msg[data-field='pieces[0]']")
    assert page.is_visible("#pz-msg")
    page.select_option("#gen-family", "PIECE_FAMILY_TETROMINOES")
    page.fill("#gen-seed", "1")
    page.click("#gen-new")
    page.wait_for_selector("#gen-status[data-status]")
    assert page.get_attribute("#gen-status", "data-status") in ("SOLVE_STATUS_OPTIMAL", "SOLVE_STATUS_FEASIBLE")
    assert page.is_hidden("#pz-msg") and page.text_content("#pz-msg") == ""
    page.click("#gen-solution")
    page.click("#gen-check")
    assert page.get_attribute("#gen-verdict", "data-complete") == "true"
    assert page.is_hidden("#pz-msg")
    # The other way round: a message of the new-puzzle card (a piece put down nowhere) goes when a solve succeeds.
    page.click("#gen-clear")
    page.click("#gen-tray figure[data-piece='0']")
    page.keyboard.press("Enter")
    page.wait_for_selector("#gen-msg:not([hidden])")
    page.fill("#pz-pieces", "D: ## x*")
    page.dispatch_event("#pz-pieces", "input")
    set_region_size(page, 2, 2)
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status:has-text('tiling')")
    assert page.is_hidden("#gen-msg") and page.is_hidden("#pz-msg")
    assert errors == []


def selected_preset(page) -> tuple[str, str]:
    return tuple(page.evaluate("() => { const s = document.getElementById('pz-preset'); "
                               "return [s.value, s.options[s.selectedIndex].textContent]; }"))


def test_the_preset_select_follows_the_region(pages, base_url):
    """Defect 4: rows and columns changed by hand make the preset read "custom"; a preset sets everything."""
    page = pages()
    errors = page_errors(page)
    open_page(page, base_url, "puzzles")
    assert selected_preset(page) == ("6x10", "6 × 10 rectangle")
    set_region_size(page, 10, 10)
    assert selected_preset(page) == ("custom", "custom")
    set_region_size(page, 6, 10)   # back to the rectangle's size, every cell in: the preset again
    assert selected_preset(page)[0] == "6x10"
    page.click("#pz-region rect.cell[data-r='2'][data-c='3']")   # one cell out: no longer the rectangle
    assert page.get_attribute("#pz-region rect.cell[data-r='2'][data-c='3']", "data-in") == "0"
    assert selected_preset(page)[0] == "custom"
    page.select_option("#pz-preset", "8x8-hole")
    assert (page.input_value("#pz-h"), page.input_value("#pz-w")) == ("8", "8")
    rows = page.get_attribute("#pz-region", "data-rows").split("/")
    assert rows == ["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3
    assert selected_preset(page)[0] == "8x8-hole"
    page.select_option("#pz-preset", "5x12")
    assert (page.input_value("#pz-h"), page.input_value("#pz-w")) == ("5", "12")
    assert page.get_attribute("#pz-region", "data-rows") == "/".join(["." * 12] * 5)
    page.click("#page-puzzles summary:has-text('Paste rows')")
    page.fill("#pz-rows", "...\n.#.")
    page.click("#pz-rows-use")
    assert selected_preset(page) == ("custom", "custom")
    assert errors == []


# ---------------------------------------------------------------- Play (defects 5, 8, 9)

def test_the_hint_panel_shows_one_win_chance_per_move(pages, base_url, http):
    """Defect 5: one calibrated percentage per move; the raw playout rate only in a title."""
    page = pages()
    errors = page_errors(page)
    new_game(page, base_url, seed=3)
    page.keyboard.press("a")
    idle_after(page, 0)
    page.keyboard.press("h")
    page.wait_for_selector("#play-hint-list li")
    hint = page.evaluate("() => window.quiltsolveDebug.hint")
    api = http.post("/api/v1/suggest-move", json={"state": game(page)["state"], **hint}).json()
    assert not api["proven"]
    rows = page.evaluate("""() => [...document.querySelectorAll('#play-hint-list li')].map(li => ({
        move: li.dataset.move,
        text: [...li.children].filter(c => c.tagName !== 'BUTTON').map(c => c.textContent).join(' '),
        pct: li.querySelector('.pct').textContent, why: li.querySelector('.why').textContent,
        title: li.querySelector('.why').title}))""")
    assert [r["move"] for r in rows] == [s["move"]["text"] for s in api["suggestions"]]
    raw_rates = 0
    for row, s in zip(rows, api["suggestions"], strict=True):
        assert re.findall(r"\d+%", row["text"]) == [f"{round(s['win_chance'] * 100)}%"], row
        assert row["pct"] == f"{round(s['win_chance'] * 100)}%"
        raw = re.search(r"won \d+% of \d+ playouts", s["reason"])
        if raw:   # the API's raw rate: in the tooltip, not in the text
            raw_rates += 1
            assert raw.group(0) in row["title"] and "playouts" not in row["why"], row
            assert row["why"].startswith(s["reason"][:raw.start()].rstrip(" ,:")), row   # what the move does stays
    assert raw_rates, "no suggestion carried a playout rate: the test position proves nothing"
    assert errors == []


def near_the_end_record(seed: int, left: int) -> tuple[dict, int]:
    """A greedy v greedy game of deal ``seed`` stopped ``left`` plies before its end: (record, player to move)."""
    state = engine.new_game(seed)
    circle = list(state.circle)
    actions = []
    while not state.is_terminal():
        a = GreedyPlayer().choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    actions = actions[:-left]
    state = engine.GameState.from_circle(circle)
    for text in actions:
        state.apply_action(engine.parse_action(text))
    return {"edition": "revised", "seed": seed, "circle": circle, "actions": actions}, state.current_player()


def finish_by_advancing(page):
    """Play the human's moves (advance; a won leather patch on the solver's spot) until the game is over."""
    for _ in range(60):
        if page.evaluate(f"{PLAY}.turn") == "over":
            return
        g = game(page)
        plies = len(g["record"]["actions"])
        if g["view"]["leather_to_place"]:
            page.wait_for_selector("#play-quilt-human .ghost", state="attached")
            page.keyboard.press("g")
        else:
            page.keyboard.press("a")
        idle_after(page, plies)
    raise AssertionError("the game does not end")


def test_the_end_of_a_game_offers_review_and_analysis(pages, base_url, shots_dir):
    """Defect 8: a finished game opens the Review page reviewing it, and the analysis board at it, in one click."""
    record, mover = near_the_end_record(seed=11, left=6)
    page = pages()
    errors = page_errors(page)
    open_page(page, base_url, "play")
    wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game() !== null", what="the first deal")
    assert page.is_hidden("#play-over")
    page.select_option("#play-side", str(mover))
    page.click("#play-paste-toggle")
    page.fill("#play-paste-text", json.dumps(record))
    page.click("#play-paste button[type=submit]")
    wait_for(page, f"{PLAY}.busy === '0' && Number({PLAY}.plies) >= {len(record['actions'])}", what="the record")
    assert page.text_content("#play-human-stats [data-stat=score]").startswith("score if the game ended now")
    assert page.input_value("#play-seed") == str(record["seed"])      # the Deal field names the pasted deal
    finish_by_advancing(page)
    assert page.text_content("#play-status").startswith("Game over")
    assert page.is_visible("#play-over") and page.is_enabled("#play-review-game")
    page.screenshot(path=str(shots_dir / "web-play-over.png"))
    # at the end the score is the final one, and says so plainly
    assert re.fullmatch(r"score -?\d+", page.text_content("#play-human-stats [data-stat=score]").strip())
    final = game(page)
    actions = final["record"]["actions"]
    assert len(actions) > len(record["actions"]) and actions[:len(record["actions"])] == record["actions"]

    page.click("#play-review-game")
    page.wait_for_selector("body[data-ready=review]", state="attached")
    page.wait_for_selector("#page-review[data-step='0']", state="attached")
    assert page.is_visible("#review-body")
    assert json.loads(page.input_value("#review-text"))["actions"] == actions
    assert page.evaluate("() => document.getElementById('review-slider').max") == str(len(actions))
    # reviewing at once: the evaluations stream in without another click
    wait_for(page, "Number(document.getElementById('page-review').dataset.reviewed) > 0", what="the review")

    page.go_back()
    page.wait_for_selector("body[data-ready=play]", state="attached")
    page.wait_for_selector("#play-over:not([hidden])")
    page.click("#play-analyse-game")
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    d = board_settled(page, ".".join(["0"] * len(actions)))
    assert d["notation"] == final["view"]["notation"] and d["line"] == "~".join(actions)
    assert d["turn"] == "over"
    tree = page.evaluate("() => window.quiltsolveAnalysis.tree()")
    assert tree["n"] == engine.GameState.from_circle(record["circle"]).to_notation()
    assert errors == []


def test_a_ten_digit_deal_fits_and_round_trips(pages, base_url):
    """Defect 9: the Deal field shows a ten-digit seed whole and takes the API's largest one (2^31 - 1)."""
    for viewport in ({"width": 1280, "height": 900}, PHONE):
        page = pages(viewport)
        errors = page_errors(page)
        open_page(page, base_url, "play")
        wait_for(page, f"{PLAY}.busy === '0'", what="the first deal")
        page.fill("#play-seed", "2147483647")
        fits = page.evaluate("() => { const i = document.getElementById('play-seed'); "
                             "return [i.scrollWidth, i.clientWidth]; }")
        assert fits[0] <= fits[1], f"the deal is cut at {viewport['width']}px: {fits}"
        page.click("#play-new")
        wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game().record.seed === 2147483647",
                 what="a game of deal 2147483647")
        assert page.input_value("#play-seed") == "2147483647"
        assert game(page)["record"]["seed"] == 2147483647
        assert errors == []


def token_boxes(page, svg: str) -> list[dict]:
    return [page.locator(f"{svg} circle.token[data-player='{i}']").bounding_box() for i in (0, 1)]


def overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_two_tokens_on_one_space_do_not_overlap_and_the_score_says_what_it_is(pages, base_url):
    """Defect 9: at the start both tokens stand on space 0: both are wholly visible. The score before the end
    says it is the score if the game ended now."""
    page = pages()
    errors = page_errors(page)
    new_game(page, base_url, seed=5)
    assert [p["position"] for p in game(page)["view"]["players"]] == [0, 0]
    a, b = token_boxes(page, "#play-track")
    assert a["width"] > 0 and b["width"] > 0 and not overlap(a, b), (a, b)
    assert page.text_content("#play-human-stats [data-stat=score]").strip() == \
        f"score if the game ended now {game(page)['view']['players'][game(page)['human']]['score']}"
    open_page(page, base_url, "analysis")
    assert board_settled(page, "")["line"] == ""   # a new deal: both tokens on space 0 again
    a, b = token_boxes(page, "#an-track")
    assert not overlap(a, b), (a, b)
    assert page.text_content("#an-stats-0 [data-stat=score]").startswith("score if the game ended now ")
    assert errors == []


def test_opening_analysis_adds_nothing_to_recent_until_a_move(pages, base_url):
    """Defect 9: merely opening the Analysis page lists nothing under Recent; the first move does."""
    page = pages()
    errors = page_errors(page)
    open_page(page, base_url, "analysis")
    board_settled(page, "")
    listed = "async () => (await import('/js/store.js')).listRecent('analysis').map(it => it.title)"
    assert page.evaluate(listed) == []
    assert page.locator("#an-recent li[data-kind=analysis]").count() == 0
    page.reload()   # and reopening it does not either
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    board_settled(page, "")
    assert page.evaluate(listed) == []
    page.keyboard.press("a")
    board_settled(page, "0")
    titles = page.evaluate(listed)
    assert len(titles) == 1 and titles[0].endswith("(1 move)"), titles
    page.wait_for_selector("#an-recent li[data-kind=analysis]")
    assert errors == []


def test_no_key_hints_on_a_phone(pages, base_url):
    """Defect 9: at 390 px (touch) no text speaks of keys; on the desktop the hints stay."""
    phone = pages(PHONE, touch=True)
    errors = page_errors(phone)
    new_game(phone, base_url, seed=5)
    for name in ("play", "analysis"):
        open_page(phone, base_url, name)
        if name == "analysis":
            board_settled(phone)
        text = phone.inner_text("body")
        offending = [ln for ln in text.splitlines() if "key" in ln.lower() or "1–3" in ln]
        assert "keys" not in text.lower() and "(1–3)" not in text, (name, offending)
    desktop = pages()
    open_page(desktop, base_url, "play")
    desktop.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
    assert "(keys 1–3)" in desktop.inner_text("#page-play")
    assert errors == []
