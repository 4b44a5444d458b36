"""The analysis board's Solve button in headless Chromium: it streams SolvePosition into the proven range, the
words and the line, ends with the exact value (the engine's), and Stop (or another node) ends the solve and
frees its worker. Skipped where there is no Chromium, as the other browser tests.
"""

from __future__ import annotations

import pytest

from quiltsolve import engine
from quiltsolve.engine.solve import solve_exact

from .test_browser import ANALYSIS, analysis_url, page_factory, wait_for
from .test_browser_live import worker_free

pytestmark = pytest.mark.timeout(240)

EIGHT = ("r 47,37,tirvpmf2w3g,777577557557777077077005005 46,12,l97aq0u6k8n,777777777743741740770774770 "
         "j4he1odbsc5 1 -")       # 8 plies before the end: solved in a few hundredths of a second
HARD = ("r 26,0,tnmhc3d,775777677577423401400 25,2,au1gqriv,000000000000611775767577777 "
        "l0kb68f9opes7j42w5 1 -")   # 20 plies into seed 7's game: far from solved in a minute
BOX = "document.getElementById('an-solve-box').dataset"


@pytest.fixture
def pages(browser, base_url):
    yield from page_factory(browser, base_url)


def open_board(page, base_url: str, notation: str) -> None:
    page.goto(analysis_url(base_url, notation))
    page.wait_for_selector("body[data-ready=analysis]", state="attached")
    wait_for(page, f"{ANALYSIS}.evaluated === {ANALYSIS}.notation", what="the budget's evaluation")


def test_solve_ends_with_the_exact_value_and_a_perfect_line(pages, base_url, web_server):
    page = pages()
    open_board(page, base_url, EIGHT)
    assert page.text_content("#an-solve") == "Solve" and page.is_hidden("#an-solve-box")
    page.click("#an-solve")
    wait_for(page, f"{BOX}.state === 'exact'", what="the exact value")
    want = solve_exact(engine.GameState.from_notation(EIGHT))
    assert page.evaluate(f"() => [{BOX}.lower, {BOX}.upper, {BOX}.value]") == [str(want.value)] * 3
    status = page.text_content("#an-solve-status")
    assert status.startswith("Solved: player 2 (to move) wins by 3"), status
    moves = page.get_attribute("#an-solve-line", "data-moves").split("~")
    assert moves == [a.to_str() for a in want.line]
    assert page.text_content("#an-solve-line").startswith("Perfect play: 1. buy 17")
    assert page.text_content("#an-solve") == "Solve"
    assert worker_free(web_server)


def test_stop_and_another_node_end_the_solve(pages, base_url, web_server):
    page = pages()
    open_board(page, base_url, HARD)
    page.click("#an-solve")
    wait_for(page, f"{BOX}.state === 'running' && {BOX}.lower !== ''", what="the first update")
    lower, upper = (int(x) for x in page.evaluate(f"() => [{BOX}.lower, {BOX}.upper]"))
    assert lower < upper and page.text_content("#an-solve") == "Stop"
    assert page.get_attribute("#an-solve", "aria-pressed") == "true"
    assert page.text_content("#an-solve-status").startswith("Proven so far: player 2's final margin is between")
    page.click("#an-solve")        # Stop
    wait_for(page, f"{BOX}.state === 'stopped'", what="the stop")
    assert worker_free(web_server)
    assert page.text_content("#an-solve-status").startswith("Stopped after")
    assert page.text_content("#an-solve") == "Solve"
    # Solving again, then a move played from the engine's list: the solve of the old node ends.
    page.click("#an-solve")
    wait_for(page, f"{BOX}.state === 'running'", what="the second solve")
    page.click("#an-best li:first-child")
    wait_for(page, f"{ANALYSIS}.notation !== {HARD!r} && {ANALYSIS}.busy === '0'", what="the move played")
    assert worker_free(web_server)
    assert page.is_hidden("#an-solve-box") and page.text_content("#an-solve") == "Solve"


def test_the_solve_speaks_the_readers_language(pages, base_url):
    page = pages(locale="ko-KR")
    open_board(page, base_url, EIGHT)
    assert page.text_content("#an-solve") == "풀기"
    page.click("#an-solve")
    wait_for(page, f"{BOX}.state === 'exact'", what="the exact value")
    assert page.text_content("#an-solve-status").startswith("풀이 완료")
    assert page.text_content("#an-solve-line").startswith("최선의 수순")
