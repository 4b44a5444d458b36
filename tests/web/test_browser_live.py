"""The analysis board's infinite analysis in headless Chromium: it streams AnalyzePosition into the evaluation
bar, the best three and their ghosts, restarts on every new node, and stops on the toggle or while the page is
hidden (its worker is free again each time). Skipped where there is no Chromium, as the other browser tests.
"""

from __future__ import annotations

import time

import pytest

from quiltsolve import engine
from quiltsolve.engine.players import GreedyPlayer

from .test_browser import ANALYSIS, analysis_url, page_factory, wait_for

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def pages(browser, base_url):
    yield from page_factory(browser, base_url)


def live_iterations(page) -> int:
    value = page.evaluate(f"() => {ANALYSIS}.liveIterations || ''")
    return int(value) if value else -1


def wait_growing(page, updates: int = 3) -> list[int]:
    """Wait until the board has drawn ``updates`` streamed evaluations of growing iterations; returns them."""
    seen: list[int] = []
    t0 = time.monotonic()
    while len(seen) < updates:
        n = live_iterations(page)
        if n > 0 and (not seen or n > seen[-1]):
            seen.append(n)
        assert time.monotonic() - t0 < 60, f"the streamed evaluation did not grow: {seen}"
        time.sleep(0.02)
    return seen


def worker_free(web_server, timeout: float = 10) -> bool:
    server = web_server[0]
    slots = server.core.admission.stats()["slots"]
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if server.core.admission.stats()["free"] == slots:
            return True
        time.sleep(0.01)
    return False


def set_hidden(page, hidden: bool) -> None:
    page.evaluate(f"""() => {{
        Object.defineProperty(document, 'hidden', {{ value: {str(hidden).lower()}, configurable: true }});
        Object.defineProperty(document, 'visibilityState',
                              {{ value: '{"hidden" if hidden else "visible"}', configurable: true }});
        document.dispatchEvent(new Event('visibilitychange'));
    }}""")


def test_infinite_analysis_streams_restarts_and_stops(pages, base_url, web_server):
    start = engine.new_game(12)
    greedy = GreedyPlayer()
    for _ in range(6):
        start.apply_action(greedy.choose(start))
    page = pages()
    page.goto(analysis_url(base_url, start.to_notation()))
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    wait_for(page, f"{ANALYSIS}.evaluated === {ANALYSIS}.notation", what="the budget's evaluation")
    assert page.text_content("label.switch span") == "Infinite analysis"   # the catalogue's words
    assert page.evaluate(f"() => {ANALYSIS}.live") in (None, "off")

    # On: the evaluation streams: the iterations grow, the bar, the best three and their ghosts follow.
    page.check("#an-infinite")
    assert page.evaluate(f"() => {ANALYSIS}.live") == "on" and page.is_disabled("#an-budget")
    grown = wait_growing(page, 3)
    assert grown == sorted(grown)
    mover = start.current_player()
    best = page.evaluate("() => [...document.querySelectorAll('#an-best li')].map(li => "
                         "({move: li.dataset.move, win: Number(li.dataset.win), visits: Number(li.dataset.visits)}))")
    assert 1 <= len(best) <= 3 and all(b["visits"] > 0 for b in best)
    assert all(start.is_legal(engine.parse_action(b["move"])) for b in best)
    first = float(page.get_attribute("#an-evalbar", "data-first"))
    assert abs(first - (best[0]["win"] if mover == 0 else 1 - best[0]["win"])) < 0.02
    ghosts = page.evaluate(f"() => [...document.querySelectorAll('#an-quilt-{mover} .engine-ghost')]"
                           ".map(g => g.dataset.move)")
    assert set(ghosts) <= {b["move"] for b in best} and (ghosts or all(b["move"] == "advance" for b in best))
    assert "still thinking" in page.text_content("#an-eval-info")

    # A new node (a move played from the list): the analysis restarts there. The server has one main worker:
    # the new stream gets it only because the old one was cancelled at once.
    before = start.to_notation()
    page.click("#an-best li:first-child")
    wait_for(page, f"{ANALYSIS}.notation !== {before!r} && {ANALYSIS}.busy === '0'", what="the move played")
    after = page.evaluate(f"() => {ANALYSIS}.notation")
    wait_for(page, f"{ANALYSIS}.evaluated === {after!r} && Number({ANALYSIS}.liveIterations) > 0",
             what="the new node's streamed evaluation")
    wait_growing(page, 2)

    # Hidden (another tab): the stream stops and the worker is free; seen again, it restarts.
    set_hidden(page, True)
    assert page.evaluate(f"() => {ANALYSIS}.live") == "paused"
    assert worker_free(web_server)
    assert "paused" in page.text_content("#an-eval-info")
    set_hidden(page, False)
    wait_growing(page, 2)

    # Another page of the app hides the board: the stream stops; back on the board, it streams again.
    page.evaluate("() => { location.hash = '#play'; }")
    page.wait_for_selector("body[data-ready=play]", state="attached")
    assert worker_free(web_server)
    page.go_back()
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    wait_growing(page, 2)

    # Off: the stream stops, the worker is free, the last evaluation stays drawn and stops changing.
    page.uncheck("#an-infinite")
    assert page.evaluate(f"() => {ANALYSIS}.live") == "off" and not page.is_disabled("#an-budget")
    assert worker_free(web_server)
    kept = live_iterations(page)
    time.sleep(0.6)
    assert live_iterations(page) == kept > 0
    assert "ended" in page.text_content("#an-eval-info")


def test_the_toggle_speaks_the_readers_language(pages, base_url):
    page = pages()
    page.goto(f"{base_url}/?lang=uk#analysis")
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    assert page.text_content("label.switch span") == "Безкінечний аналіз"
    assert page.get_attribute("label.switch", "title").startswith("Рушій")
