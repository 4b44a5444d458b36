"""One contract, three faces: every case goes through the embedded client, gRPC and the HTTP API.

Each case is one request message (the contract, ``proto/patchwork/v1``). The
gRPC face gets it from the generated stub, the HTTP face as its protobuf
JSON mapping (``POST /api/v1/...``), the embedded client through
:meth:`clients.EmbeddedClient.call`. Every face must give the same answer
(the same seed and iterations: every case here is deterministic) or the same
error code naming the same field.
"""

from __future__ import annotations

import json

import grpc
import httpx
import pytest
from google.protobuf import json_format

from quiltsolve import engine
from quiltsolve.clients import ClientError, EmbeddedClient, PlacementClient
from quiltsolve.engine import endgame as exact
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import ServerConfig, build_server, positions, protojson
from quiltsolve.server.errors import field_of
from quiltsolve.solver import PATCHES
from quiltsolve.solver.limits import MAX_COUNT, MAX_TOP, MAX_UPCOMING_COPIES
from quiltsolve.web import HttpFace

from .server.conftest import endgame, greedy_game, play
from .aio import run_coroutine

EMPTY = ["........."] * 9
CORNER = ["#########", "#########"] + ["###......"] * 7
FULL_BUT_TWO = ["#" * 9] * 8 + ["#######.."]
REGION = ["....."] * 3
PIECES = ["####/#...", "###/.#./.#.", ".#../####"]
PATH = {"SolvePlacement": "solve-placement", "SuggestPlacement": "suggest-placement",
        "SuggestMove": "suggest-move", "SolvePuzzle": "solve-puzzle", "AnalyzeGame": "analyze-game",
        "AnalyzePosition": "analyze-position", "SolvePosition": "solve-position",
        "GeneratePuzzle": "generate-puzzle",
        # GameService: the browser app's paths, generated from the same messages
        "NewGame": "game/new", "ViewPosition": "game/view", "LegalMoves": "game/legal", "ApplyMove": "game/apply",
        "EngineMove": "game/engine-move", "ReplayGame": "game/replay", "LoadPosition": "game/load",
        "PositionNotation": "game/notation"}
GAME_METHODS = set(pb.DESCRIPTOR.services_by_name["GameService"].methods_by_name)
STREAMS = {"AnalyzeGame", "AnalyzePosition", "SolvePosition"}
LAST_ONLY = {"AnalyzePosition", "SolvePosition"}   # streams compared by their final update (the rest is timing)
UPDATES = {"AnalyzePosition": "AnalyzePositionUpdate", "SolvePosition": "SolvePositionUpdate"}


def finished(seed: int = 4) -> engine.GameState:
    state = engine.new_game(seed)
    greedy = GreedyPlayer()
    while not state.is_terminal():
        state.apply_action(greedy.choose(state))
    return state


def record(seed: int, plies: int) -> pb.GameRecord:
    state = engine.new_game(seed)
    start = list(state.circle)
    actions = []
    greedy = GreedyPlayer()
    for _ in range(plies):
        action = greedy.choose(state)
        actions.append(action.to_str())
        state.apply_action(action)
    return pb.GameRecord(edition=pb.EDITION_REVISED, circle=start, actions=actions)


def d(seconds: float) -> dict:
    return {"seconds": int(seconds), "nanos": int(round((seconds - int(seconds)) * 1e9))}


def mutated(state: engine.GameState, change) -> pb.GameState:
    msg = positions.to_message(state)
    change(msg)
    return msg


MID = play(11, 14)
# A circle as a person lays it out at a table: patch 0 last, the rest in an order no seed deals here.
TABLE = list(range(32, 16, -1)) + list(range(1, 17)) + [0]
MID2 = play(3, 30)
OVER = finished()
REC = record(5, 4)
END = endgame(1, 3)       # proven by the endgame solver at once


def _solve(**kw) -> pb.SolvePlacementRequest:
    base = {"board": pb.Board(rows=CORNER), "patches": [pb.PatchRef(id=0)], "objective": pb.OBJECTIVE_COVER,
            "seed": 1}
    base.update(kw)
    return pb.SolvePlacementRequest(**{k: v for k, v in base.items() if v is not None})


def _rank(**kw) -> pb.SuggestPlacementRequest:
    base = {"board": pb.Board(rows=CORNER), "patch": pb.PatchRef(id=5), "upcoming": [pb.PatchRef(id=9)],
            "objective": pb.OBJECTIVE_COVER, "top": 3, "seed": 1}
    base.update(kw)
    return pb.SuggestPlacementRequest(**{k: v for k, v in base.items() if v is not None})


def _move(**kw) -> pb.SuggestMoveRequest:
    base = {"state": positions.to_message(MID), "top": 3, "seed": 2, "iterations": 40}
    base.update(kw)
    return pb.SuggestMoveRequest(**{k: v for k, v in base.items() if v is not None})


def _review(**kw) -> pb.AnalyzeGameRequest:
    base = {"record": REC, "iterations": 20, "seed": 1}
    base.update(kw)
    return pb.AnalyzeGameRequest(**{k: v for k, v in base.items() if v is not None})


def _analyze(**kw) -> pb.AnalyzePositionRequest:
    base = {"state": positions.to_message(MID), "top": 3, "seed": 2, "iterations": 60,
            "report_interval": {"nanos": 50_000_000}}
    base.update(kw)
    return pb.AnalyzePositionRequest(**{k: v for k, v in base.items() if v is not None})


EIGHT = engine.GameState.from_notation("r 47,37,tirvpmf2w3g,777577557557777077077005005 "
                                      "46,12,l97aq0u6k8n,777777777743741740770774770 j4he1odbsc5 1 -")


def _exact(**kw) -> pb.SolvePositionRequest:
    base = {"state": positions.to_message(EIGHT), "report_interval": {"nanos": 50_000_000}}
    base.update(kw)
    return pb.SolvePositionRequest(**{k: v for k, v in base.items() if v is not None})


def _puzzle(**kw) -> pb.SolvePuzzleRequest:
    base = {"region": pb.Region(rows=REGION), "pieces": PIECES, "mode": pb.PUZZLE_MODE_FIND}
    base.update(kw)
    return pb.SolvePuzzleRequest(**{k: v for k, v in base.items() if v is not None})


def _generate(**kw) -> pb.GeneratePuzzleRequest:
    base = {"family": pb.PIECE_FAMILY_PENTOMINOES, "seed": 3, "time_limit": {"seconds": 30}}
    base.update(kw)
    return pb.GeneratePuzzleRequest(**{k: v for k, v in base.items() if v is not None})


def _bad_row(msg: pb.GameState) -> None:
    msg.players[0].board.rows[2] = "#.x......"


def _one_player(msg: pb.GameState) -> None:
    del msg.players[1]


def _rich(msg: pb.GameState) -> None:
    msg.players[0].buttons = 5000


def _no_edition(msg: pb.GameState) -> None:
    msg.edition = pb.EDITION_UNSPECIFIED


def _turn(msg: pb.GameState) -> None:
    msg.current_player = 5


def _patch_twice(msg: pb.GameState) -> None:
    msg.players[0].patches.append(msg.circle[0])


def _state(state: engine.GameState = MID, change=None) -> pb.GameState:
    return mutated(state, change) if change else positions.to_message(state)


def _first_buy(state: engine.GameState) -> str:
    return next(a.to_str() for a in state.legal_actions() if a.to_str().startswith("buy"))


def _record_text(rec: pb.GameRecord, **extra) -> str:
    return json.dumps({"edition": "revised", "circle": list(rec.circle), "actions": list(rec.actions), **extra})


OK = None   # an answer, the same on every face
# GameService (the browser app's game paths): every seed given, every search a fixed budget, so each
# answer is deterministic.
GAME_CASES = [
    # ------------------------------------------------------------ NewGame
    ("new-game", "NewGame", pb.NewGameRequest(seed=7), OK, None),
    ("new-game-original", "NewGame", pb.NewGameRequest(seed=3, edition="original"), OK, None),
    ("new-game-seed-0", "NewGame", pb.NewGameRequest(seed=0), OK, None),     # 0 is a deal, not "unset"
    ("new-game-edition", "NewGame", pb.NewGameRequest(seed=1, edition="deluxe"), "INVALID_ARGUMENT", "edition"),
    ("new-game-seed", "NewGame", pb.NewGameRequest(seed=-1), "INVALID_ARGUMENT", "seed"),
    # a circle as it lies on a table (issue 32): the position codec's one check of it, no seed
    ("new-game-circle", "NewGame", pb.NewGameRequest(circle=TABLE), OK, None),
    ("new-game-circle-original", "NewGame", pb.NewGameRequest(circle=TABLE, edition="original"), OK, None),
    ("new-game-circle-short", "NewGame", pb.NewGameRequest(circle=TABLE[:5] + TABLE[6:]), "INVALID_ARGUMENT",
     "circle"),
    ("new-game-circle-long", "NewGame", pb.NewGameRequest(circle=TABLE + [TABLE[0]]), "INVALID_ARGUMENT",
     "circle[33]"),
    ("new-game-circle-twice", "NewGame", pb.NewGameRequest(circle=TABLE[:7] + [TABLE[2]] + TABLE[8:]),
     "INVALID_ARGUMENT", "circle[7]"),
    ("new-game-circle-unknown", "NewGame", pb.NewGameRequest(circle=TABLE[:3] + [33] + TABLE[4:]),
     "INVALID_ARGUMENT", "circle[3]"),
    ("new-game-circle-negative", "NewGame", pb.NewGameRequest(circle=[-1] + TABLE[1:]), "INVALID_ARGUMENT",
     "circle[0]"),
    ("new-game-circle-end", "NewGame", pb.NewGameRequest(circle=TABLE[-1:] + TABLE[:-1]), "INVALID_ARGUMENT",
     "circle[32]"),
    ("new-game-circle-and-seed", "NewGame", pb.NewGameRequest(seed=3, circle=TABLE), "INVALID_ARGUMENT", "seed"),
    ("new-game-circle-edition", "NewGame", pb.NewGameRequest(circle=TABLE, edition="deluxe"), "INVALID_ARGUMENT",
     "edition"),
    # ------------------------------------------------------------ ViewPosition
    ("view", "ViewPosition", pb.ViewPositionRequest(state=_state()), OK, None),
    ("view-late", "ViewPosition", pb.ViewPositionRequest(state=_state(MID2)), OK, None),
    ("view-over", "ViewPosition", pb.ViewPositionRequest(state=_state(OVER)), OK, None),
    ("view-no-state", "ViewPosition", pb.ViewPositionRequest(), "INVALID_ARGUMENT", "state"),
    ("view-row", "ViewPosition", pb.ViewPositionRequest(state=_state(MID, _bad_row)), "INVALID_ARGUMENT",
     "state.players[0].board.rows[2]"),
    ("view-edition", "ViewPosition", pb.ViewPositionRequest(state=_state(MID, _no_edition)), "INVALID_ARGUMENT",
     "state.edition"),
    # ------------------------------------------------------------ LegalMoves
    ("legal", "LegalMoves", pb.LegalMovesRequest(state=_state()), OK, None),
    ("legal-patch", "LegalMoves", pb.LegalMovesRequest(state=_state(), patch_id=MID.available_patches()[0]),
     OK, None),
    ("legal-over", "LegalMoves", pb.LegalMovesRequest(state=_state(OVER)), OK, None),
    ("legal-unknown-patch", "LegalMoves", pb.LegalMovesRequest(state=_state(), patch_id=40), "INVALID_ARGUMENT",
     "patch_id"),
    ("legal-no-state", "LegalMoves", pb.LegalMovesRequest(patch_id=3), "INVALID_ARGUMENT", "state"),
    ("legal-buttons", "LegalMoves", pb.LegalMovesRequest(state=_state(MID, _rich)), "INVALID_ARGUMENT",
     "state.players[0].buttons"),
    # ------------------------------------------------------------ ApplyMove
    ("apply-advance", "ApplyMove", pb.ApplyMoveRequest(state=_state(), move="advance"), OK, None),
    ("apply-buy", "ApplyMove", pb.ApplyMoveRequest(state=_state(), move=_first_buy(MID)), OK, None),
    ("apply-illegal", "ApplyMove", pb.ApplyMoveRequest(state=_state(), move="buy 0 0,0"), "INVALID_ARGUMENT",
     "move"),
    ("apply-syntax", "ApplyMove", pb.ApplyMoveRequest(state=_state(), move="jump"), "INVALID_ARGUMENT", "move"),
    ("apply-no-move", "ApplyMove", pb.ApplyMoveRequest(state=_state()), "INVALID_ARGUMENT", "move"),
    ("apply-over", "ApplyMove", pb.ApplyMoveRequest(state=_state(OVER), move="advance"), "FAILED_PRECONDITION",
     "state"),
    ("apply-turn", "ApplyMove", pb.ApplyMoveRequest(state=_state(MID, _turn), move="advance"), "INVALID_ARGUMENT",
     "state.current_player"),
    # ------------------------------------------------------------ EngineMove (SuggestMove's limits, seed rule)
    ("engine-greedy", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="greedy"), OK, None),
    ("engine-random", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="random", seed=3), OK, None),
    ("engine-search", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="search:30it", seed=2), OK, None),
    ("engine-proven", "EngineMove", pb.EngineMoveRequest(state=_state(END), strength="search:20it"), OK, None),
    ("engine-strength", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="godlike"), "INVALID_ARGUMENT",
     "strength"),
    ("engine-no-strength", "EngineMove", pb.EngineMoveRequest(state=_state()), "INVALID_ARGUMENT", "strength"),
    ("engine-too-long", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="search:61"),
     "INVALID_ARGUMENT", "strength"),
    ("engine-too-many", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="search:200001it"),
     "INVALID_ARGUMENT", "strength"),
    ("engine-over", "EngineMove", pb.EngineMoveRequest(state=_state(OVER), strength="greedy"),
     "FAILED_PRECONDITION", "state"),
    ("engine-over-search", "EngineMove", pb.EngineMoveRequest(state=_state(OVER), strength="search:10it"),
     "FAILED_PRECONDITION", "state"),
    ("engine-seed", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="greedy", seed=-1),
     "INVALID_ARGUMENT", "seed"),
    ("engine-no-state", "EngineMove", pb.EngineMoveRequest(strength="greedy"), "INVALID_ARGUMENT", "state"),
    ("engine-level", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="level:3", seed=5), OK, None),
    ("engine-level-end", "EngineMove", pb.EngineMoveRequest(state=_state(END), strength="level:7", seed=1), OK, None),
    ("engine-level-0", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="level:0"), "INVALID_ARGUMENT",
     "strength"),
    ("engine-level-9", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="level:9"), "INVALID_ARGUMENT",
     "strength"),
    ("engine-level-bare", "EngineMove", pb.EngineMoveRequest(state=_state(), strength="level"), "INVALID_ARGUMENT",
     "strength"),
    ("engine-over-level", "EngineMove", pb.EngineMoveRequest(state=_state(OVER), strength="level:2"),
     "FAILED_PRECONDITION", "state"),
    # ------------------------------------------------------------ ReplayGame
    ("replay", "ReplayGame", pb.ReplayGameRequest(record=REC), OK, None),
    ("replay-one", "ReplayGame", pb.ReplayGameRequest(record=record(2, 1)), OK, None),
    ("replay-no-record", "ReplayGame", pb.ReplayGameRequest(), "INVALID_ARGUMENT", "record"),
    ("replay-no-moves", "ReplayGame", pb.ReplayGameRequest(record=pb.GameRecord(edition=pb.EDITION_REVISED,
                                                                                 circle=REC.circle)),
     "INVALID_ARGUMENT", "record.actions"),
    ("replay-bad-move", "ReplayGame", pb.ReplayGameRequest(record=pb.GameRecord(
        edition=pb.EDITION_REVISED, circle=REC.circle, actions=[REC.actions[0], "buy 99 0,0"])),
     "INVALID_ARGUMENT", "record.actions[1]"),
    ("replay-circle", "ReplayGame", pb.ReplayGameRequest(record=pb.GameRecord(
        edition=pb.EDITION_REVISED, circle=[0, 1], actions=REC.actions)), "INVALID_ARGUMENT", "record.circle"),
    # ------------------------------------------------------------ LoadPosition
    ("load-notation", "LoadPosition", pb.LoadPositionRequest(text=MID.to_notation()), OK, None),
    ("load-state-json", "LoadPosition", pb.LoadPositionRequest(text=json.dumps(MID.to_json())), OK, None),
    ("load-mapping", "LoadPosition", pb.LoadPositionRequest(text=json.dumps(positions.to_mapping(MID2))), OK, None),
    ("load-record", "LoadPosition", pb.LoadPositionRequest(text=_record_text(REC, seed=5)), OK, None),
    ("load-record-plies", "LoadPosition", pb.LoadPositionRequest(text=_record_text(REC), plies=2), OK, None),
    ("load-empty", "LoadPosition", pb.LoadPositionRequest(text="  "), "INVALID_ARGUMENT", "text"),
    ("load-bad-json", "LoadPosition", pb.LoadPositionRequest(text="{oops"), "INVALID_ARGUMENT", "text"),
    ("load-plies", "LoadPosition", pb.LoadPositionRequest(text=_record_text(REC), plies=99), "INVALID_ARGUMENT",
     "plies"),
    ("load-record-move", "LoadPosition", pb.LoadPositionRequest(text=json.dumps(
        {"edition": "revised", "circle": list(REC.circle), "actions": [REC.actions[0], "buy 99 0,0"]})),
     "INVALID_ARGUMENT", "text.actions[1]"),
    ("load-record-field", "LoadPosition", pb.LoadPositionRequest(text=_record_text(REC, moves=[])),
     "INVALID_ARGUMENT", "text.moves"),
    ("load-bad-notation", "LoadPosition", pb.LoadPositionRequest(text="r 0,5,-,0 nonsense"), "INVALID_ARGUMENT",
     "text"),
    # ------------------------------------------------------------ PositionNotation
    ("notation", "PositionNotation", pb.PositionNotationRequest(state=_state()), OK, None),
    ("notation-over", "PositionNotation", pb.PositionNotationRequest(state=_state(OVER)), OK, None),
    ("notation-no-state", "PositionNotation", pb.PositionNotationRequest(), "INVALID_ARGUMENT", "state"),
    ("notation-patch-twice", "PositionNotation", pb.PositionNotationRequest(state=_state(MID, _patch_twice)),
     "INVALID_ARGUMENT", "state.players[0].board"),
]
# (case id, method, request, expected error code or OK, expected field)
CASES = [
    # ------------------------------------------------------------ SolvePlacement
    ("place-corner", "SolvePlacement", _solve(), OK, None),
    ("place-several", "SolvePlacement", _solve(patches=[pb.PatchRef(id=0), pb.PatchRef(id=5), pb.PatchRef(id=9)]),
     OK, None),
    ("place-square7", "SolvePlacement", _solve(board=pb.Board(rows=EMPTY), objective=pb.OBJECTIVE_SQUARE7,
                                               patches=[pb.PatchRef(id=i) for i in (3, 7, 12)]), OK, None),
    ("place-shape", "SolvePlacement", _solve(patches=[pb.PatchRef(shape="##./.##")]), OK, None),
    ("place-leather", "SolvePlacement", _solve(board=pb.Board(rows=FULL_BUT_TWO),
                                               patches=[pb.PatchRef(id=-1, count=2)]), OK, None),
    ("place-required", "SolvePlacement", _solve(patches=[pb.PatchRef(id=1, required=True)]), OK, None),
    ("place-time-limit", "SolvePlacement", _solve(time_limit=d(2.0)), OK, None),
    ("place-no-board", "SolvePlacement", _solve(board=None), "INVALID_ARGUMENT", "board"),
    ("place-8-rows", "SolvePlacement", _solve(board=pb.Board(rows=EMPTY[:8])), "INVALID_ARGUMENT", "board.rows"),
    ("place-bad-cell", "SolvePlacement", _solve(board=pb.Board(rows=EMPTY[:2] + ["..x......"] + EMPTY[3:])),
     "INVALID_ARGUMENT", "board.rows[2]"),
    ("place-short-row", "SolvePlacement", _solve(board=pb.Board(rows=["." * 8] + EMPTY[1:])),
     "INVALID_ARGUMENT", "board.rows[0]"),
    ("place-no-patches", "SolvePlacement", _solve(patches=[]), "INVALID_ARGUMENT", "patches"),
    ("place-unknown-id", "SolvePlacement", _solve(patches=[pb.PatchRef(id=99)]), "INVALID_ARGUMENT",
     "patches[0].id"),
    ("place-bad-shape", "SolvePlacement", _solve(patches=[pb.PatchRef(shape="#.#")]), "INVALID_ARGUMENT",
     "patches[0].shape"),
    ("place-bad-count", "SolvePlacement", _solve(patches=[pb.PatchRef(id=0, count=-1)]), "INVALID_ARGUMENT",
     "patches[0].count"),
    ("place-twice", "SolvePlacement", _solve(patches=[pb.PatchRef(id=0), pb.PatchRef(id=0)]), "INVALID_ARGUMENT",
     "patches[1]"),
    ("place-no-ref", "SolvePlacement", _solve(patches=[pb.PatchRef()]), "INVALID_ARGUMENT", "patches[0]"),
    ("place-no-objective", "SolvePlacement", _solve(objective=pb.OBJECTIVE_UNSPECIFIED), "INVALID_ARGUMENT",
     "objective"),
    ("place-long", "SolvePlacement", _solve(time_limit=d(100)), "INVALID_ARGUMENT", "time_limit"),
    ("place-seed", "SolvePlacement", _solve(seed=-1), "INVALID_ARGUMENT", "seed"),
    # ------------------------------------------------------------ SuggestPlacement
    ("rank", "SuggestPlacement", _rank(), OK, None),
    ("rank-square7", "SuggestPlacement", _rank(board=pb.Board(rows=EMPTY), objective=pb.OBJECTIVE_SQUARE7,
                                               top=2), OK, None),
    ("rank-leather", "SuggestPlacement", _rank(patch=pb.PatchRef(id=-1), upcoming=[]), OK, None),
    ("rank-no-board", "SuggestPlacement", _rank(board=None), "INVALID_ARGUMENT", "board"),
    ("rank-no-patch", "SuggestPlacement", _rank(patch=None), "INVALID_ARGUMENT", "patch"),
    ("rank-unknown", "SuggestPlacement", _rank(patch=pb.PatchRef(id=40)), "INVALID_ARGUMENT", "patch.id"),
    ("rank-upcoming", "SuggestPlacement", _rank(upcoming=[pb.PatchRef(id=i, count=MAX_COUNT) for i in range(1 + MAX_UPCOMING_COPIES // MAX_COUNT)]), "INVALID_ARGUMENT",
     "upcoming"),
    ("rank-top", "SuggestPlacement", _rank(top=MAX_TOP + 1), "INVALID_ARGUMENT", "top"),
    ("rank-bad-upcoming", "SuggestPlacement", _rank(upcoming=[pb.PatchRef(shape="##/.#/#.")]), "INVALID_ARGUMENT",
     "upcoming[0].shape"),
    # ------------------------------------------------------------ SuggestMove (every wire form of a position)
    ("move", "SuggestMove", _move(), OK, None),
    ("move-late", "SuggestMove", _move(state=positions.to_message(MID2), top=2), OK, None),
    ("move-proven", "SuggestMove", _move(state=positions.to_message(END), top=None), OK, None),
    ("move-proven-top", "SuggestMove", _move(state=positions.to_message(END), top=1, iterations=None,
                                             time_limit=d(2.0)), OK, None),
    ("move-state-json", "SuggestMove", _move(state=None, state_json=json.dumps(MID.to_json())), OK, None),
    ("move-all", "SuggestMove", _move(top=0, iterations=25), OK, None),
    ("move-over", "SuggestMove", _move(state=positions.to_message(OVER)), "FAILED_PRECONDITION", "state"),
    ("move-over-json", "SuggestMove", _move(state=None, state_json=json.dumps(OVER.to_json())),
     "FAILED_PRECONDITION", "state_json"),
    ("move-no-state", "SuggestMove", _move(state=None), "INVALID_ARGUMENT", "state"),
    ("move-buttons", "SuggestMove", _move(state=mutated(MID, _rich)), "INVALID_ARGUMENT",
     "state.players[0].buttons"),
    ("move-players", "SuggestMove", _move(state=mutated(MID, _one_player)), "INVALID_ARGUMENT", "state.players"),
    ("move-row", "SuggestMove", _move(state=mutated(MID, _bad_row)), "INVALID_ARGUMENT",
     "state.players[0].board.rows[2]"),
    ("move-edition", "SuggestMove", _move(state=mutated(MID, _no_edition)), "INVALID_ARGUMENT", "state.edition"),
    ("move-turn", "SuggestMove", _move(state=mutated(MID, _turn)), "INVALID_ARGUMENT", "state.current_player"),
    ("move-patch-twice", "SuggestMove", _move(state=mutated(MID, _patch_twice)), "INVALID_ARGUMENT",
     "state.players[0].board"),
    ("move-json-syntax", "SuggestMove", _move(state=None, state_json="{oops"), "INVALID_ARGUMENT", "state_json"),
    ("move-json-buttons", "SuggestMove",
     _move(state=None, state_json=json.dumps({**MID.to_json(), "players": [
         {**MID.to_json()["players"][0], "buttons": -1}, MID.to_json()["players"][1]]})),
     "INVALID_ARGUMENT", "state_json.players[0].buttons"),
    ("move-iterations", "SuggestMove", _move(iterations=10**9), "INVALID_ARGUMENT", "iterations"),
    ("move-top", "SuggestMove", _move(top=-1), "INVALID_ARGUMENT", "top"),
    ("move-time", "SuggestMove", _move(time_limit=d(61)), "INVALID_ARGUMENT", "time_limit"),
    ("move-seed", "SuggestMove", _move(seed=-5), "INVALID_ARGUMENT", "seed"),
    # ------------------------------------------------------------ AnalyzePosition (the final update compared)
    ("analyze", "AnalyzePosition", _analyze(), OK, None),
    ("analyze-late", "AnalyzePosition", _analyze(state=positions.to_message(MID2), top=0, iterations=300), OK, None),
    ("analyze-proven", "AnalyzePosition", _analyze(state=positions.to_message(END), top=None), OK, None),
    ("analyze-state-json", "AnalyzePosition", _analyze(state=None, state_json=json.dumps(MID.to_json())), OK, None),
    ("analyze-notation-interval", "AnalyzePosition", _analyze(report_interval=None, iterations=30), OK, None),
    ("analyze-over", "AnalyzePosition", _analyze(state=positions.to_message(OVER)), "FAILED_PRECONDITION", "state"),
    ("analyze-no-state", "AnalyzePosition", _analyze(state=None), "INVALID_ARGUMENT", "state"),
    ("analyze-buttons", "AnalyzePosition", _analyze(state=mutated(MID, _rich)), "INVALID_ARGUMENT",
     "state.players[0].buttons"),
    ("analyze-json-syntax", "AnalyzePosition", _analyze(state=None, state_json="{oops"), "INVALID_ARGUMENT",
     "state_json"),
    ("analyze-until-iterations", "AnalyzePosition", _analyze(until_cancelled=True), "INVALID_ARGUMENT",
     "until_cancelled"),
    ("analyze-until-time", "AnalyzePosition", _analyze(until_cancelled=True, iterations=None, time_limit=d(1)),
     "INVALID_ARGUMENT", "until_cancelled"),
    ("analyze-interval-short", "AnalyzePosition", _analyze(report_interval={"nanos": 49_000_000}),
     "INVALID_ARGUMENT", "report_interval"),
    ("analyze-interval-long", "AnalyzePosition", _analyze(report_interval=d(61)), "INVALID_ARGUMENT",
     "report_interval"),
    ("analyze-iterations", "AnalyzePosition", _analyze(iterations=10**9), "INVALID_ARGUMENT", "iterations"),
    ("analyze-top", "AnalyzePosition", _analyze(top=-1), "INVALID_ARGUMENT", "top"),
    ("analyze-time", "AnalyzePosition", _analyze(time_limit=d(61)), "INVALID_ARGUMENT", "time_limit"),
    ("analyze-seed", "AnalyzePosition", _analyze(seed=-5), "INVALID_ARGUMENT", "seed"),
    # ------------------------------------------------------------ SolvePosition (the final update compared)
    ("exact", "SolvePosition", _exact(), OK, None),
    ("exact-proven", "SolvePosition", _exact(state=positions.to_message(END), table_mb=1), OK, None),
    ("exact-over", "SolvePosition", _exact(state=positions.to_message(OVER)), OK, None),
    ("exact-state-json", "SolvePosition", _exact(state=None, state_json=json.dumps(END.to_json())), OK, None),
    ("exact-no-state", "SolvePosition", _exact(state=None), "INVALID_ARGUMENT", "state"),
    ("exact-buttons", "SolvePosition", _exact(state=mutated(MID, _rich)), "INVALID_ARGUMENT",
     "state.players[0].buttons"),
    ("exact-time", "SolvePosition", _exact(time_limit=d(601)), "INVALID_ARGUMENT", "time_limit"),
    ("exact-time-zero", "SolvePosition", _exact(time_limit=d(0)), "INVALID_ARGUMENT", "time_limit"),
    ("exact-interval", "SolvePosition", _exact(report_interval={"nanos": 10_000_000}), "INVALID_ARGUMENT",
     "report_interval"),
    ("exact-table-small", "SolvePosition", _exact(table_mb=-5), "INVALID_ARGUMENT", "table_mb"),
    ("exact-table-large", "SolvePosition", _exact(table_mb=2**20), "RESOURCE_EXHAUSTED", None),
    # ------------------------------------------------------------ AnalyzeGame
    ("review", "AnalyzeGame", _review(), OK, None),
    ("review-one", "AnalyzeGame", _review(record=record(2, 1), iterations=15), OK, None),
    ("review-no-record", "AnalyzeGame", _review(record=None), "INVALID_ARGUMENT", "record"),
    ("review-no-moves", "AnalyzeGame", _review(record=pb.GameRecord(edition=pb.EDITION_REVISED,
                                                                      circle=REC.circle)),
     "INVALID_ARGUMENT", "record.actions"),
    ("review-bad-move", "AnalyzeGame", _review(record=pb.GameRecord(edition=pb.EDITION_REVISED, circle=REC.circle,
                                                                      actions=[REC.actions[0], "buy 99 0,0"])),
     "INVALID_ARGUMENT", "record.actions[1]"),
    ("review-edition", "AnalyzeGame", _review(record=pb.GameRecord(circle=REC.circle, actions=REC.actions)),
     "INVALID_ARGUMENT", "record.edition"),
    ("review-circle", "AnalyzeGame", _review(record=pb.GameRecord(edition=pb.EDITION_REVISED, circle=[0, 1],
                                                                    actions=REC.actions)),
     "INVALID_ARGUMENT", "record.circle"),
    ("review-large-loss", "AnalyzeGame", _review(large_loss=2.0), "INVALID_ARGUMENT", "large_loss"),
    ("review-iterations", "AnalyzeGame", _review(iterations=-1), "INVALID_ARGUMENT", "iterations"),
    # ------------------------------------------------------------ SolvePuzzle
    ("puzzle", "SolvePuzzle", _puzzle(), OK, None),
    ("puzzle-count", "SolvePuzzle", _puzzle(mode=pb.PUZZLE_MODE_COUNT), OK, None),
    ("puzzle-no-mirror", "SolvePuzzle", _puzzle(mode=pb.PUZZLE_MODE_COUNT, no_mirror=True), OK, None),
    ("puzzle-several", "SolvePuzzle", _puzzle(max_tilings=3), OK, None),
    ("puzzle-unused", "SolvePuzzle", _puzzle(region=pb.Region(rows=["...."]), pieces=["##", "##", "#"],
                                             allow_unused=True, mode=pb.PUZZLE_MODE_COUNT), OK, None),
    ("puzzle-unlimited-count", "SolvePuzzle", _puzzle(region=pb.Region(rows=["." * 6] * 6), pieces=[],
                                                      unlimited_pieces=["##"], mode=pb.PUZZLE_MODE_COUNT), OK, None),
    ("puzzle-unlimited-search", "SolvePuzzle", _puzzle(region=pb.Region(rows=["." * 6] * 4), pieces=["##/##"],
                                                       unlimited_pieces=["##", "#"], mode=pb.PUZZLE_MODE_COUNT,
                                                       method=pb.PUZZLE_METHOD_SEARCH), OK, None),
    ("puzzle-unlimited-find", "SolvePuzzle", _puzzle(region=pb.Region(rows=["." * 5] * 3), pieces=PIECES[:1],
                                                     unlimited_pieces=["##"], max_tilings=4), OK, None),
    ("puzzle-frontier-beyond-int64", "SolvePuzzle", _puzzle(region=pb.Region(rows=["." * 14] * 14), pieces=[],
                                                            unlimited_pieces=["##"], mode=pb.PUZZLE_MODE_COUNT,
                                                            method=pb.PUZZLE_METHOD_FRONTIER), OK, None),
    ("puzzle-unlimited-twice", "SolvePuzzle", _puzzle(unlimited_pieces=["##", "#/#"]), "INVALID_ARGUMENT",
     "unlimited_pieces[1]"),
    ("puzzle-frontier-find", "SolvePuzzle", _puzzle(method=pb.PUZZLE_METHOD_FRONTIER), "INVALID_ARGUMENT",
     "method"),
    ("puzzle-method", "SolvePuzzle", _puzzle(method=9), "INVALID_ARGUMENT", "method"),
    ("puzzle-no-region", "SolvePuzzle", _puzzle(region=None), "INVALID_ARGUMENT", "region"),
    ("puzzle-ragged", "SolvePuzzle", _puzzle(region=pb.Region(rows=["....", "..."])), "INVALID_ARGUMENT",
     "region.rows[1]"),
    ("puzzle-bad-cell", "SolvePuzzle", _puzzle(region=pb.Region(rows=["..x.."])), "INVALID_ARGUMENT",
     "region.rows[0]"),
    ("puzzle-huge", "SolvePuzzle", _puzzle(region=pb.Region(rows=["."] * 21)), "INVALID_ARGUMENT", "region.rows"),
    ("puzzle-no-pieces", "SolvePuzzle", _puzzle(pieces=[]), "INVALID_ARGUMENT", "pieces"),
    ("puzzle-bad-piece", "SolvePuzzle", _puzzle(pieces=["#.#"]), "INVALID_ARGUMENT", "pieces[0]"),
    ("puzzle-mode", "SolvePuzzle", _puzzle(mode=pb.PUZZLE_MODE_UNSPECIFIED), "INVALID_ARGUMENT", "mode"),
    ("puzzle-max", "SolvePuzzle", _puzzle(max_tilings=-1), "INVALID_ARGUMENT", "max_tilings"),
    # ------------------------------------------------------------ GeneratePuzzle
    ("generate", "GeneratePuzzle", _generate(), OK, None),
    ("generate-patches", "GeneratePuzzle", _generate(family=pb.PIECE_FAMILY_PATCHES, seed=1), OK, None),
    ("generate-tetrominoes-box", "GeneratePuzzle", _generate(family=pb.PIECE_FAMILY_TETROMINOES, height=5, width=6,
                                                             difficulty=pb.PUZZLE_DIFFICULTY_EASY), OK, None),
    ("generate-shapes", "GeneratePuzzle", _generate(family=None, pieces=PIECES + ["##", "#/#", "###"]), OK, None),
    ("generate-region", "GeneratePuzzle", _generate(family=None, region=pb.Region(rows=REGION), pieces=PIECES),
     OK, None),
    ("generate-both", "GeneratePuzzle", _generate(pieces=PIECES), "INVALID_ARGUMENT", "pieces"),
    ("generate-size-and-region", "GeneratePuzzle", _generate(height=5, width=5, region=pb.Region(rows=REGION)),
     "INVALID_ARGUMENT", "region"),
    ("generate-half-size", "GeneratePuzzle", _generate(height=5), "INVALID_ARGUMENT", "width"),
    ("generate-too-tall", "GeneratePuzzle", _generate(height=21, width=5), "INVALID_ARGUMENT", "height"),
    ("generate-family", "GeneratePuzzle", _generate(family=9), "INVALID_ARGUMENT", "family"),
    ("generate-difficulty", "GeneratePuzzle", _generate(difficulty=7), "INVALID_ARGUMENT", "difficulty"),
    ("generate-seed", "GeneratePuzzle", _generate(seed=-1), "INVALID_ARGUMENT", "seed"),
    ("generate-time", "GeneratePuzzle", _generate(time_limit={"seconds": 61}), "INVALID_ARGUMENT", "time_limit"),
    ("generate-bad-piece", "GeneratePuzzle", _generate(family=None, pieces=["#.#"]), "INVALID_ARGUMENT",
     "pieces[0]"),
    ("generate-area", "GeneratePuzzle", _generate(region=pb.Region(rows=["...."])), "INVALID_ARGUMENT", "region"),
    ("generate-tiny-box", "GeneratePuzzle", _generate(height=2, width=2), "INVALID_ARGUMENT", "family"),
    # ------------------------------------------------------------ ListPatches
    ("patches", "ListPatches", pb.ListPatchesRequest(), OK, None),
] + GAME_CASES


class _Stubs:
    """The generated stubs of both services over one channel: a method by its name, as the embedded
    client's ``call`` takes it."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.placement = pbg.PlacementServiceStub(channel)
        self.game = pbg.GameServiceStub(channel)

    def __getattr__(self, method: str):
        return getattr(self.game if method in GAME_METHODS else self.placement, method)


@pytest.fixture(scope="module")
def faces():
    """(gRPC stub, HTTP client, embedded client) over one server with its HTTP face."""
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, fast_workers=1, grace=1.0))
    server.start()
    face = HttpFace(port=0)
    face.start(server)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    with httpx.Client(base_url=face.url.rstrip("/"), timeout=120) as http:
        yield _Stubs(channel), http, EmbeddedClient(), port
    channel.close()
    face.stop()
    face.join(5)
    server.stop(0).wait(5)


def _answer(message) -> object:
    """A response as comparable data: its JSON mapping without the wall-clock time it took."""
    data = protojson.to_dict(message)
    data.pop("solve_time", None)
    data.pop("elapsed", None)
    return data


def _answers(method: str, messages) -> object:
    """A stream's answers as comparable data: every one of AnalyzeGame's; AnalyzePosition's final update
    (how many come before it depends on the clock), checked to be the last and the only final one."""
    out = [_answer(m) for m in messages]
    if method in LAST_ONLY:
        assert out and [bool(x.get("final")) for x in out] == [False] * (len(out) - 1) + [True], out
        return out[-1]
    return out


def via_grpc(stub, method: str, request):
    try:
        if method in STREAMS:
            return "OK", _answers(method, getattr(stub, method)(request, timeout=120))
        return "OK", _answer(getattr(stub, method)(request, timeout=120))
    except grpc.RpcError as e:
        return e.code().name, field_of(e.details() or "")


def via_http(http: httpx.Client, method: str, request):
    if method == "ListPatches":
        r = http.get("/api/v1/patches")
    else:
        params = {"format": "json"} if method in STREAMS else None
        r = http.post(f"/api/v1/{PATH[method]}", json=protojson.to_dict(request), params=params)
    body = r.json()
    if r.status_code != 200:
        return body["error"]["code"], body["error"]["field"]
    response_type = getattr(pb, UPDATES.get(method, f"{method}Response"))
    if method in STREAMS:
        return "OK", _answers(method, [json_format.ParseDict(item, response_type()) for item in body["items"]])
    return "OK", _answer(json_format.ParseDict(body, response_type()))


def via_embedded(client: EmbeddedClient, method: str, request):
    try:
        if method in STREAMS:
            return "OK", _answers(method, client.stream(method, request))
        return "OK", _answer(client.call(method, request))
    except ClientError as e:
        return e.code, e.field


@pytest.mark.parametrize("name, method, request_, code, field", CASES, ids=[c[0] for c in CASES])
def test_every_face_gives_the_same_answer(faces, name, method, request_, code, field):
    stub, http, embedded, _ = faces
    outcomes = {"grpc": via_grpc(stub, method, request_), "http": via_http(http, method, request_),
                "embedded": via_embedded(embedded, method, request_)}
    if code is OK:
        assert {face: got[0] for face, got in outcomes.items()} == dict.fromkeys(outcomes, "OK"), outcomes
        answers = [got[1] for got in outcomes.values()]
        assert answers[0], answers
        assert answers[0] == answers[1] == answers[2], outcomes
    else:
        assert outcomes == dict.fromkeys(outcomes, (code, field)), outcomes


# 14×14 dominoes: 112,202,208,776,036,178,000,000 tilings (> 2^63 - 1), and 10×10: 258,584,046,368 (fits).
@pytest.mark.parametrize("side, want", [(14, 112202208776036178000000), (10, 258584046368)])
def test_a_count_of_any_size_is_exact_on_every_face(faces, side, want):
    """The decimal strings on all three faces, the int64 fields only when the count fits (unset, not
    clamped, beyond), and every Python client reads back the exact int."""
    stub, http, embedded, port = faces
    request = _puzzle(region=pb.Region(rows=["." * side] * side), pieces=[], unlimited_pieces=["##"],
                      mode=pb.PUZZLE_MODE_COUNT, method=pb.PUZZLE_METHOD_FRONTIER)
    fits = want <= 2**63 - 1
    grpc_answer = stub.SolvePuzzle(request, timeout=120)
    embedded_answer = embedded.call("SolvePuzzle", request)
    body = http.post("/api/v1/solve-puzzle", json=protojson.to_dict(request)).json()
    for answer in (grpc_answer, embedded_answer):
        assert answer.count_decimal == str(want) and answer.HasField("count") is fits
        assert answer.method == pb.PUZZLE_METHOD_FRONTIER
        if fits:
            assert answer.count == want
    assert grpc_answer.distinct_decimal == embedded_answer.distinct_decimal == body["distinct_decimal"]
    assert body["count_decimal"] == str(want) and body["method"] == "PUZZLE_METHOD_FRONTIER"
    assert ("count" in body) is fits and (not fits or body["count"] == str(want))  # int64: a JSON string
    with PlacementClient(f"127.0.0.1:{port}", deadline=120) as remote:
        results = [c.solve_puzzle(["." * side] * side, [], unlimited=["##"], count=True, method="frontier")
                   for c in (embedded, remote)]
    assert [(r.count, r.method) for r in results] == [(want, "frontier")] * 2
    assert results[0].distinct == results[1].distinct == int(body["distinct_decimal"])


def test_enough_cases_of_every_kind():
    methods = {c[1] for c in CASES}
    assert len(CASES) >= 60 and methods == {"SolvePlacement", "SuggestPlacement", "SuggestMove", "AnalyzeGame",
                                            "AnalyzePosition", "SolvePosition", "SolvePuzzle", "ListPatches",
                                            "GeneratePuzzle"} | GAME_METHODS
    assert sum(c[3] is OK for c in CASES) >= 20 and sum(c[3] is not OK for c in CASES) >= 40
    # issue 35: the game RPCs joined with 30 cases or more, answers and refusals, every RPC both ways
    assert len(GAME_CASES) >= 30
    for method in GAME_METHODS:
        outcomes = {c[3] is OK for c in GAME_CASES if c[1] == method}
        assert outcomes == {True, False}, method


# ---------------------------------------------------------------- the Python clients, every position form

POSITION_FORMS = {
    "GameState": lambda s: s,
    "state JSON dict": lambda s: s.to_json(),
    "state JSON text": lambda s: json.dumps(s.to_json()),
    "pb.GameState": positions.to_message,
    "JSON mapping dict": positions.to_mapping,
    "JSON mapping text": lambda s: json.dumps(positions.to_mapping(s)),
    "notation": positions.to_notation,
}


@pytest.mark.parametrize("form", POSITION_FORMS)
def test_python_clients_take_every_position_form_alike(faces, form):
    _, _, embedded, port = faces
    value = POSITION_FORMS[form](MID)
    with PlacementClient(f"127.0.0.1:{port}", deadline=120) as remote:
        answers = [c.suggest_move(value, iterations=30, top=2) for c in (embedded, remote)]
    assert [m.action for m in answers[0]] == [m.action for m in answers[1]]
    assert answers[0].iterations == answers[1].iterations == 30 and not answers[0].terminal


@pytest.mark.parametrize("form", POSITION_FORMS)
def test_a_finished_game_is_an_empty_terminal_answer_for_every_python_client(faces, form):
    _, _, embedded, port = faces
    value = POSITION_FORMS[form](OVER)
    with PlacementClient(f"127.0.0.1:{port}", deadline=30) as remote:
        for client in (embedded, remote):
            moves = client.suggest_move(value, iterations=30)
            assert moves == [] and moves.terminal and not moves.searched and moves.iterations == 0


def test_a_bad_position_names_the_same_field_in_every_python_client(faces):
    _, _, embedded, port = faces
    bad = MID.to_json()
    bad["players"][1]["income"] = 999
    with PlacementClient(f"127.0.0.1:{port}", deadline=30) as remote:
        fields = set()
        for client in (embedded, remote):
            with pytest.raises(ClientError) as err:
                client.suggest_move(bad, iterations=10)
            fields.add((err.value.code, err.value.field))
    assert fields == {("INVALID_ARGUMENT", "state.players[1].income")}


def test_patch_table_is_the_same(faces):
    stub, http, embedded, _ = faces
    assert len(embedded.list_patches()) == len(PATCHES) == len(stub.ListPatches(pb.ListPatchesRequest()).patches)


# ---------------------------------------------------------------- AnalyzePosition: SuggestMove's answer, every client

@pytest.mark.parametrize("state", [MID, MID2, END], ids=["mid", "late", "proven"])
def test_an_analysis_ends_with_suggest_moves_answer_on_every_face(faces, state):
    stub, http, embedded, _ = faces
    request = _analyze(state=positions.to_message(state), iterations=200, seed=3, top=3)
    finals = {"grpc": via_grpc(stub, "AnalyzePosition", request), "http": via_http(http, "AnalyzePosition", request),
              "embedded": via_embedded(embedded, "AnalyzePosition", request)}
    move = via_grpc(stub, "SuggestMove", _move(state=positions.to_message(state), iterations=200, seed=3, top=3))
    assert {face: code for face, (code, _) in finals.items()} == dict.fromkeys(finals, "OK") and move[0] == "OK"
    want = move[1]
    for face, (_, final) in finals.items():
        got = [{k: m.get(k) for k in ("move", "win_chance", "reason", "proven_margin")} for m in final["moves"]]
        assert got == [{k: m.get(k) for k in ("move", "win_chance", "reason", "proven_margin")}
                       for m in want["suggestions"]], face
        assert (final.get("iterations", 0), final.get("searched", False), final.get("proven", False)) == \
            (want.get("iterations", 0), want.get("searched", False), want.get("proven", False)), face


def test_every_python_client_streams_an_analysis_alike(faces):
    """analyze_position in the gRPC, asyncio and embedded clients: engine.analysis.Analysis updates, the last
    one final and equal everywhere (and to suggest_move's answer); close() cancels; a finished game is one
    final update with no moves; bad input raises at the call."""
    from quiltsolve.clients import AsyncPlacementClient
    from quiltsolve.engine.analysis import Analysis

    _, _, embedded, port = faces

    def final(updates) -> Analysis:
        updates = list(updates)
        assert updates and all(isinstance(u, Analysis) for u in updates) and updates[-1].final
        return updates[-1]

    async def via_async() -> tuple:
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=60) as client:
            last = [u async for u in client.analyze_position(MID, iterations=150, top=2)][-1]
            over = [u async for u in client.analyze_position(OVER)]
            stream = client.analyze_position(MID, until_cancelled=True, report_interval=0.05)
            first = await stream.__anext__()
            await stream.aclose()
            with pytest.raises(ClientError) as err:
                async for _ in client.analyze_position(MID, report_interval=0.01):
                    pass
            return last, over, first, (err.value.code, err.value.field)

    with PlacementClient(f"127.0.0.1:{port}", deadline=60) as remote:
        answers = [final(c.analyze_position(MID, iterations=150, top=2)) for c in (embedded, remote)]
        for client in (embedded, remote):
            stream = client.analyze_position(MID, until_cancelled=True, report_interval=0.05)
            assert not next(stream).final
            stream.close()
            over = list(client.analyze_position(positions.to_notation(OVER)))
            assert len(over) == 1 and over[0].final and over[0].moves == ()
            with pytest.raises(ClientError) as err:
                client.analyze_position(MID, iterations=10, until_cancelled=True)
            assert (err.value.code, err.value.field) == ("INVALID_ARGUMENT", "until_cancelled")
        suggested = remote.suggest_move(MID, iterations=150, top=2)
    last, over, first, refused = run_coroutine(via_async())
    assert answers[0] == answers[1] == last
    assert last.suggestions() == list(suggested) and last.iterations == suggested.iterations == 150
    assert len(over) == 1 and over[0].final and not first.final
    assert refused == ("INVALID_ARGUMENT", "report_interval")


# ---------------------------------------------------------------- SolvePosition: every client, the same solve

def test_every_python_client_streams_a_solve_alike(faces):
    """solve_position in the gRPC, asyncio and embedded clients: engine.solve.SolveUpdate values, the last one
    exact and the same everywhere (and the engine's own); close() cancels; bad input raises at the call."""
    from quiltsolve.clients import AsyncPlacementClient
    from quiltsolve.engine.solve import SolveUpdate, solve_exact

    _, _, embedded, port = faces
    hard = play(7, 9)

    def final(updates) -> SolveUpdate:
        updates = list(updates)
        assert updates and all(isinstance(u, SolveUpdate) for u in updates) and updates[-1].final
        assert all(u.lower <= updates[-1].value <= u.upper for u in updates)
        return updates[-1]

    async def via_async() -> tuple:
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=60) as client:
            last = [u async for u in client.solve_position(EIGHT, report_interval=0.05)][-1]
            stream = client.solve_position(hard, report_interval=0.05)
            first = await stream.__anext__()
            await stream.aclose()
            with pytest.raises(ClientError) as err:
                async for _ in client.solve_position(EIGHT, table_mb=-1):
                    pass
            return last, first, (err.value.code, err.value.field)

    with PlacementClient(f"127.0.0.1:{port}", deadline=60) as remote:
        answers = [final(c.solve_position(positions.to_notation(EIGHT), report_interval=0.05))
                   for c in (embedded, remote)]
        for client in (embedded, remote):
            with client.solve_position(hard, report_interval=0.05) as stream:
                assert not next(stream).final
            with pytest.raises(ClientError) as err:
                client.solve_position(EIGHT, time_limit=601)
            assert (err.value.code, err.value.field) == ("INVALID_ARGUMENT", "time_limit")
    last, first, refused = run_coroutine(via_async())
    local = solve_exact(EIGHT)
    for got in (*answers, last):
        assert (got.value, got.line, got.nodes, got.probes, got.reason) == \
            (local.value, local.line, local.nodes, local.probes, "solved")
    assert not first.final and refused == ("INVALID_ARGUMENT", "table_mb")


# ---------------------------------------------------------------- proven endgame answers, every face

def _margins(state) -> dict[str, int]:
    r = exact.solve(state, time_limit=30.0, all_moves=True)
    assert r.proven
    return {m.action.to_str(): m.margin for m in r.moves}


def test_every_face_carries_the_proven_margins(faces):
    stub, http, embedded, _ = faces
    request = _move(state=positions.to_message(END), top=None)
    want = _margins(END)
    for face, (code, answer) in {"grpc": via_grpc(stub, "SuggestMove", request),
                                 "http": via_http(http, "SuggestMove", request),
                                 "embedded": via_embedded(embedded, "SuggestMove", request)}.items():
        assert code == "OK", (face, answer)
        assert answer["proven"] is True and answer["iterations"] == 0, (face, answer)
        got = {engine.parse_action(s["move"]["text"]).to_str(): s["proven_margin"] for s in answer["suggestions"]}
        assert got == want, face
        assert all(s["win_chance"] in (0.0, 0.5, 1.0) for s in answer["suggestions"])
    raw = http.post("/api/v1/suggest-move", json=protojson.to_dict(request)).json()
    assert raw["proven"] is True and all("proven_margin" in s for s in raw["suggestions"])
    mid = http.post("/api/v1/suggest-move", json=protojson.to_dict(_move())).json()
    assert mid["proven"] is False and not any("proven_margin" in s for s in mid["suggestions"])


def test_every_face_reviews_the_end_of_a_game_in_points(faces):
    stub, http, embedded, _ = faces
    start, actions, states = greedy_game(1)
    request = pb.AnalyzeGameRequest(record=pb.GameRecord(edition=pb.EDITION_REVISED, circle=list(start.circle),
                                                         actions=[a.to_str() for a in actions]),
                                    iterations=5, seed=1)
    for face, (code, answer) in {"grpc": via_grpc(stub, "AnalyzeGame", request),
                                 "http": via_http(http, "AnalyzeGame", request),
                                 "embedded": via_embedded(embedded, "AnalyzeGame", request)}.items():
        assert code == "OK", (face, answer)
        assert len(answer) == len(actions)
        for ply in answer[-3:]:
            assert "loss_points" in ply, (face, ply)
            assert ply["loss_points"] == ply["margin_best"] - ply["margin_played"] >= 0
            assert ply["margin_best"] == max(_margins(states[ply["ply"]]).values())
        assert "loss_points" not in answer[0]


def test_every_face_labels_moves_and_scores_accuracy_alike(faces):
    """Labels and accuracy: the same on gRPC, HTTP and the embedded client, and the same as the engine's own
    review (engine.review.summarize) and the Python clients' summaries of the moves they stream."""
    from quiltsolve.engine.players import RandomPlayer
    from quiltsolve.engine.review import review_game, summarize

    stub, http, embedded, port = faces
    state = engine.new_game(6)
    start, players, actions = state.clone(), (GreedyPlayer(), RandomPlayer(3)), []
    for _ in range(16):
        action = players[state.current_player()].choose(state)
        actions.append(action.to_str())
        state.apply_action(action)
    request = pb.AnalyzeGameRequest(record=pb.GameRecord(edition=pb.EDITION_REVISED, circle=list(start.circle),
                                                         actions=actions), iterations=40, seed=2)
    answers = {"grpc": via_grpc(stub, "AnalyzeGame", request), "http": via_http(http, "AnalyzeGame", request),
               "embedded": via_embedded(embedded, "AnalyzeGame", request)}
    assert answers["grpc"] == answers["http"] == answers["embedded"]
    items = answers["grpc"][1]
    record = {"edition": "revised", "circle": list(start.circle), "actions": actions}
    mine = list(review_game(record, iterations=40, seed=2))
    want = summarize(mine)
    names = {None: "MOVE_LABEL_GOOD", "inaccuracy": "MOVE_LABEL_INACCURACY", "mistake": "MOVE_LABEL_MISTAKE",
             "blunder": "MOVE_LABEL_BLUNDER"}
    assert [i["label"] for i in items] == [names[r.label] for r in mine]
    assert any(r.label for r in mine)             # the random side gives something to label
    last = {i["player"]: i["player_accuracy"] for i in items}
    assert last == {p: want[p].accuracy for p in (0, 1)}
    with PlacementClient(f"127.0.0.1:{port}") as grpc_client:
        via_client = summarize(grpc_client.analyze_game(record, iterations=40, seed=2))
    assert via_client == summarize(embedded.analyze_game(record, iterations=40, seed=2)) == want


# ---------------------------------------------------------------- the game: the Python clients, the browser's JSON

def test_every_python_client_plays_a_game_alike(faces):
    """The three clients' game methods (clients/wire.py builds the requests) give the same answers."""
    from quiltsolve.clients import AsyncPlacementClient

    _, _, embedded, port = faces

    def play(client) -> list:
        dealt = client.new_game(9)
        state, out = dealt.state, [protojson.to_dict(dealt)]
        for strength, seed in (("greedy", 0), ("search:20it", 4), ("random", 2), ("level:2", 6)):
            moved = client.engine_move(state, strength, seed=seed)
            out.append(protojson.to_dict(moved))
            state = moved.state
        legal = client.legal_moves(state)
        applied = client.apply_move(state, legal[0])
        rec = {"edition": "revised", "seed": 9, "circle": list(dealt.record.circle),
               "actions": [m["move"]["text"] for m in out[1:]] + [legal[0]]}
        out += [legal, protojson.to_dict(applied), protojson.to_dict(client.view_position(applied.state)),
                client.position_notation(applied.state), protojson.to_dict(client.replay_game(rec)),
                protojson.to_dict(client.load_position(json.dumps(rec), plies=2))]
        return out

    async def play_async() -> list:
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=60) as client:
            dealt = await client.new_game(9)
            moved = await client.engine_move(dealt.state, "greedy")
            return [protojson.to_dict(dealt), protojson.to_dict(moved)]

    with PlacementClient(f"127.0.0.1:{port}", deadline=60) as remote:
        mine, theirs = play(embedded), play(remote)
    assert mine == theirs
    assert run_coroutine(play_async()) == mine[:2]
    assert mine[-1]["kind"] == "record" and mine[-1]["record"]["actions"] == mine[-2]["record"]["actions"][:2]
    with pytest.raises(ClientError) as err:
        embedded.apply_move(OVER, "advance")
    assert (err.value.code, err.value.field) == ("FAILED_PRECONDITION", "state")


def test_a_new_game_without_a_seed_gets_a_random_one_it_returns(faces):
    """The one seed rule of a deal: unset means random, and the record says which (so it can be dealt again)."""
    stub, http, embedded, _ = faces
    for answer in (stub.NewGame(pb.NewGameRequest()), embedded.new_game(),
                   json_format.ParseDict(http.post("/api/v1/game/new", json={}).json(), pb.NewGameResponse())):
        assert answer.record.HasField("seed")
        again = embedded.new_game(answer.record.seed)
        assert again.state == answer.state and list(answer.record.circle) == list(again.record.circle)


def test_a_game_set_up_from_a_circle_is_the_engine_s_start_with_no_seed(faces):
    """NewGame with a circle: every face and Python client sets up the engine's own start of that circle
    (GameState.from_circle), and its record has the circle and no seed."""
    stub, http, embedded, port = faces
    want = engine.GameState.from_circle(TABLE, "original")
    with PlacementClient(f"127.0.0.1:{port}", deadline=60) as remote:
        answers = [stub.NewGame(pb.NewGameRequest(circle=TABLE, edition="original")),
                   embedded.new_game(circle=TABLE, edition="original"),
                   remote.new_game(circle=",".join(map(str, TABLE)), edition="original"),
                   json_format.ParseDict(http.post("/api/v1/game/new", json={"circle": TABLE, "edition": "original"})
                                         .json(), pb.NewGameResponse())]
    for answer in answers:
        assert positions.from_message(answer.state) == want
        assert not answer.record.HasField("seed") and list(answer.record.circle) == TABLE
        assert answer.view.notation == want.to_notation() and list(answer.view.circle) == TABLE
    with pytest.raises(ClientError) as err:
        embedded.new_game(circle="12,5,x")         # not a list of ids: refused before it is sent
    assert (err.value.code, err.value.field) == ("INVALID_ARGUMENT", "circle[2]")


def test_the_game_paths_keep_the_browser_s_json(faces):
    """Today's JSON shapes of the game paths, field for field (absent where the view had null)."""
    _, http, _, _ = faces
    dealt = http.post("/api/v1/game/new", json={"seed": 7}).json()
    assert set(dealt) == {"state", "view", "record"}
    assert dealt["record"] == {"edition": "revised", "seed": 7, "circle": engine.new_game(7).circle, "actions": []}
    view = dealt["view"]
    assert set(view) == {"edition", "players", "current_player", "leather_to_place", "terminal", "circle",
                         "available", "advance", "leather_spaces", "leather_track", "income_spaces", "end",
                         "scores", "notation"}           # bonus_owner, first_to_end, winner: unset (were null)
    assert view["edition"] == "revised" and view["advance"] == {"to": 1, "buttons": 1} and view["end"] == 53
    assert set(view["players"][0]) == {"rows", "buttons", "position", "income", "patches", "leather", "bonus",
                                       "empty", "score"}
    assert set(view["available"][0]) == {"slot", "id", "buttons", "time", "income", "affordable", "buyable",
                                         "placements"}
    over = http.post("/api/v1/game/view", json={"state": positions.to_mapping(OVER)}).json()["view"]
    assert over["terminal"] and "advance" not in over and over["winner"] in (0, 1)
    assert set(over["result"]) == {"scores", "buttons", "empty", "bonus", "winner"}   # bonus: null when nobody has it
    assert over["result"]["scores"] == over["scores"]
    moved = http.post("/api/v1/game/engine-move", json={"state": dealt["state"], "strength": "search:20it",
                                                        "seed": 1}).json()
    assert set(moved) == {"player", "strength", "move", "state", "view", "win_chance", "value"}
    assert moved["value"] == moved["win_chance"] and moved["strength"] == "search:20it"
    quick = http.post("/api/v1/game/engine-move", json={"state": dealt["state"], "strength": "greedy"}).json()
    assert set(quick) == {"player", "strength", "move", "state", "view"}
    rec = {"edition": "revised", "circle": dealt["record"]["circle"], "actions": [moved["move"]["text"]],
           "players": ["human", "greedy"], "result": {"scores": [0, 0]}}   # the engine form, with its extras
    replayed = http.post("/api/v1/game/replay", json={"record": rec}).json()
    assert replayed["record"] == {"edition": "revised", "circle": rec["circle"], "actions": rec["actions"]}
    assert [p["ply"] for p in replayed["plies"]] == [0] and len(replayed["views"]) == 2
