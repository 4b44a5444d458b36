"""The engine's levels (``level:1`` … ``level:8``, engine/players/levels.py): the registry, seeded moves, legal
games, the error model's window, level 8 as the full search, and the ratings file."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from quiltsolve import engine
from quiltsolve.engine.actions import ADVANCE
from quiltsolve.engine.games import play_game
from quiltsolve.engine.players import GreedyPlayer, LevelPlayer, SearchPlayer, known_players, level_ratings, make_player
from quiltsolve.engine.players.levels import LEVELS, parse_level
from quiltsolve.solver import StopToken


def positions(deal: int, every: int = 6) -> list[engine.GameState]:
    """Positions of a greedy self-play game of ``deal``, one every ``every`` plies (not the finished one)."""
    state, out, g, ply = engine.new_game(deal), [], GreedyPlayer(), 0
    while not state.is_terminal():
        if ply % every == 0:
            out.append(state.clone())
        state.apply_action(g.choose(state))
        ply += 1
    return out


def test_the_registry_knows_every_level():
    assert "level" in known_players()
    assert sorted(LEVELS) == list(range(1, 9))
    for n in LEVELS:
        p = make_player(f"level:{n}", 3)
        assert isinstance(p, LevelPlayer) and p.name == f"level:{n}" and p.level.number == n
    # the lower levels see less and err more; level 8 is the search's best move, with proofs
    budgets = [LEVELS[n].iterations for n in sorted(LEVELS)]
    temperatures = [LEVELS[n].temperature for n in sorted(LEVELS)]
    assert budgets == sorted(budgets) and temperatures == sorted(temperatures, reverse=True)
    assert LEVELS[8].temperature == 0 and LEVELS[8].prove


@pytest.mark.parametrize("spec", ["level", "level:", "level:0", "level:9", "level:x", "level:1.5", "level:01",
                                  "level:-1", "level:3it"])
def test_a_bad_level_is_refused_naming_the_levels(spec):
    with pytest.raises(ValueError, match=r"level:1 \.\.\. level:8"):
        make_player(spec, 0)


def test_parse_level_and_the_class_check_their_input():
    assert [parse_level(str(n)) for n in range(1, 9)] == list(range(1, 9))
    for bad in (0, 9, True, "3", 2.0):
        with pytest.raises(ValueError, match="level must be an integer from 1 to 8"):
            LevelPlayer(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", [1, 3, 5])
def test_same_seed_same_moves(level):
    for state in positions(21)[:6]:
        first = LevelPlayer(level, seed=7).choose(state.clone())
        assert LevelPlayer(level, seed=7).choose(state.clone()) == first
        assert state.is_legal(first)


def test_the_seed_changes_the_low_levels_choices():
    """Level 1's softmax draw follows its seed: over a few positions, some seeds choose differently."""
    states = positions(4)[:8]
    seen = {tuple(LevelPlayer(1, seed=s).choose(st.clone()).to_str() for st in states) for s in range(8)}
    assert len(seen) > 1


def test_whole_games_are_legal_and_replay_the_same():
    """Two games of levels against each other and greedy: every move legal (play_game raises PlayerError
    otherwise), the game over at the end, and the same seeds give the same record."""
    for a, b, deal in (("level:1", "level:2", 5), ("greedy", "level:4", 6)):
        records = []
        for _ in range(2):
            final, record = play_game((make_player(a, 1), make_player(b, 2)), engine.new_game(deal))
            assert final.is_terminal()
            records.append(record["actions"])
        assert records[0] == records[1]


def test_the_draw_never_leaves_the_window_and_favours_the_better_move():
    """The error model: only moves within ``window`` of the best are drawn, and the better one more often."""
    state = engine.new_game(1)
    moves = [a for a in state.iter_legal_actions() if a != ADVANCE][:2] + [ADVANCE]
    window = LEVELS[1].window
    ranked = [(0.60, moves[0]), (0.60 - window / 3, moves[1]), (0.60 - 2 * window, moves[2])]
    picks = [LevelPlayer(1, seed=s)._draw(state, ranked) for s in range(300)]
    assert moves[2] not in picks
    assert picks.count(moves[0]) > picks.count(moves[1]) > 0


def test_level_8_is_the_search_on_its_budget():
    state = positions(8)[3]
    want = SearchPlayer(iterations=LEVELS[8].iterations, seed=4, lookahead=False).choose(state.clone())
    assert LevelPlayer(8, seed=4).choose(state.clone()) == want


def test_a_stopped_level_still_answers_a_legal_move():
    stop = StopToken()
    stop.set()
    for state in positions(2)[1:4]:
        assert state.is_legal(LevelPlayer(6, seed=0).choose(state.clone(), stop))


def test_the_ratings_file_rates_every_level_and_the_fixed_points():
    data = level_ratings()
    players = data["players"]
    assert set(players) >= {f"level:{n}" for n in LEVELS} | {"random", "greedy"}
    for spec, r in players.items():
        assert r["low"] <= r["elo"] <= r["high"], spec
        assert r["games"] > 0 and r["think_mean"] >= 0 and r["think_p95"] >= 0
    anchor, _, value = data["anchor"].partition(" = ")
    assert players[anchor]["elo"] == float(value)
    assert data["command"].startswith("python -m bench levels") and data["games"] >= 1


def test_the_ratings_were_measured_on_today_s_levels():
    """A retuned level must be measured again (python -m bench levels --write): the file records the settings."""
    measured = level_ratings()["levels"]
    assert measured == {f"level:{n}": {"iterations": lv.iterations, "temperature": lv.temperature,
                                       "window": lv.window, "prove": lv.prove} for n, lv in LEVELS.items()}


# ---------------------------------------------------------------- the command lines

# A build without a compiler warns once per process that the C core is not built: the error lines are counted
# without that notice.
NO_C_NOTICE = ("ignore:quiltsolve.engine._core is not built:RuntimeWarning,"
               "ignore:quiltsolve.engine._endgame is not built:RuntimeWarning")


def _run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": NO_C_NOTICE}
    return subprocess.run([sys.executable, "-m", *argv], input=stdin, capture_output=True, text=True, timeout=120,
                          env=env)


def test_match_plays_levels_and_names_the_option_of_a_bad_one():
    r = _run("quiltsolve.engine", "match", "--a", "level:2", "--b", "level:1", "--games", "2", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert (summary["a"], summary["b"], summary["games"]) == ("level:2", "level:1", 2)
    for option, args in (("--a", ["--a", "level:9", "--b", "greedy"]), ("--b", ["--a", "greedy", "--b", "level"])):
        r = _run("quiltsolve.engine", "match", *args, "--games", "2")
        assert r.returncode == 2 and r.stdout == ""
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{option}: level player" in lines[0] and "level:1 ... level:8" in lines[0]


def test_suggest_play_takes_a_level_and_names_the_option_of_a_bad_one():
    # Playing second: level 3 moves first, then the session reads 'quit'.
    r = _run("quiltsolve.clients.cli", "play", "--engine", "level:3", "--side", "1", "--seed", "5", stdin="quit\n")
    assert r.returncode == 0, r.stderr
    first = LevelPlayer(3, seed=5).choose(engine.new_game(5))
    said = next(line for line in r.stdout.splitlines() if line.startswith("player 1 (level:3) "))
    assert ("advances" in said) == (first.to_str() == "advance")
    r = _run("quiltsolve.clients.cli", "play", "--engine", "level:0")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--engine: level player takes a level from 1 to 8" in lines[0]
