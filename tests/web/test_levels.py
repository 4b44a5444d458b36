"""The engine's levels on the HTTP face and the Play page: ``game/engine-move`` with ``level:N``, the ratings
served from the engine's data file, and (headless Chromium) the opponent list with its ratings, the choice kept
after a reload, and a game against a level."""

from __future__ import annotations

import math

import pytest

from quiltsolve import engine
from quiltsolve.engine.players import GreedyPlayer, LevelPlayer, level_ratings
from quiltsolve.server import positions

from .test_browser import PLAY, game, idle_after, new_game, open_page, page_factory, wait_for

pytestmark = pytest.mark.timeout(240)


def played(deal: int, plies: int) -> engine.GameState:
    state, g = engine.new_game(deal), GreedyPlayer()
    for _ in range(plies):
        state.apply_action(g.choose(state))
    return state


def state_mapping(state: engine.GameState) -> dict:
    return positions.to_mapping(state)


def test_engine_move_plays_a_level_reproducibly(http):
    state = played(4, 7)
    body = {"state": state_mapping(state), "strength": "level:4", "seed": 11}
    first = http.post("/api/v1/game/engine-move", json=body)
    assert first.status_code == 200, first.text
    answer = first.json()
    assert answer["strength"] == "level:4" and "win_chance" not in answer
    assert answer["move"]["text"] == LevelPlayer(4, seed=11).choose(state.clone()).to_str()
    assert http.post("/api/v1/game/engine-move", json=body).json()["move"] == answer["move"]


@pytest.mark.parametrize("strength", ["level:0", "level:9", "level", "level:two", "Level:3"])
def test_engine_move_refuses_a_bad_level_naming_the_field(http, strength):
    r = http.post("/api/v1/game/engine-move", json={"state": state_mapping(played(4, 2)), "strength": strength})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "INVALID_ARGUMENT" and error["field"] == "strength" and "level:N" in error["message"]


def test_the_ratings_are_served_from_the_engine_s_file(http):
    r = http.get("/levels.json")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.json() == level_ratings()


# ---------------------------------------------------------------- the Play page (headless Chromium)

@pytest.fixture
def pages(browser, base_url):
    yield from page_factory(browser, base_url)


def level_options(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('#play-levels option')]
        .map(o => ({value: o.value, text: o.textContent, elo: o.dataset.elo ?? null}))""")


def test_the_play_page_lists_the_levels_with_their_ratings_and_keeps_the_choice(pages, base_url):
    page = pages()
    open_page(page, base_url, "play")
    ratings = level_ratings()["players"]
    options = level_options(page)
    assert [o["value"] for o in options] == [f"level:{n}" for n in range(1, 9)]
    for o in options:
        elo = math.floor(ratings[o["value"]]["elo"] + 0.5)        # JavaScript's Math.round
        assert o["elo"] == str(elo)
        assert o["text"].startswith(f"Level {o['value'][6:]}") and f"{elo:,}" in o["text"]
    assert "greedy = 1000" in page.get_attribute("#play-strength", "title")
    # The choice is kept through a reload (before any move: no game to resume, so the saved choice shows).
    page.select_option("#play-strength", "level:5")
    page.reload()
    page.wait_for_selector("body[data-ready=play]", state="attached")
    wait_for(page, f"{PLAY}.busy === '0'", what="the page")
    assert page.input_value("#play-strength") == "level:5"
    assert page.evaluate("() => localStorage.getItem('quiltsolve.play.strength')") == "level:5"   # store.js's setting


def test_a_game_against_a_level_plays_its_moves(pages, base_url):
    """Playing second against level 3: its moves are the level's own (the same seed, the same move)."""
    page = pages()
    new_game(page, base_url, seed=12, strength="level:3", side="1")
    idle_after(page, 0)
    g = game(page)
    assert g["strength"] == "level:3" and g["human"] == 1
    first = engine.new_game(12)
    want = LevelPlayer(3, seed=12 % 1000003).choose(first)
    assert g["record"]["actions"][0] == want.to_str()
