"""The limits written in placement.proto's comments are the ones the service enforces.

Every field comment is read; each range ``A-B`` in one must be listed in
:data:`RANGES` with the constants the checks use, so a comment that states a
new limit (or changes one) fails here until it matches the code. The time
limits' ``at most N s`` / ``unset means N s`` are checked the same way.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quiltsolve import solver
from quiltsolve.engine.state_json import MAX_BUTTONS, MAX_INCOME, MAX_LEATHER
from quiltsolve.engine.track import END
from quiltsolve.server.convert import MAX_GRID
from quiltsolve.solver.limits import DEFAULT_REPORT_INTERVAL, MAX_ANALYSIS_TIME, MAX_REPORT_INTERVAL, MIN_REPORT_INTERVAL
from quiltsolve.solver.limits import (CIRCLE_PATCHES, DEFAULT_ITERATIONS_LIMIT, DEFAULT_LARGE_LOSS, DEFAULT_REVIEW_LIMIT, DEFAULT_SOLVE_LIMIT,
                           DEFAULT_SUGGEST_LIMIT, MAX_COUNT, MAX_ITERATIONS, MAX_LARGE_LOSS, MAX_PATCH_REFS,
                           MAX_LOAD_TEXT, MAX_MOVE_TEXT, MAX_PIECES, MAX_RECORD_ACTIONS, MAX_SEED, MAX_SHAPE_TEXT, MAX_STATE_JSON, MAX_TILINGS,
                           MAX_TIME_LIMIT, MAX_TOP, MAX_UPCOMING_COPIES)

PROTO = Path(__file__).resolve().parent.parent / "proto" / "patchwork" / "v1" / "placement.proto"
LAST_ID = len(solver.PATCHES) - 1


def field_comments(text: str) -> dict[str, str]:
    """``"Message.field"`` → the comment lines just above the field, joined."""
    out: dict[str, str] = {}
    stack: list[str] = []
    comment: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("//"):
            comment.append(line[2:].strip())
            continue
        m = re.match(r"(message|enum|oneof|service)\s+(\w+)\s*\{", line)
        if m:
            stack.append(m.group(2) if m.group(1) != "oneof" else "")
        else:
            f = re.match(r"(?:repeated\s+|optional\s+)?[\w.]+\s+(\w+)\s*=\s*\d+", line)
            if f and stack:
                message = next(name for name in reversed(stack) if name)
                out[f"{message}.{f.group(1)}"] = " ".join(comment)
            if line.endswith("}") and stack:
                stack.pop()
        comment = []
    return out


COMMENTS = field_comments(PROTO.read_text())

# Every "A-B" range a field comment states, as the code enforces it.
RANGES = {
    "PatchRef.id": (0, LAST_ID),
    "PatchRef.count": (0, MAX_COUNT),
    "PlacedPatch.id": None,  # an answer field: no range stated
    "Region.rows": (1, MAX_GRID),
    "Patch.id": (0, LAST_ID),
    "MoveSuggestion.win_chance": (0, 1),  # a chance (value, its deprecated twin, states no range of its own)
    "AnalyzeGameResponse.value_played": (0, 1),
    "AnalyzeGameResponse.value_best": (0, 1),
    "AnalyzeGameResponse.player_accuracy": (0, 100),  # an answer field: a percentage
    "SolvePlacementRequest.patches": (1, MAX_PATCH_REFS),
    "SuggestPlacementRequest.upcoming": (0, MAX_PATCH_REFS),
    "SuggestPlacementRequest.top": (0, MAX_TOP),
    "SuggestMoveRequest.top": (0, MAX_TOP),
    "PlayerState.buttons": (0, MAX_BUTTONS),
    "PlayerState.position": (0, END),
    "PlayerState.income": (0, MAX_INCOME),
    "PlayerState.leather": (0, MAX_LEATHER),
    "GameState.leather_to_place": (0, MAX_LEATHER),
    "GameRecord.circle": (0, LAST_ID),
    "GameRecord.actions": (1, MAX_RECORD_ACTIONS),
    "SuggestMoveRequest.iterations": (1, MAX_ITERATIONS),
    "AnalyzeGameRequest.iterations": (1, MAX_ITERATIONS),
    "AnalyzePositionRequest.iterations": (1, MAX_ITERATIONS),   # SuggestMove's budgets
    "AnalyzePositionRequest.top": (0, MAX_TOP),
    "AnalyzedMove.win_chance": (0, 1),
    "SolvePuzzleRequest.pieces": (0, MAX_PIECES),  # with unlimited_pieces, 1-64 shapes in both together
    "SolvePuzzleRequest.max_tilings": (0, MAX_TILINGS),
    "GeneratePuzzleRequest.height": (1, MAX_GRID),
    "GeneratePuzzleRequest.width": (1, MAX_GRID),
    "GeneratePuzzleRequest.pieces": (1, MAX_PIECES),
    # GameService: one seed rule and SuggestMove's limits for every move-choosing call
    "NewGameRequest.seed": (0, MAX_SEED),
    "NewGameRequest.circle": (0, CIRCLE_PATCHES - 1),   # a starting circle: its ids (server.positions.from_circle)
    "LegalMovesRequest.patch_id": (0, LAST_ID),
    "EngineMoveRequest.strength": (1, MAX_ITERATIONS),
    "EngineMoveResponse.win_chance": (0, 1),
    "PlayerView.position": (0, END),
}

TIME_LIMITS = {
    "SolvePlacementRequest.time_limit": DEFAULT_SOLVE_LIMIT,
    "SuggestPlacementRequest.time_limit": DEFAULT_SUGGEST_LIMIT,
    "SuggestMoveRequest.time_limit": DEFAULT_SUGGEST_LIMIT,
    "AnalyzePositionRequest.time_limit": DEFAULT_SUGGEST_LIMIT,
    "AnalyzeGameRequest.time_per_move": DEFAULT_REVIEW_LIMIT,
    "SolvePuzzleRequest.time_limit": DEFAULT_SOLVE_LIMIT,
    "GeneratePuzzleRequest.time_limit": DEFAULT_SOLVE_LIMIT,
}


def test_the_comments_were_read():
    assert len(COMMENTS) > 60
    assert "Buttons held" in COMMENTS["PlayerState.buttons"]
    assert "at most one" not in COMMENTS.get("PatchRef.kind", "")


def test_every_stated_range_is_listed():
    stated = {name for name, text in COMMENTS.items() if re.search(r"(?<![\w.-])\d+-\d+(?!\w|\.\d)", text)}
    assert stated <= set(RANGES), f"ranges in comments not checked here: {sorted(stated - set(RANGES))}"


@pytest.mark.parametrize("name", sorted(k for k, v in RANGES.items() if v), ids=str)
def test_stated_range_is_the_enforced_one(name):
    lo, hi = RANGES[name]
    ranges = [(int(a), int(b)) for a, b in re.findall(r"(?<![\w.-])(\d+)-(\d+)(?!\w|\.\d)", COMMENTS[name])]
    assert (lo, hi) in ranges, f"{name}: the comment says {ranges}, the code enforces {lo}-{hi}: " \
                               f"{COMMENTS[name]!r}"


@pytest.mark.parametrize("name", sorted(TIME_LIMITS), ids=str)
def test_stated_time_limits_are_the_enforced_ones(name):
    text = COMMENTS[name]
    assert f"at most {MAX_TIME_LIMIT:g} s" in text, text
    assert f"unset means {TIME_LIMITS[name]:g} s" in text, text
    if name.startswith(("SuggestMove", "AnalyzeGame", "AnalyzePosition")):  # a fixed budget runs longer by default
        assert f"{DEFAULT_ITERATIONS_LIMIT:g} s with `iterations`" in text, text


def test_other_stated_limits():
    assert f"at most {MAX_UPCOMING_COPIES}" in COMMENTS["SuggestPlacementRequest.upcoming"]
    assert f"At most {MAX_STATE_JSON} characters" in COMMENTS["SuggestMoveRequest.state_json"]
    assert f"at most {MAX_SHAPE_TEXT} characters" in COMMENTS["PatchRef.shape"]
    assert f"at most {MAX_SHAPE_TEXT} characters" in COMMENTS["SolvePuzzleRequest.pieces"]
    assert f"{MAX_GRID}x{MAX_GRID}" in COMMENTS["SolvePuzzleRequest.pieces"]
    text = COMMENTS["AnalyzeGameRequest.large_loss"]
    assert f"at most {MAX_LARGE_LOSS:g}" in text and f"0 means {DEFAULT_LARGE_LOSS:g}" in text, text
    assert f"{solver.LEATHER_PATCH_ID} for the 1x1 leather" in COMMENTS["PatchRef.id"]
    strength = COMMENTS["EngineMoveRequest.strength"]
    assert f"at most {MAX_TIME_LIMIT:g} s" in strength and f"means {DEFAULT_SUGGEST_LIMIT:g} s" in strength
    assert f"at most {MAX_MOVE_TEXT} characters" in COMMENTS["ApplyMoveRequest.move"]
    assert f"at most {MAX_LOAD_TEXT} characters" in COMMENTS["LoadPositionRequest.text"]
    assert f"At most {MAX_STATE_JSON} characters" in COMMENTS["AnalyzePositionRequest.state_json"]
    assert f"at most {MAX_ANALYSIS_TIME:g} s" in COMMENTS["AnalyzePositionRequest.until_cancelled"]
    interval = COMMENTS["AnalyzePositionRequest.report_interval"]
    assert f"at least {MIN_REPORT_INTERVAL * 1000:g} ms, at most {MAX_REPORT_INTERVAL:g} s" in interval, interval
    assert f"unset means {DEFAULT_REPORT_INTERVAL:g} s" in interval, interval


def test_stated_difficulty_bands_are_the_generator_s():
    from quiltsolve.solver.puzzle.generate import DIFFICULTY_BANDS
    text = PROTO.read_text()
    easy, medium, hard = (DIFFICULTY_BANDS[k] for k in ("easy", "medium", "hard"))
    assert easy[0] == 0 and easy[1] == medium[0] and medium[1] == hard[0]
    assert f"Fewer than {easy[1]} search nodes." in text
    assert f"{medium[0]} to {medium[1] - 1} search nodes." in text
    assert f"{hard[0]} search nodes or more." in text
