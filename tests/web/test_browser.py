"""The browser app in real headless Chromium (Playwright): every human move through clicks and keys.

Skipped, with one closing line saying so, where there is no Chromium. The
pages run under their own Content-Security-Policy (no ``bypass_csp``), and
every test fails on a page error or on any request that leaves the server.
Screenshots go to ``QUILTSOLVE_SCREENSHOTS`` (``docs/img`` to refresh the
docs) or a temporary folder.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest

from quiltsolve import engine
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer
from quiltsolve.solver import Shape

pytestmark = pytest.mark.timeout(240)

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def pages(browser, base_url):
    """A factory of fresh pages; each is checked for page errors and foreign requests at the end."""
    yield from page_factory(browser, base_url)


# The pages' inspectors (each module's ``inspect``: Play's game, held patch and hint budget, the analysis
# board's tree, the new puzzle's pieces) as window globals, put there by the tests: the shipped app has
# none. Each module is the app's own instance (one module map a page), imported as a page of the server opens.
INSPECTORS = """
if (location.protocol.startsWith('http')) {
  for (const [name, path] of [['quiltsolveDebug', '/js/play.js'], ['quiltsolveAnalysis', '/js/analysis.js'],
                              ['quiltsolveGenerate', '/js/generate.js']]) {
    import(path).then((m) => {
      Object.defineProperty(window, name, { value: m.inspect, configurable: true });
    }).catch(() => {});
  }
}
"""


def test_the_shipped_app_has_no_debug_global():
    """The inspector is the tests' to install (INSPECTORS): no module of the app sets a window global."""
    static = Path(__file__).resolve().parents[2] / "src" / "quiltsolve" / "web" / "static" / "js"
    assert sorted(static.glob("*.js")), static
    for js in sorted(static.glob("*.js")):
        assert not re.search(r"window\.quiltsolve\w*\s*=", js.read_text()), js.name


def page_factory(browser, base_url, **context):
    """Generator body of ``pages`` for the server at ``base_url`` (``context``: more browser context options)."""
    made = []

    def make(viewport=DESKTOP, touch=False, **more):
        # English unless a test asks for another language: the page follows the browser's (i18n.js).
        options = {"locale": "en-US", **context, **more}
        ctx = browser.new_context(viewport=viewport, accept_downloads=True, has_touch=touch, **options)
        ctx.add_init_script(INSPECTORS)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("console", lambda m: problems.append(f"console: {m.text}")
                if m.type == "error" and "Failed to load resource" not in m.text else None)
        page.on("request", lambda r: problems.append(f"foreign request: {r.url}")
                if not r.url.startswith((base_url, "data:", "blob:")) else None)
        made.append((ctx, problems))
        make.problems[page] = problems
        return page

    make.problems = {}        # page -> its problems so far (a test may look before the end)
    yield make
    for ctx, problems in made:
        ctx.close()
        assert not problems, problems


def open_page(page, base_url, name):
    page.goto(f"{base_url}/#{name}")
    page.wait_for_selector(f"body[data-ready={name}]", state="attached")


def wait_for(page, js: str, timeout: float = 60, what: str = ""):
    t0 = time.monotonic()
    while True:
        value = page.evaluate(js)
        if value:
            return value
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out waiting for {what or js}")
        time.sleep(0.05)


PLAY = "document.getElementById('page-play').dataset"


def idle_after(page, plies: int):
    """Wait until the game has more than ``plies`` moves and it is the human's turn again (or over)."""
    wait_for(page, f"(() => {{ const d = {PLAY}; return d.busy === '0' && Number(d.plies) > {plies} "
                   f"&& (d.turn === 'human' || d.turn === 'over'); }})()", what=f"a move after ply {plies}")


def game(page) -> dict:
    return page.evaluate("() => window.quiltsolveDebug.game()")


def cells_of_move(text: str) -> list[tuple[int, int]]:
    words = text.split()
    part = words[2] if words[0] == "buy" else words[1]
    return [tuple(map(int, rc.split(","))) for rc in part.split(";")]


def owners(page, svg: str) -> dict[tuple[int, int], str]:
    data = page.evaluate(f"""() => [...document.querySelectorAll('{svg} rect.cell')]
        .map(r => [Number(r.dataset.r), Number(r.dataset.c), r.dataset.owner])""")
    return {(r, c): o for r, c, o in data}


def shape_text(cells) -> str:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    h = max(r for r, _ in cells) - r0 + 1
    w = max(c for _, c in cells) - c0 + 1
    grid = [["."] * w for _ in range(h)]
    for r, c in cells:
        grid[r - r0][c - c0] = "#"
    return "/".join("".join(row) for row in grid)


def new_game(page, base_url, seed: int, strength: str = "greedy", side: str = "0"):
    open_page(page, base_url, "play")
    page.select_option("#play-strength", strength)
    page.select_option("#play-side", side)
    page.fill("#play-seed", str(seed))
    page.click("#play-new")
    wait_for(page, f"(() => {{ const d = {PLAY}; return d.busy === '0' && d.turn === 'human' && "
                   f"window.quiltsolveDebug.game().record.seed === {seed}; }})()", what="a new game")


def hold(page, slot: int) -> dict:
    page.keyboard.press(str(slot))
    page.wait_for_selector("#play-quilt-human[data-held]", state="attached")
    return game(page)


def place_by_keys(page, http, pid: int) -> str:
    """Turn the held patch to a legal placement's orientation with R/F, move it with the arrows, press Enter."""
    state = game(page)["state"]
    legal = http.post("/api/v1/game/legal", json={"state": state, "patch_id": pid}).json()["actions"]
    assert legal, f"patch {pid} has no legal placement"
    for turn in range(8):
        orient = page.get_attribute("#play-quilt-human", "data-orient")
        matching = [a for a in legal if shape_text(cells_of_move(a)) == orient]
        if matching:
            break
        page.keyboard.press("f" if turn == 3 else "r")
    else:
        raise AssertionError(f"no orientation of patch {pid} matches a legal placement")
    target = matching[len(matching) // 2]
    cells = cells_of_move(target)
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    page.keyboard.press("ArrowDown")  # shows the patch in the middle of the quilt
    pos = page.get_attribute("#play-quilt-human", "data-pos")
    pr, pc = map(int, pos.split(","))
    for key, n in (("ArrowDown", r0 - pr), ("ArrowUp", pr - r0), ("ArrowRight", c0 - pc), ("ArrowLeft", pc - c0)):
        for _ in range(max(0, n)):
            page.keyboard.press(key)
    assert page.get_attribute("#play-quilt-human", "data-pos") == f"{r0},{c0}"
    assert page.get_attribute("#play-quilt-human .held-piece", "data-legal") == "true"
    page.keyboard.press("Enter")
    return target


def click_ghost(page, rank: int = 1) -> str:
    ghost = page.wait_for_selector(f"#play-quilt-human .ghost[data-rank='{rank}']", state="attached")
    cells = ghost.get_attribute("data-cells")
    page.locator(f"#play-quilt-human .ghost[data-rank='{rank}'] rect").first.click()
    return cells


# ---------------------------------------------------------------- play

def test_play_a_whole_game_against_the_engine(pages, base_url, http, shots_dir):
    page = pages()
    new_game(page, base_url, seed=5, strength="greedy")
    turns = 0
    shot = False
    while page.evaluate(f"{PLAY}.turn") != "over":
        assert turns < 120, "the game does not end"
        g = game(page)
        plies = len(g["record"]["actions"])
        view = g["view"]
        me = g["human"]
        if view["leather_to_place"]:
            page.wait_for_selector("#play-quilt-human .ghost", state="attached")
            if turns % 2:
                page.keyboard.press("g")
                move = None
            else:
                cells = click_ghost(page)
                move = f"leather {cells}"
        else:
            buyable = [a for a in view["available"] if a["buyable"]]
            if buyable and turns % 5 != 4:
                a = buyable[turns % len(buyable)]
                hold(page, a["slot"])
                if turns % 3 == 0:
                    move = f"buy {a['id']} {click_ghost(page)}"
                elif turns % 3 == 1:
                    page.wait_for_selector("#play-quilt-human .ghost", state="attached")
                    if not shot and plies > 6:
                        page.mouse.move(0, 0)
                        page.screenshot(path=str(shots_dir / "web-play.png"), full_page=True)
                        shot = True
                    page.keyboard.press("g")
                    move = None
                else:
                    move = place_by_keys(page, http, a["id"])
            else:
                page.keyboard.press("a")
                move = "advance"
        idle_after(page, plies)
        after = game(page)
        played = after["record"]["actions"][plies]
        if move is not None:
            assert played == move
        if not played.startswith("advance"):
            board = owners(page, "#play-quilt-human")
            want = f"p{played.split()[1]}" if played.startswith("buy") else None
            for r, c in cells_of_move(played):
                assert board[(r, c)] == (want or f"L{r * 9 + c}"), (played, r, c)
        assert after["view"]["players"][me]["rows"] != view["players"][me]["rows"] or played == "advance"
        turns += 1
    status = page.text_content("#play-status")
    assert status.startswith("Game over")
    with page.expect_download() as dl:
        page.click("#play-download")
    record = json.loads(open(dl.value.path()).read())
    final = engine.replay(record)  # the record replays and its result checks out
    me = game(page)["human"]
    assert list(final.scores()) == record["result"]["scores"]
    assert int(page.get_attribute("#play-human-stats", "data-score")) == final.scores()[me]
    assert int(page.get_attribute("#play-engine-stats", "data-score")) == final.scores()[1 - me]
    assert record["players"][me] == "human" and record["players"][1 - me] == "greedy"
    # Every engine move is the greedy player's choice in its position.
    state = engine.GameState.from_circle(record["circle"])
    for i, text in enumerate(record["actions"]):
        if state.current_player() != me:
            assert GreedyPlayer().choose(state).to_str() == text, i
        state.apply_action(engine.parse_action(text))


def test_hint_draws_the_move_the_api_suggests(pages, base_url, http, shots_dir):
    page = pages()
    new_game(page, base_url, seed=3)
    page.keyboard.press("a")  # one move in, so that the position is not the opening
    idle_after(page, 0)
    page.keyboard.press("h")
    page.wait_for_selector("#play-hint-list li")
    g = game(page)
    hint = page.evaluate("() => window.quiltsolveDebug.hint")
    api = http.post("/api/v1/suggest-move", json={"state": g["state"], **hint}).json()["suggestions"]
    listed = page.evaluate("() => [...document.querySelectorAll('#play-hint-list li')].map(li => li.dataset.move)")
    assert listed == [s["move"]["text"] for s in api]
    drawn = page.get_attribute("#play-quilt-human .hint-mark", "data-move")
    assert drawn == api[0]["move"]["text"]
    if api[0]["move"]["cells"]:
        want = ";".join(f"{c['row']},{c['col']}" for c in api[0]["move"]["cells"])
        assert page.get_attribute("#play-quilt-human .hint-mark", "data-cells") == want
    pct = page.text_content("#play-hint-list li .pct")
    assert pct == f"{round(api[0]['value'] * 100)}%"
    page.screenshot(path=str(shots_dir / "web-play-hint.png"), full_page=True)
    if len(api) > 1:  # choosing another suggestion draws that one
        page.locator("#play-hint-list li").nth(1).click()
        assert page.get_attribute("#play-quilt-human .hint-mark", "data-move") == api[1]["move"]["text"]
    plies = len(g["record"]["actions"])
    page.locator("#play-hint-list li .play-suggestion").first.click()
    idle_after(page, plies)
    assert game(page)["record"]["actions"][plies] == api[0]["move"]["text"]


def test_place_a_patch_by_drag_and_by_ghost_then_undo(pages, base_url, http):
    page = pages()
    new_game(page, base_url, seed=4)
    g = game(page)
    a = next(x for x in g["view"]["available"] if x["buyable"])
    hold(page, a["slot"])
    legal = http.post("/api/v1/game/legal", json={"state": g["state"], "patch_id": a["id"]}).json()["actions"]
    orient = page.get_attribute("#play-quilt-human", "data-orient")
    target = [x for x in legal if shape_text(cells_of_move(x)) == orient][-1]  # far from the first ghost
    cells = cells_of_move(target)
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    h = max(r for r, _ in cells) - r0 + 1
    w = max(c for _, c in cells) - c0 + 1
    ar, ac = r0 + (h - 1) // 2, c0 + (w - 1) // 2  # the cell under the pointer: the patch's middle
    box = page.locator("#play-quilt-human").bounding_box()
    unit = box["width"] / 9.16
    tx, ty = box["x"] + (ac + 0.58) * unit, box["y"] + (ar + 0.58) * unit
    card = page.locator(f"#play-circle .patch-card[data-slot='{a['slot']}']").bounding_box()
    page.mouse.move(card["x"] + card["width"] / 2, card["y"] + card["height"] / 2)
    page.mouse.down()
    page.mouse.move((card["x"] + tx) / 2, (card["y"] + ty) / 2, steps=6)
    page.mouse.move(tx, ty, steps=6)
    assert page.get_attribute("#play-quilt-human .held-piece", "data-cells") == ";".join(f"{r},{c}" for r, c in cells)
    page.mouse.up()
    idle_after(page, 0)
    assert game(page)["record"]["actions"][0] == target
    board = owners(page, "#play-quilt-human")
    assert {rc for rc, o in board.items() if o == f"p{a['id']}"} == set(cells)

    # Next turn: by ghost.
    g = game(page)
    plies = len(g["record"]["actions"])
    b = next((x for x in g["view"]["available"] if x["buyable"]), None)
    assert b is not None
    hold(page, b["slot"])
    ghost_cells = click_ghost(page, 1)
    idle_after(page, plies)
    assert game(page)["record"]["actions"][plies] == f"buy {b['id']} {ghost_cells}"
    board = owners(page, "#play-quilt-human")
    assert {f"{r},{c}" for (r, c), o in board.items() if o == f"p{b['id']}"} == set(ghost_cells.split(";"))

    # Undo takes back the human move and the engine's answers.
    page.keyboard.press("u")
    g = game(page)
    assert len(g["record"]["actions"]) == plies
    assert all(o != f"p{b['id']}" for o in owners(page, "#play-quilt-human").values())


def test_paste_a_position_and_see_a_clear_error(pages, base_url, http):
    page = pages()
    open_page(page, base_url, "play")
    page.wait_for_selector("#page-play[data-busy='0']", state="attached")
    page.click("#play-paste-toggle")
    page.fill("#play-paste-text", "this is not a position")
    page.click("#play-paste button[type=submit]")
    page.wait_for_selector("#play-msg[data-code=INVALID_ARGUMENT]")
    assert page.get_attribute("#play-msg", "data-field") == "text"
    assert page.is_visible("#play-quilt-human")
    state = engine.new_game(30)
    for _ in range(6):
        state.apply_action(GreedyPlayer().choose(state))
    page.fill("#play-paste-text", json.dumps(state.to_json()))
    page.click("#play-paste button[type=submit]")
    wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game().start !== null", what="the position")
    g = game(page)
    assert g["start"]["kind"] == "state_json"
    shown = g["view"]["players"][0]["rows"]
    from quiltsolve import solver

    # The engine may have answered first if it was to move; player 0's quilt is the pasted one or later.
    pasted = solver.board_to_rows(state.players[0].board)
    assert all(a == "#" or b == "." for ra, rb in zip(shown, pasted) for a, b in zip(ra, rb))


def test_a_proven_hint_shows_the_exact_margins(pages, base_url, http):
    state = engine.new_game(1)
    states = []
    while not state.is_terminal():
        states.append(state.clone())
        state.apply_action(GreedyPlayer().choose(state))
    end = next(s for s in reversed(states[-6:]) if s.current_player() == 0 and not s.leather_to_place)
    page = pages()
    open_page(page, base_url, "play")
    page.wait_for_selector("#page-play[data-busy='0']", state="attached")
    page.click("#play-paste-toggle")
    page.fill("#play-paste-text", json.dumps(end.to_json()))
    page.click("#play-paste button[type=submit]")
    wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game().start !== null", what="the position")
    page.keyboard.press("h")
    page.wait_for_selector("#play-hint-list li .proven")
    g = game(page)
    hint = page.evaluate("() => window.quiltsolveDebug.hint")
    api = http.post("/api/v1/suggest-move", json={"state": g["state"], **hint}).json()
    assert api["proven"] is True
    shown = page.evaluate("() => [...document.querySelectorAll('#play-hint-list li')].map(li => li.dataset.provenMargin)")
    assert shown == [str(s["proven_margin"]) for s in api["suggestions"]]
    assert "proven" in page.text_content("#play-hint-info")


# ---------------------------------------------------------------- review

def test_review_plots_one_point_per_move(pages, base_url, http, shots_dir):
    state = engine.new_game(17)
    circle = state.circle
    players = [GreedyPlayer(), RandomPlayer(17)]
    actions = []
    while not state.is_terminal():
        a = players[state.current_player()].choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    record = engine.make_record(engine.GameState.from_circle(circle), actions, state, 17)
    n = len(actions)
    page = pages()
    open_page(page, base_url, "review")
    page.fill("#review-text", json.dumps(record))
    page.select_option("#review-depth", "it:60")
    page.click("#review-go")
    wait_for(page, f"document.getElementById('page-review').dataset.reviewed === '{n}'", timeout=150,
             what="the whole review")
    points = page.evaluate("() => [...document.querySelectorAll('#review-plot circle.pt')]"
                           ".map(c => [Number(c.dataset.ply), Number(c.dataset.value)])")
    assert [p for p, _ in points] == list(range(n))
    api = http.post("/api/v1/analyze-game?format=json", json={
        "record": {"edition": "EDITION_REVISED", "circle": circle, "actions": actions},
        "iterations": 60, "seed": 0}).json()["items"]
    for (ply, v), item in zip(points, api):
        first = item["value_played"] if item["player"] == 0 else 1 - item["value_played"]
        assert abs(v - first) < 1e-3, ply
    marked = page.evaluate("() => [...document.querySelectorAll('#review-plot circle.mistake')].map(c => Number(c.dataset.ply))")
    assert marked == [x["ply"] for x in api if x["large"]]
    page.keyboard.press("End")
    assert page.get_attribute("#page-review", "data-step") == str(n)
    if "loss_points" in api[-1]:      # the last move proven: its loss in points beside the loss in win chance
        n_points = api[-1]["loss_points"]
        assert f"{n_points} point" in page.text_content("#review-info")
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#page-review", "data-step") == str(n - 1)
    page.locator("#review-plot circle.pt").nth(9).click()
    assert page.get_attribute("#page-review", "data-step") == "10"
    moved = next(p for p in [0, 1] if page.locator(f"#review-quilt-{p} .last").count())
    assert page.get_attribute(f"#review-quilt-{moved} .last", "data-move") == actions[9] or actions[9] == "advance"
    page.screenshot(path=str(shots_dir / "web-review.png"), full_page=True)


def _mixed_record(seed: int, plies: int) -> dict:
    """An unfinished greedy (player 0) v random (player 1) game of ``plies`` moves: random's mistakes."""
    state = engine.new_game(seed)
    start = state.clone()
    players = [GreedyPlayer(), RandomPlayer(seed)]
    actions = []
    for _ in range(plies):
        a = players[state.current_player()].choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    rec = engine.make_record(start, actions, state, seed)
    del rec["result"]
    rec["players"] = ["greedy", "random"]
    return rec


REVIEW = "document.getElementById('page-review').dataset"


def test_review_link_accuracy_equals_the_cli_and_reopens_at_the_same_move(pages, base_url, tmp_path):
    import io

    from quiltsolve.clients.cli import main as suggest
    from quiltsolve.clients.links import read_review_link, review_link

    rec = _mixed_record(23, 24)
    f = tmp_path / "game.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert suggest(["review", str(f), "--iterations", "40", "--seed", "3", "--json"], stdout=out, stderr=err) == 0, \
        err.getvalue()
    printed = out.getvalue().splitlines()
    cli_summary = json.loads(printed[-1])["summary"]
    cli_moves = [json.loads(line) for line in printed[:-1]]
    page = pages()
    page.goto(review_link(rec, base=base_url, ply=5, iterations=40, seed=3))
    page.wait_for_selector("body[data-ready=review]", state="attached")
    wait_for(page, f"{REVIEW}.reviewed === '{len(rec['actions'])}'", timeout=150, what="the whole review")
    assert page.get_attribute("#page-review", "data-step") == "5"
    for i in (0, 1):
        shown = page.get_attribute(f"#review-accuracy-{i}", "data-accuracy")
        assert shown == f"{cli_summary[i]['accuracy']:.1f}", (i, shown, cli_summary[i])
        assert f"accuracy {cli_summary[i]['accuracy']:.1f}" in page.text_content(f"#review-accuracy-{i}")
        assert int(page.get_attribute(f"#review-accuracy-{i}", "data-blunders")) == cli_summary[i]["blunders"]
    labels = page.evaluate("() => [...document.querySelectorAll('#review-moves li')].map(li => li.dataset.label || null)")
    assert labels == [m["label"] for m in cli_moves]
    assert any(labels)
    # another move, then the address bar's link opened in a new page: the same review at the same move
    page.locator("#review-plot circle.pt").nth(8).click()
    wait_for(page, f"{REVIEW}.link && {REVIEW}.link.includes('ply=9')", what="the link following the move")
    url = page.evaluate("() => location.href")
    assert read_review_link(url).record == rec
    other = pages()
    other.goto(url)
    other.wait_for_selector("body[data-ready=review]", state="attached")
    wait_for(other, f"{REVIEW}.reviewed === '{len(rec['actions'])}'", timeout=150, what="the review in a new page")
    assert other.get_attribute("#page-review", "data-step") == "9"
    assert other.text_content("#review-info") == page.text_content("#review-info")
    for i in (0, 1):
        assert other.get_attribute(f"#review-accuracy-{i}", "data-accuracy") == \
            page.get_attribute(f"#review-accuracy-{i}", "data-accuracy")
    # Copy link gives the same link
    page.click("#review-copy-link")
    wait_for(page, "!document.getElementById('review-link').hidden", what="the link box")
    assert read_review_link(page.input_value("#review-link")) == read_review_link(url)


def test_learn_from_mistakes_round_and_exports(pages, base_url, shots_dir):
    from quiltsolve.engine.record import check_evaluations

    rec = _mixed_record(29, 30)
    page = pages()
    open_page(page, base_url, "review")
    page.fill("#review-text", json.dumps(rec))
    page.select_option("#review-depth", "it:60")
    page.click("#review-go")
    wait_for(page, f"{REVIEW}.reviewed === '{len(rec['actions'])}'", timeout=150, what="the whole review")
    # the record with its evaluations: one entry per move, a form engine.record accepts
    with page.expect_download() as dl:
        page.click("#review-save")
    saved = json.loads(open(dl.value.path(), encoding="utf-8").read())
    assert [e["ply"] for e in saved["evaluations"]] == list(range(len(rec["actions"])))
    check_evaluations(saved)
    engine.replay(saved, check_result=False)
    with page.expect_download() as dl:
        page.click("#review-svg")
    picture = open(dl.value.path(), encoding="utf-8").read()
    assert picture.startswith("<svg") and "accuracy" in picture
    with page.expect_download() as dl:
        page.click("#review-png")
    png = open(dl.value.path(), "rb").read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    # learn from player 2's (random's) mistakes: the position before, a try, the answer, the next one
    page.select_option("#learn-player", "1")
    page.click("#review-learn")
    wait_for(page, f"{REVIEW}.learnAt === '0'", what="the first exercise")
    first = int(page.get_attribute("#page-review", "data-step"))
    bad = page.evaluate("() => [...document.querySelectorAll('#review-moves li')]"
                        ".filter(li => li.classList.contains('p1') && ['mistake', 'blunder'].includes(li.dataset.label))"
                        ".map(li => Number(li.dataset.ply))")
    assert bad and first == bad[0]            # the position before the first mistake
    wait_for(page, "!document.getElementById('learn-advance').disabled || "
                   "document.getElementById('learn-patches').textContent.includes('leather')", what="the choices")
    if page.is_enabled("#learn-advance"):
        page.click("#learn-advance")
    else:                                     # a leather patch to place: the first free cell
        rows = page.evaluate("() => [...document.querySelectorAll('#review-quilt-1 rect.cell')]"
                             ".filter(r => r.dataset.filled === '0').map(r => [r.dataset.r, r.dataset.c])")
        r, c = rows[0]
        page.click(f"#review-quilt-1 rect.cell[data-r='{r}'][data-c='{c}']")
    wait_for(page, "document.getElementById('learn-result').dataset.chance !== undefined", timeout=60,
             what="the try evaluated")
    chance = float(page.get_attribute("#learn-result", "data-chance"))
    assert 0 <= chance <= 1 and "win chance" in page.text_content("#learn-result")
    page.click("#learn-answer")
    assert "The engine's answer" in page.text_content("#learn-result")
    page.screenshot(path=str(shots_dir / "web-review-learn.png"), full_page=True)
    page.click("#learn-next")
    if len(bad) > 1:
        wait_for(page, f"{REVIEW}.learnAt === '1'", what="the next exercise")
        assert int(page.get_attribute("#page-review", "data-step")) == bad[1]
    else:
        wait_for(page, f"{REVIEW}.learnDone === '1'", what="the end of the exercises")
    page.click("#learn-stop")
    assert page.is_hidden("#learn-box")


# ---------------------------------------------------------------- place and puzzles

def test_place_draws_the_optimal_placement(pages, base_url, http, shots_dir):
    page = pages()
    open_page(page, base_url, "place")
    rows = page.get_attribute("#place-board", "data-rows").split("/")
    page.click("#place-solve")
    page.wait_for_selector("#place-status[data-status]")
    body = {"board": {"rows": rows}, "patches": [{"id": 5}, {"id": 14}, {"id": 26}],
            "objective": "OBJECTIVE_COVER", "time_limit": "5s", "seed": 0}
    api = http.post("/api/v1/solve-placement", json=body).json()
    assert page.get_attribute("#place-status", "data-status") == api["status"] == "SOLVE_STATUS_OPTIMAL"
    assert page.text_content("#place-status").startswith("Optimal (proven)")
    drawn = page.evaluate("() => [...document.querySelectorAll('#place-answer rect[data-placed]')]"
                          ".map(r => [Number(r.dataset.placed), Number(r.dataset.r), Number(r.dataset.c)])")
    want = {(i, c["row"], c["col"]) for i, p in enumerate(api["placements"]) for c in p["cells"]}
    assert set(map(tuple, drawn)) == want
    page.screenshot(path=str(shots_dir / "web-place.png"), full_page=True)
    # Editing the board: a click fills an empty cell.
    box = page.locator("#place-board").bounding_box()
    unit = box["width"] / 9.16
    page.mouse.click(box["x"] + 0.58 * unit, box["y"] + 0.58 * unit)
    assert page.get_attribute("#place-board", "data-rows").startswith("#")


def _orientations(text: str) -> set[str]:
    return {o.to_str() for o in Shape.parse(text).orientations()}


def test_solve_a_pentomino_puzzle_and_check_the_tiling_cell_by_cell(pages, base_url, http, shots_dir):
    page = pages()
    open_page(page, base_url, "puzzles")
    page.select_option("#pz-preset", "6x10")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status[data-status]")
    pieces = page.evaluate("() => document.getElementById('pz-pieces').value").splitlines()
    shapes = [line.split(":", 1)[1].strip() for line in pieces]
    assert len(shapes) == 12
    drawn = page.evaluate("() => [...document.querySelectorAll('#pz-answer rect.cell')]"
                          ".map(r => [Number(r.dataset.r), Number(r.dataset.c), r.dataset.piece])")
    grid = {(r, c): int(p) for r, c, p in drawn}
    assert sorted(grid) == [(r, c) for r in range(6) for c in range(10)]
    api = http.post("/api/v1/solve-puzzle", json={
        "region": {"rows": ["." * 10] * 6}, "pieces": shapes, "mode": "PUZZLE_MODE_FIND", "no_mirror": False,
        "allow_unused": False, "max_tilings": 1, "time_limit": "20s"}).json()
    want = {(c["row"], c["col"]): p["patch_index"] for p in api["tilings"][0]["placements"] for c in p["cells"]}
    assert grid == want
    for i, shape in enumerate(shapes):  # each piece covers a copy of its shape
        cells = [rc for rc, k in grid.items() if k == i]
        assert shape_text(cells) in _orientations(shape), (i, shape)
    page.screenshot(path=str(shots_dir / "web-puzzles.png"), full_page=True)
    page.check("input[name=pz-mode][value=PUZZLE_MODE_COUNT]")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status:has-text('9,356 tilings')")
    assert "2,339 distinct" in page.text_content("#pz-status")
    assert page.get_attribute("#pz-status", "data-count") == "9356"


def test_count_unlimited_dominoes_exactly_and_show_the_method(pages, base_url, http):
    page = pages()
    open_page(page, base_url, "puzzles")
    page.fill("#pz-h", "10")
    page.dispatch_event("#pz-h", "change")
    page.fill("#pz-w", "10")
    page.dispatch_event("#pz-w", "change")
    page.fill("#pz-pieces", "D: ## x*")
    page.dispatch_event("#pz-pieces", "input")
    assert "as needed" in page.text_content("#pz-area")
    page.check("input[name=pz-mode][value=PUZZLE_MODE_COUNT]")
    page.select_option("#pz-method", "PUZZLE_METHOD_FRONTIER")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status[data-status]")
    text = page.text_content("#pz-status")
    assert "258,584,046,368 tilings" in text and "frontier" in text, text
    assert page.get_attribute("#pz-status", "data-count") == "258584046368"
    assert page.get_attribute("#pz-status", "data-method") == "PUZZLE_METHOD_FRONTIER"
    api = http.post("/api/v1/solve-puzzle", json={"region": {"rows": ["." * 10] * 10}, "unlimited_pieces": ["##"],
                                                  "mode": "PUZZLE_MODE_COUNT"}).json()
    assert page.get_attribute("#pz-status", "data-distinct") == api["distinct_decimal"]
    # beyond 2^63 - 1 (no int64 count on the wire): still exact, grouped, from the decimal string
    page.fill("#pz-h", "14")
    page.dispatch_event("#pz-h", "change")
    page.fill("#pz-w", "14")
    page.dispatch_event("#pz-w", "change")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status:has-text('112,202,208,776,036,178,000,000 tilings')")
    # finding with unlimited pieces: every cell drawn, each domino labelled D
    page.check("input[name=pz-mode][value=PUZZLE_MODE_FIND]")
    page.fill("#pz-h", "2")
    page.dispatch_event("#pz-h", "change")
    page.fill("#pz-w", "4")
    page.dispatch_event("#pz-w", "change")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-status:has-text('1 tiling found')")
    labels = page.evaluate("() => [...document.querySelectorAll('#pz-answer .tile-label')].map(t => t.textContent)")
    assert labels == ["D"] * 4


GEN = "window.quiltsolveGenerate"


def hold_as_in_solution(page, puzzle, i: int):
    """Pick piece ``i`` up from the tray and turn it (R, F) into its orientation in the solution;
    the board cell to point at to put it there (the piece is held by its centre)."""
    cells = puzzle["solution"][i]
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    want = sorted([r - r0, c - c0] for r, c in cells)
    page.click(f"#gen-tray figure[data-piece='{i}']")
    for turn in range(8):
        if sorted(page.evaluate(f"() => {GEN}.held().orient")) == want:
            break
        page.keyboard.press("f" if turn == 3 else "r")
    assert sorted(page.evaluate(f"() => {GEN}.held().orient")) == want
    h = max(r for r, _ in want) + 1
    w = max(c for _, c in want) + 1
    return f"#gen-board rect.cell[data-r='{r0 + (h - 1) // 2}'][data-c='{c0 + (w - 1) // 2}']"


def drawn_cells(page, i: int) -> list:
    return sorted(page.evaluate(f"() => [...document.querySelectorAll('#gen-board rect.cell[data-piece=\"{i}\"]')]"
                                ".map((x) => [Number(x.dataset.r), Number(x.dataset.c)])"))


def test_new_puzzle_place_a_piece_show_the_solution_and_check(pages, base_url, http, shots_dir):
    page = pages()
    open_page(page, base_url, "puzzles")
    page.select_option("#gen-family", "PIECE_FAMILY_PATCHES")
    page.fill("#gen-seed", "4")
    page.click("#gen-new")
    page.wait_for_selector("#gen-status[data-status=SOLVE_STATUS_OPTIMAL]")
    assert page.input_value("#gen-seed") == "5"   # the next click makes another puzzle
    puzzle = page.evaluate(f"() => {GEN}.puzzle()")
    api = http.post("/api/v1/generate-puzzle", json={"family": "PIECE_FAMILY_PATCHES", "seed": 4}).json()
    assert puzzle["rows"] == api["region"]["rows"] and len(puzzle["pieces"]) == len(api["pieces"]) >= 10
    # as on the Play page: pick piece 0 up from the tray, turn it, move over the board and click
    page.click(hold_as_in_solution(page, puzzle, 0))
    assert page.get_attribute("#gen-board", "data-placed") == "1"
    assert page.locator("#gen-tray figure[data-piece='0']").count() == 0
    assert drawn_cells(page, 0) == sorted(puzzle["solution"][0])
    # piece 1 by drag: turned in hand first, then dragged from its tray card onto the board
    target = page.locator(hold_as_in_solution(page, puzzle, 1)).bounding_box()
    card = page.locator("#gen-tray figure[data-piece='1']").bounding_box()
    page.mouse.move(card["x"] + card["width"] / 2, card["y"] + card["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
    page.mouse.up()
    assert page.get_attribute("#gen-board", "data-placed") == "2"
    assert drawn_cells(page, 1) == sorted(puzzle["solution"][1])
    page.click("#gen-check")
    assert page.get_attribute("#gen-verdict", "data-complete") == "false"
    assert "Not complete" in page.text_content("#gen-verdict")
    # the solution: every region cell covered once, every piece used; then the check says complete
    page.click("#gen-solution")
    assert page.get_attribute("#gen-board", "data-placed") == str(len(puzzle["pieces"]))
    owners = page.evaluate("() => [...document.querySelectorAll('#gen-board rect.cell')]"
                           ".map((x) => [Number(x.dataset.r), Number(x.dataset.c), x.dataset.piece])")
    region = {(r, c) for r, row in enumerate(puzzle["rows"]) for c, ch in enumerate(row) if ch == "."}
    assert {(r, c) for r, c, p in owners if p != ""} == region
    for i, shape in enumerate(api["pieces"]):
        mine = [(r, c) for r, c, p in owners if p == str(i)]
        assert Shape.from_cells(mine) in Shape.parse(shape).orientations(), (i, shape)
    page.click("#gen-check")
    assert page.get_attribute("#gen-verdict", "data-complete") == "true"
    page.screenshot(path=str(shots_dir / "web-new-puzzle.png"), full_page=True)
    page.click("#gen-clear")
    assert page.get_attribute("#gen-board", "data-placed") == "0"


def test_bad_pieces_show_the_field_not_a_blank_page(pages, base_url):
    page = pages()
    open_page(page, base_url, "puzzles")
    page.fill("#pz-pieces", "A: #.#\nB: ##")
    page.click("#pz-solve")
    page.wait_for_selector("#pz-msg[data-code=INVALID_ARGUMENT]")
    assert page.get_attribute("#pz-msg", "data-field") == "pieces[0]"
    assert "pieces[0]" in page.text_content("#pz-msg")
    assert page.is_visible("#pz-region")


def test_phone_width_and_screenshots(pages, base_url, shots_dir):
    page = pages(PHONE, touch=True)
    for name in ("play", "review", "place", "puzzles"):
        open_page(page, base_url, name)
        if name == "play":
            page.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{name} is wider than a phone: {overflow}px"
        if name == "play":
            page.screenshot(path=str(shots_dir / "web-play-phone.png"), full_page=True)
    # Touch: a tap shows the patch, a tap on it places it. A fixed deal: about 1 in 60 random deals
    # open with no patch the first player can buy (deal 105, for one), and this test needs one.
    new_game(page, base_url, seed=5)
    g = game(page)
    a = next(x for x in g["view"]["available"] if x["buyable"])
    page.tap(f"#play-circle .patch-card[data-slot='{a['slot']}']")
    page.wait_for_selector("#play-quilt-human[data-held]", state="attached")
    page.locator("#play-quilt-human").scroll_into_view_if_needed()
    box = page.locator("#play-quilt-human").bounding_box()
    unit = box["width"] / 9.16
    x, y = box["x"] + 4.58 * unit, box["y"] + 4.58 * unit
    page.touchscreen.tap(x, y)
    assert page.get_attribute("#play-quilt-human .held-piece", "data-legal") == "true"
    r, c = map(int, page.get_attribute("#play-quilt-human .held-piece", "data-cells").split(";")[0].split(","))
    page.touchscreen.tap(box["x"] + (c + 0.58) * unit, box["y"] + (r + 0.58) * unit)  # a tap on the patch
    try:
        idle_after(page, len(g["record"]["actions"]))
    except AssertionError:
        page.screenshot(path=str(shots_dir / "failed-touch.png"), full_page=True)
        raise AssertionError(page.evaluate("() => [document.getElementById('play-msg').textContent, "
                                           "JSON.stringify(window.quiltsolveDebug.held()), "
                                           "JSON.stringify(document.getElementById('page-play').dataset)]"))
    assert game(page)["record"]["actions"][len(g["record"]["actions"])].startswith(f"buy {a['id']} ")


# ---------------------------------------------------------------- a server with TLS and tokens

@pytest.fixture(scope="module")
def token_server(tmp_path_factory, make_certs):
    from quiltsolve.server import ServerConfig

    from .conftest import serving

    pki = make_certs(tmp_path_factory.mktemp("browserpki"), "IP:127.0.0.1,DNS:localhost")
    yield from serving(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, grace=0.5,
                                    tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"),
                                    auth_tokens=("browser-token",)))


@pytest.fixture
def token_pages(browser, token_server):
    assert token_server[1].url.startswith("https://")
    # The test CA is not in Chromium's store; the page still runs as a secure https:// origin.
    yield from page_factory(browser, token_server[1].url.rstrip("/"), ignore_https_errors=True)


def test_the_app_asks_for_a_token_once_keeps_it_and_sends_it(token_pages, token_server):
    url = token_server[1].url.rstrip("/")
    page = token_pages()
    sent: list[tuple[str, str | None]] = []
    page.on("request", lambda r: sent.append((r.url, r.headers.get("authorization"))) if "/api/" in r.url else None)
    page.goto(f"{url}/#play")
    page.wait_for_selector("#token-dialog[open]")
    assert page.evaluate("() => location.protocol === 'https:' && window.isSecureContext")
    assert page.evaluate("() => document.activeElement.id") == "token-input"
    assert page.is_hidden("#token-msg")
    assert page.get_attribute("#token-input", "type") == "password"
    page.fill("#token-input", "not-the-token")
    page.click("#token-submit")
    # A wrong token asks again, saying so.
    page.wait_for_selector("#token-dialog[open][data-rejected=true]")
    assert "not accepted" in page.text_content("#token-msg")
    assert page.evaluate("() => sessionStorage.getItem('quiltsolve.token')") is None
    page.fill("#token-input", "browser-token")
    page.press("#token-input", "Enter")
    page.wait_for_selector("body[data-ready=play]", state="attached")
    assert not page.evaluate("() => document.getElementById('token-dialog').open")
    assert page.evaluate("() => sessionStorage.getItem('quiltsolve.token')") == "browser-token"
    # The game works: a new deal, a move, the engine's answer.
    new_game(page, url, seed=6)
    page.keyboard.press("a")
    idle_after(page, 0)
    assert game(page)["record"]["actions"][0] == "advance"
    # The token is kept for the tab: a reload asks nothing and sends it on every API call.
    sent.clear()
    page.reload()
    page.wait_for_selector("body[data-ready=play]", state="attached")
    page.wait_for_selector("#page-play[data-busy='0'][data-turn=human]", state="attached")
    assert not page.evaluate("() => document.getElementById('token-dialog').open")
    assert sent and all(auth == "Bearer browser-token" for _, auth in sent), sent


def test_cancelling_the_token_dialog_shows_why_and_asks_again_later(token_pages, token_server):
    url = token_server[1].url.rstrip("/")
    page = token_pages()
    page.goto(f"{url}/#play")
    page.wait_for_selector("#token-dialog[open]")
    page.click("#token-cancel")
    page.wait_for_selector("#play-msg[data-code=UNAUTHENTICATED]")
    assert "401" in page.text_content("#play-msg")
    assert not page.evaluate("() => document.getElementById('token-dialog').open")
    page.reload()  # nothing was stored: the next call asks again
    page.wait_for_selector("#token-dialog[open]")
    assert page.get_attribute("#token-dialog", "data-rejected") == "false"


# ---------------------------------------------------------------- the analysis board, links, what is kept

ANALYSIS = "document.getElementById('page-analysis').dataset"


def analysis_url(base_url: str, notation: str, line: list[str] = ()) -> str:
    from urllib.parse import quote

    url = f"{base_url}/#analysis?pos={quote(notation, safe='')}"
    if line:
        url += f"&line={quote('~'.join(line), safe='')}"
    return url


def board_settled(page, path: str | None = None) -> dict:
    """Wait until the board shows a node (``path``: its child indices, '' the root) and its evaluation is drawn."""
    want = "" if path is None else f" && d.path === {json.dumps(path)}"
    wait_for(page, f"(() => {{ const d = {ANALYSIS}; return d.busy === '0' && !!d.notation "
                   f"&& d.evaluated === d.notation{want}; }})()", what=f"the board at {path!r}, evaluated")
    return page.evaluate(f"() => ({{...{ANALYSIS}}})")


def notation_after(start: engine.GameState, moves: list[str]) -> str:
    state = start.clone()
    for m in moves:
        state.apply_action(engine.parse_action(m))
    return state.to_notation()


def tree_moves(page) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('#an-moves .mv-btn')].map(b => b.dataset.move)")


def test_analysis_variation_by_clicks_navigated_by_keys_and_deleted(pages, base_url, http, shots_dir):
    page = pages()
    start = engine.new_game(7)
    page.goto(analysis_url(base_url, start.to_notation()))
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    d = board_settled(page, "")
    assert d["notation"] == start.to_notation() == page.input_value("#an-notation")
    assert page.get_attribute("#an-board", "data-notation") == start.to_notation()
    # The engine's best three, as the API ranks them at the board's budget, listed and drawn as ghosts.
    budget = page.evaluate("() => window.quiltsolveAnalysis.budget()")
    api = http.post("/api/v1/suggest-move", json={"state": game_state_json(http, start), "top": 3,
                                                   "iterations": budget, "seed": 0}).json()["suggestions"]
    listed = page.evaluate("() => [...document.querySelectorAll('#an-best li')].map(li => li.dataset.move)")
    assert listed == [s["move"]["text"] for s in api]
    drawn = page.evaluate("() => [...document.querySelectorAll('#an-quilt-0 .engine-ghost')].map(g => g.dataset.move)")
    assert set(drawn) == {s["move"]["text"] for s in api if s["move"]["cells"]}
    first = float(page.get_attribute("#an-evalbar", "data-first"))
    assert abs(first - api[0]["win_chance"]) < 1e-3   # player 1 is to move

    # Main line: advance (a click on the button); back (←); a variation: patch 1 picked up and put on a ghost.
    page.click("#an-advance")
    board_settled(page, "0")
    page.keyboard.press("ArrowLeft")
    board_settled(page, "")
    view = http.post("/api/v1/game/view", json={"state": game_state_json(http, start)}).json()["view"]
    slot = next(a["slot"] for a in view["available"] if a["buyable"])
    page.click(f"#an-circle .patch-card[data-slot='{slot}']")
    ghost = page.wait_for_selector("#an-quilt-0 .ghost[data-rank='1']:not(.engine-ghost)", state="attached")
    cells = ghost.get_attribute("data-cells")
    page.locator("#an-quilt-0 .ghost[data-rank='1']:not(.engine-ghost) rect").first.click()
    d = board_settled(page, "1")
    buy = f"buy {view['available'][slot - 1]['id']} {cells}"
    assert d["line"] == buy
    assert d["notation"] == notation_after(start, [buy])
    assert tree_moves(page) == ["advance", buy]
    assert page.locator("#an-moves > li ol.variation .mv-btn").get_attribute("data-move") == buy
    # One more move in the variation, by key (player 2 advances).
    page.keyboard.press("a")
    d = board_settled(page, "1.0")
    assert d["notation"] == notation_after(start, [buy, "advance"])
    assert page.get_attribute("#an-moves [aria-current]", "data-path") == "1.0"
    page.screenshot(path=str(shots_dir / "web-analysis.png"), full_page=True)

    # Keys: Shift+← leaves the variation, → follows the main line, ↑ / ↓ first and last, ← steps back.
    page.keyboard.press("Shift+ArrowLeft")
    board_settled(page, "")
    page.keyboard.press("ArrowRight")
    assert board_settled(page, "0")["notation"] == notation_after(start, ["advance"])
    page.keyboard.press("ArrowUp")
    board_settled(page, "")
    page.click("#an-moves .mv-btn[data-path='1.0']")
    board_settled(page, "1.0")
    page.keyboard.press("ArrowLeft")
    board_settled(page, "1")
    page.keyboard.press("ArrowUp")
    board_settled(page, "")
    page.keyboard.press("End")
    board_settled(page, "0")

    # Promote the variation (it becomes the main line), then delete it from its first move.
    page.click("#an-moves .mv-btn[data-path='1']")
    board_settled(page, "1")
    page.click("#an-promote")
    board_settled(page, "0")
    assert tree_moves(page) == [buy, "advance", "advance"]
    page.keyboard.press("Delete")
    board_settled(page, "")
    assert tree_moves(page) == ["advance"]
    assert page.locator("#an-moves ol.variation").count() == 0
    tree = page.evaluate("() => window.quiltsolveAnalysis.tree()")
    assert [c["m"] for c in tree["c"]] == ["advance"] and tree["n"] == start.to_notation()


def game_state_json(http, state: engine.GameState) -> dict:
    return http.post("/api/v1/game/load", json={"text": state.to_notation()}).json()["state"]


def bonus_position() -> engine.GameState:
    """A position (greedy against greedy) where a player holds the 7×7 bonus: its notation has a '+'."""
    state = engine.new_game(1)
    while state.bonus_owner is None:
        state.apply_action(GreedyPlayer().choose(state))
    assert not state.is_terminal() and "+" in state.to_notation()
    return state


def test_a_position_link_opens_the_same_board_elsewhere(pages, base_url, http):
    start = bonus_position()
    page = pages()
    page.goto(analysis_url(base_url, start.to_notation()))
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    board_settled(page, "")
    page.keyboard.press("a")
    board_settled(page, "0")
    page.keyboard.press("a")
    d = board_settled(page, "0.0")
    href = page.evaluate("location.href")
    assert "%2B" in href and "+" not in href.split("#", 1)[1]
    # "Copy link" copies that very link.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.click("#an-copy-link")
    page.wait_for_selector("#an-copy-link:has-text('Copied')")
    assert page.evaluate("() => navigator.clipboard.readText()") == href
    # Another browser (nothing stored): the link alone gives the same position and the same move.
    other = pages()
    other.goto(href)
    other.wait_for_selector("body[data-ready=analysis]", state="attached")
    d2 = board_settled(other, "0.0")
    assert d2["notation"] == d["notation"] == notation_after(start, ["advance", "advance"])
    assert d2["line"] == d["line"] == "advance~advance"
    assert other.input_value("#an-notation") == d["notation"]
    assert other.get_attribute("#an-moves [aria-current]", "data-move") == "advance"
    # Typed by hand with a bare '+' (and %20 for blanks): decodeURIComponent keeps the '+'.
    from urllib.parse import quote

    typed = pages()
    typed.goto(f"{base_url}/#analysis?pos={quote(start.to_notation(), safe='+,')}")
    typed.wait_for_selector("body[data-ready=analysis]", state="attached")
    assert board_settled(typed, "")["notation"] == start.to_notation()
    # A reload of the first page shows it again.
    page.reload()
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    assert board_settled(page, "0.0")["notation"] == d["notation"]
    # A link with a bad position says which field is wrong; the page stays usable.
    bad = pages()
    bad.goto(f"{base_url}/#analysis?pos={'r%200%2C5%2C-%2C0%20nonsense'}")
    bad.wait_for_selector("body[data-ready=analysis]", state="attached")
    bad.wait_for_selector("#an-msg:not([hidden])")
    assert bad.get_attribute("#an-msg", "data-field") == "text"
    assert "pos" in bad.text_content("#an-msg")


def test_the_evaluation_is_aborted_when_the_position_changes(pages, base_url):
    start = engine.new_game(12)
    page = pages()
    page.goto(analysis_url(base_url, start.to_notation()))
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    board_settled(page, "")
    page.evaluate("""() => { window.__aborted = []; const f = window.fetch;
        window.fetch = (url, init) => { if (String(url).endsWith('suggest-move') && init && init.signal)
            init.signal.addEventListener('abort', () => window.__aborted.push(init.body)); return f(url, init); }; }""")
    held = []
    page.route("**/api/v1/suggest-move", lambda route: held.append(route))   # never answered: still thinking
    page.keyboard.press("a")
    wait_for(page, f"{ANALYSIS}.path === '0' && {ANALYSIS}.evaluated !== {ANALYSIS}.notation", what="the move")
    wait_for(page, "document.getElementById('an-evalbar').classList.contains('pending')", what="pending")
    page.keyboard.press("ArrowLeft")   # the root's evaluation is known: no new request, the old one aborted
    d = board_settled(page, "")
    aborted = page.evaluate("() => window.__aborted.map(b => JSON.parse(b).state)")
    assert len(aborted) == 1 and len(held) == 1
    assert page.get_attribute("#an-evalbar", "aria-valuetext").startswith("player 1: ")
    assert d["notation"] == start.to_notation()
    page.unroute("**/api/v1/suggest-move")


def test_a_leather_patch_is_placed_on_the_board_by_keys(pages, base_url):
    state = engine.new_game(2)
    while not state.leather_to_place:
        state.apply_action(GreedyPlayer().choose(state))
    page = pages()
    page.goto(analysis_url(base_url, state.to_notation()))
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    board_settled(page, "")
    me = state.current_player()
    page.keyboard.press("1")
    page.wait_for_selector(f"#an-quilt-{me}[data-held='-1']", state="attached")
    page.wait_for_selector(f"#an-quilt-{me} .ghost[data-rank='1']", state="attached")
    page.keyboard.press("ArrowDown")   # the first arrow shows it in the middle; the keys move the patch, not the board
    page.keyboard.press("ArrowRight")
    assert page.get_attribute(f"#an-quilt-{me}", "data-pos") == "4,5"
    assert page.evaluate(f"{ANALYSIS}.path") == ""
    page.keyboard.press("g")
    d = board_settled(page, "0")
    assert d["line"].startswith("leather ")
    assert d["notation"] == notation_after(state, [d["line"]])


def test_a_game_is_resumed_after_a_reload_and_new_game_asks_first(pages, base_url):
    page = pages()
    new_game(page, base_url, seed=5)
    page.keyboard.press("a")
    idle_after(page, 0)
    page.keyboard.press("a")
    idle_after(page, 2)
    before = game(page)
    assert not before["view"]["terminal"]
    page.reload()
    page.wait_for_selector("body[data-ready=play]", state="attached")
    wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game() !== null", what="the page")
    after = game(page)
    assert after["record"] == before["record"] and after["state"] == before["state"]
    assert page.input_value("#play-seed") == "5"
    # A closed tab: another page of the same browser finds it too.
    again = page.context.new_page()
    open_page(again, base_url, "play")
    wait_for(again, f"{PLAY}.busy === '0'", what="the second tab")
    assert game(again)["record"]["actions"] == before["record"]["actions"]
    again.close()
    # "New game" asks first: declined, the game stays; accepted, a new one is dealt.
    page.once("dialog", lambda dlg: dlg.dismiss())
    page.click("#play-new")
    page.wait_for_timeout(300)
    assert game(page)["record"]["actions"] == before["record"]["actions"]
    page.fill("#play-seed", "6")
    page.once("dialog", lambda dlg: dlg.accept())
    page.click("#play-new")
    wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game().record.seed === 6", what="the new game")
    # The old game is listed under Recent (Analysis page) with its date, and comes back from there.
    open_page(page, base_url, "analysis")
    page.wait_for_selector("#an-recent li[data-kind=play]")
    items = page.evaluate("() => [...document.querySelectorAll('#an-recent li')].map(li => [li.dataset.kind, "
                          "li.textContent, li.querySelector('time').dateTime])")
    assert any(k == "play" and "deal 5" in text and when for k, text, when in items), items
    page.locator("#an-recent li[data-kind=play] a", has_text="deal 5").click()
    wait_for(page, f"{PLAY}.busy === '0' && window.quiltsolveDebug.game().record.seed === 5", what="the old game")
    assert game(page)["record"]["actions"] == before["record"]["actions"]


def test_the_store_is_versioned_bounded_and_drops_the_oldest_first(pages, base_url):
    page = pages()
    open_page(page, base_url, "analysis")
    out = page.evaluate("""async () => {
        const s = await import('/js/store.js');
        const big = 'x'.repeat(Math.floor(s.MAX_CHARS / 5));
        for (let i = 0; i < 8; i++) s.saveRecent('analysis', `t${i}`, `tree ${i}`, {blob: big});
        const bounded = s.listRecent().map(it => it.id);
        for (let i = 0; i < s.MAX_ITEMS + 5; i++) s.saveRecent('review', `r${i}`, `review ${i}`, {i});
        const raw = JSON.parse(localStorage.getItem(s.STORE_KEY));
        return {bounded, n: s.listRecent().length, max: s.MAX_ITEMS, version: raw.version, want: s.STORE_VERSION,
                newest: s.listRecent()[0].id, one: s.loadRecent('r3'), chars: localStorage.getItem(s.STORE_KEY).length,
                maxChars: s.MAX_CHARS};
    }""")
    # Five fifths do not fit with the list's own bytes: the newest four are kept, the oldest dropped.
    assert out["bounded"] == ["t7", "t6", "t5", "t4"]
    assert out["n"] == out["max"] and out["newest"] == f"r{out['max'] + 4}"
    assert out["one"] is None   # r3 was among the oldest
    assert out["version"] == out["want"] == 1 and out["chars"] <= out["maxChars"]


def test_analysis_from_review_and_play_and_on_a_phone(pages, base_url, http):
    page = pages()
    new_game(page, base_url, seed=8)
    page.keyboard.press("a")
    idle_after(page, 0)
    g = game(page)
    page.click("#play-analyse")
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    # The whole game: the deal as the root, the moves so far as the main line, the board on the last one.
    plies = len(g["record"]["actions"])
    d = board_settled(page, ".".join(["0"] * plies))
    assert d["notation"] == g["view"]["notation"] and d["line"] == "~".join(g["record"]["actions"])
    tree = page.evaluate("() => window.quiltsolveAnalysis.tree()")
    assert tree["n"] == engine.new_game(8).to_notation()
    # Review: the selected move's position.
    record = {**full_game_record(9)}
    open_page(page, base_url, "review")
    page.fill("#review-text", json.dumps(record))
    page.click("#review-go")
    page.wait_for_selector("#page-review[data-step='0']", state="attached")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("#page-review[data-step='3']", state="attached")
    page.click("#review-analyse")
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    start = engine.GameState.from_circle(record["circle"])
    d = board_settled(page, "0.0.0")
    assert d["notation"] == notation_after(start, record["actions"][:3])
    assert d["line"] == "~".join(record["actions"][:3])
    page.keyboard.press("ArrowLeft")   # the game's earlier moves are there to step back through
    assert board_settled(page, "0.0")["notation"] == notation_after(start, record["actions"][:2])
    phone = pages(PHONE, touch=True)
    phone.goto(analysis_url(base_url, start.to_notation()))
    phone.wait_for_selector("body[data-ready=analysis]", state="attached")
    board_settled(phone, "")
    overflow = phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the analysis board is wider than a phone: {overflow}px"


def full_game_record(seed: int) -> dict:
    state = engine.new_game(seed)
    circle = list(state.circle)
    actions = []
    players = [GreedyPlayer(), RandomPlayer(seed)]
    while not state.is_terminal() and len(actions) < 12:
        a = players[state.current_player()].choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    return {"edition": "revised", "seed": seed, "circle": circle, "actions": actions}
