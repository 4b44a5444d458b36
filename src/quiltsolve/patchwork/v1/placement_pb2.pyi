import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Objective(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBJECTIVE_UNSPECIFIED: _ClassVar[Objective]
    OBJECTIVE_COVER: _ClassVar[Objective]
    OBJECTIVE_SQUARE7: _ClassVar[Objective]

class SolveStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOLVE_STATUS_UNSPECIFIED: _ClassVar[SolveStatus]
    SOLVE_STATUS_OPTIMAL: _ClassVar[SolveStatus]
    SOLVE_STATUS_FEASIBLE: _ClassVar[SolveStatus]
    SOLVE_STATUS_INFEASIBLE: _ClassVar[SolveStatus]
    SOLVE_STATUS_UNKNOWN: _ClassVar[SolveStatus]

class PuzzleMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUZZLE_MODE_UNSPECIFIED: _ClassVar[PuzzleMode]
    PUZZLE_MODE_FIND: _ClassVar[PuzzleMode]
    PUZZLE_MODE_COUNT: _ClassVar[PuzzleMode]

class PuzzleMethod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUZZLE_METHOD_UNSPECIFIED: _ClassVar[PuzzleMethod]
    PUZZLE_METHOD_AUTO: _ClassVar[PuzzleMethod]
    PUZZLE_METHOD_SEARCH: _ClassVar[PuzzleMethod]
    PUZZLE_METHOD_FRONTIER: _ClassVar[PuzzleMethod]

class MoveKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_KIND_UNSPECIFIED: _ClassVar[MoveKind]
    MOVE_KIND_ADVANCE: _ClassVar[MoveKind]
    MOVE_KIND_BUY: _ClassVar[MoveKind]
    MOVE_KIND_LEATHER: _ClassVar[MoveKind]

class Edition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EDITION_UNSPECIFIED: _ClassVar[Edition]
    EDITION_REVISED: _ClassVar[Edition]
    EDITION_ORIGINAL: _ClassVar[Edition]

class MoveLabel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_LABEL_UNSPECIFIED: _ClassVar[MoveLabel]
    MOVE_LABEL_GOOD: _ClassVar[MoveLabel]
    MOVE_LABEL_INACCURACY: _ClassVar[MoveLabel]
    MOVE_LABEL_MISTAKE: _ClassVar[MoveLabel]
    MOVE_LABEL_BLUNDER: _ClassVar[MoveLabel]

class SolveReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOLVE_REASON_UNSPECIFIED: _ClassVar[SolveReason]
    SOLVE_REASON_RUNNING: _ClassVar[SolveReason]
    SOLVE_REASON_SOLVED: _ClassVar[SolveReason]
    SOLVE_REASON_TIME_LIMIT: _ClassVar[SolveReason]
    SOLVE_REASON_STOPPED: _ClassVar[SolveReason]
    SOLVE_REASON_GAME_OVER: _ClassVar[SolveReason]

class PieceFamily(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PIECE_FAMILY_UNSPECIFIED: _ClassVar[PieceFamily]
    PIECE_FAMILY_PENTOMINOES: _ClassVar[PieceFamily]
    PIECE_FAMILY_TETROMINOES: _ClassVar[PieceFamily]
    PIECE_FAMILY_PATCHES: _ClassVar[PieceFamily]

class PuzzleDifficulty(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUZZLE_DIFFICULTY_UNSPECIFIED: _ClassVar[PuzzleDifficulty]
    PUZZLE_DIFFICULTY_EASY: _ClassVar[PuzzleDifficulty]
    PUZZLE_DIFFICULTY_MEDIUM: _ClassVar[PuzzleDifficulty]
    PUZZLE_DIFFICULTY_HARD: _ClassVar[PuzzleDifficulty]
OBJECTIVE_UNSPECIFIED: Objective
OBJECTIVE_COVER: Objective
OBJECTIVE_SQUARE7: Objective
SOLVE_STATUS_UNSPECIFIED: SolveStatus
SOLVE_STATUS_OPTIMAL: SolveStatus
SOLVE_STATUS_FEASIBLE: SolveStatus
SOLVE_STATUS_INFEASIBLE: SolveStatus
SOLVE_STATUS_UNKNOWN: SolveStatus
PUZZLE_MODE_UNSPECIFIED: PuzzleMode
PUZZLE_MODE_FIND: PuzzleMode
PUZZLE_MODE_COUNT: PuzzleMode
PUZZLE_METHOD_UNSPECIFIED: PuzzleMethod
PUZZLE_METHOD_AUTO: PuzzleMethod
PUZZLE_METHOD_SEARCH: PuzzleMethod
PUZZLE_METHOD_FRONTIER: PuzzleMethod
MOVE_KIND_UNSPECIFIED: MoveKind
MOVE_KIND_ADVANCE: MoveKind
MOVE_KIND_BUY: MoveKind
MOVE_KIND_LEATHER: MoveKind
EDITION_UNSPECIFIED: Edition
EDITION_REVISED: Edition
EDITION_ORIGINAL: Edition
MOVE_LABEL_UNSPECIFIED: MoveLabel
MOVE_LABEL_GOOD: MoveLabel
MOVE_LABEL_INACCURACY: MoveLabel
MOVE_LABEL_MISTAKE: MoveLabel
MOVE_LABEL_BLUNDER: MoveLabel
SOLVE_REASON_UNSPECIFIED: SolveReason
SOLVE_REASON_RUNNING: SolveReason
SOLVE_REASON_SOLVED: SolveReason
SOLVE_REASON_TIME_LIMIT: SolveReason
SOLVE_REASON_STOPPED: SolveReason
SOLVE_REASON_GAME_OVER: SolveReason
PIECE_FAMILY_UNSPECIFIED: PieceFamily
PIECE_FAMILY_PENTOMINOES: PieceFamily
PIECE_FAMILY_TETROMINOES: PieceFamily
PIECE_FAMILY_PATCHES: PieceFamily
PUZZLE_DIFFICULTY_UNSPECIFIED: PuzzleDifficulty
PUZZLE_DIFFICULTY_EASY: PuzzleDifficulty
PUZZLE_DIFFICULTY_MEDIUM: PuzzleDifficulty
PUZZLE_DIFFICULTY_HARD: PuzzleDifficulty

class Board(_message.Message):
    __slots__ = ("rows",)
    ROWS_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rows: _Optional[_Iterable[str]] = ...) -> None: ...

class Region(_message.Message):
    __slots__ = ("rows",)
    ROWS_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rows: _Optional[_Iterable[str]] = ...) -> None: ...

class Cell(_message.Message):
    __slots__ = ("row", "col")
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    row: int
    col: int
    def __init__(self, row: _Optional[int] = ..., col: _Optional[int] = ...) -> None: ...

class PatchRef(_message.Message):
    __slots__ = ("id", "shape", "count", "required")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    id: int
    shape: str
    count: int
    required: bool
    def __init__(self, id: _Optional[int] = ..., shape: _Optional[str] = ..., count: _Optional[int] = ..., required: _Optional[bool] = ...) -> None: ...

class PlacedPatch(_message.Message):
    __slots__ = ("id", "shape", "patch_index", "orientation", "cells")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    PATCH_INDEX_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    id: int
    shape: str
    patch_index: int
    orientation: int
    cells: _containers.RepeatedCompositeFieldContainer[Cell]
    def __init__(self, id: _Optional[int] = ..., shape: _Optional[str] = ..., patch_index: _Optional[int] = ..., orientation: _Optional[int] = ..., cells: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ...) -> None: ...

class Tiling(_message.Message):
    __slots__ = ("placements",)
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    placements: _containers.RepeatedCompositeFieldContainer[PlacedPatch]
    def __init__(self, placements: _Optional[_Iterable[_Union[PlacedPatch, _Mapping]]] = ...) -> None: ...

class RankedPlacement(_message.Message):
    __slots__ = ("placement", "value", "bound", "proven", "square7")
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    BOUND_FIELD_NUMBER: _ClassVar[int]
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    SQUARE7_FIELD_NUMBER: _ClassVar[int]
    placement: PlacedPatch
    value: int
    bound: int
    proven: bool
    square7: Cell
    def __init__(self, placement: _Optional[_Union[PlacedPatch, _Mapping]] = ..., value: _Optional[int] = ..., bound: _Optional[int] = ..., proven: _Optional[bool] = ..., square7: _Optional[_Union[Cell, _Mapping]] = ...) -> None: ...

class Patch(_message.Message):
    __slots__ = ("id", "shape", "rows", "buttons", "time", "income", "area")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    INCOME_FIELD_NUMBER: _ClassVar[int]
    AREA_FIELD_NUMBER: _ClassVar[int]
    id: int
    shape: str
    rows: _containers.RepeatedScalarFieldContainer[str]
    buttons: int
    time: int
    income: int
    area: int
    def __init__(self, id: _Optional[int] = ..., shape: _Optional[str] = ..., rows: _Optional[_Iterable[str]] = ..., buttons: _Optional[int] = ..., time: _Optional[int] = ..., income: _Optional[int] = ..., area: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("kind", "patch_id", "cells", "text")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kind: MoveKind
    patch_id: int
    cells: _containers.RepeatedCompositeFieldContainer[Cell]
    text: str
    def __init__(self, kind: _Optional[_Union[MoveKind, str]] = ..., patch_id: _Optional[int] = ..., cells: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ..., text: _Optional[str] = ...) -> None: ...

class MoveSuggestion(_message.Message):
    __slots__ = ("move", "value", "reason", "win_chance", "margin_buttons", "proven_margin")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WIN_CHANCE_FIELD_NUMBER: _ClassVar[int]
    MARGIN_BUTTONS_FIELD_NUMBER: _ClassVar[int]
    PROVEN_MARGIN_FIELD_NUMBER: _ClassVar[int]
    move: Move
    value: float
    reason: str
    win_chance: float
    margin_buttons: float
    proven_margin: int
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., value: _Optional[float] = ..., reason: _Optional[str] = ..., win_chance: _Optional[float] = ..., margin_buttons: _Optional[float] = ..., proven_margin: _Optional[int] = ...) -> None: ...

class SolvePlacementRequest(_message.Message):
    __slots__ = ("board", "patches", "objective", "time_limit", "seed")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PATCHES_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    board: Board
    patches: _containers.RepeatedCompositeFieldContainer[PatchRef]
    objective: Objective
    time_limit: _duration_pb2.Duration
    seed: int
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., patches: _Optional[_Iterable[_Union[PatchRef, _Mapping]]] = ..., objective: _Optional[_Union[Objective, str]] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seed: _Optional[int] = ...) -> None: ...

class SolvePlacementResponse(_message.Message):
    __slots__ = ("status", "placements", "board_after", "covered", "bound", "empty_before", "empty_after", "square7", "solve_time")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    BOARD_AFTER_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    BOUND_FIELD_NUMBER: _ClassVar[int]
    EMPTY_BEFORE_FIELD_NUMBER: _ClassVar[int]
    EMPTY_AFTER_FIELD_NUMBER: _ClassVar[int]
    SQUARE7_FIELD_NUMBER: _ClassVar[int]
    SOLVE_TIME_FIELD_NUMBER: _ClassVar[int]
    status: SolveStatus
    placements: _containers.RepeatedCompositeFieldContainer[PlacedPatch]
    board_after: Board
    covered: int
    bound: int
    empty_before: int
    empty_after: int
    square7: Cell
    solve_time: _duration_pb2.Duration
    def __init__(self, status: _Optional[_Union[SolveStatus, str]] = ..., placements: _Optional[_Iterable[_Union[PlacedPatch, _Mapping]]] = ..., board_after: _Optional[_Union[Board, _Mapping]] = ..., covered: _Optional[int] = ..., bound: _Optional[int] = ..., empty_before: _Optional[int] = ..., empty_after: _Optional[int] = ..., square7: _Optional[_Union[Cell, _Mapping]] = ..., solve_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class SuggestPlacementRequest(_message.Message):
    __slots__ = ("board", "patch", "upcoming", "objective", "top", "time_limit", "seed")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    UPCOMING_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    board: Board
    patch: PatchRef
    upcoming: _containers.RepeatedCompositeFieldContainer[PatchRef]
    objective: Objective
    top: int
    time_limit: _duration_pb2.Duration
    seed: int
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., patch: _Optional[_Union[PatchRef, _Mapping]] = ..., upcoming: _Optional[_Iterable[_Union[PatchRef, _Mapping]]] = ..., objective: _Optional[_Union[Objective, str]] = ..., top: _Optional[int] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seed: _Optional[int] = ...) -> None: ...

class SuggestPlacementResponse(_message.Message):
    __slots__ = ("status", "ranked", "solve_time")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RANKED_FIELD_NUMBER: _ClassVar[int]
    SOLVE_TIME_FIELD_NUMBER: _ClassVar[int]
    status: SolveStatus
    ranked: _containers.RepeatedCompositeFieldContainer[RankedPlacement]
    solve_time: _duration_pb2.Duration
    def __init__(self, status: _Optional[_Union[SolveStatus, str]] = ..., ranked: _Optional[_Iterable[_Union[RankedPlacement, _Mapping]]] = ..., solve_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class PlayerState(_message.Message):
    __slots__ = ("board", "buttons", "position", "income", "patches", "leather", "bonus")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    INCOME_FIELD_NUMBER: _ClassVar[int]
    PATCHES_FIELD_NUMBER: _ClassVar[int]
    LEATHER_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    board: Board
    buttons: int
    position: int
    income: int
    patches: _containers.RepeatedScalarFieldContainer[int]
    leather: int
    bonus: bool
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., buttons: _Optional[int] = ..., position: _Optional[int] = ..., income: _Optional[int] = ..., patches: _Optional[_Iterable[int]] = ..., leather: _Optional[int] = ..., bonus: _Optional[bool] = ...) -> None: ...

class GameState(_message.Message):
    __slots__ = ("edition", "players", "circle", "leather_spaces", "current_player", "leather_to_place", "first_to_end")
    EDITION_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    LEATHER_SPACES_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    LEATHER_TO_PLACE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TO_END_FIELD_NUMBER: _ClassVar[int]
    edition: Edition
    players: _containers.RepeatedCompositeFieldContainer[PlayerState]
    circle: _containers.RepeatedScalarFieldContainer[int]
    leather_spaces: _containers.RepeatedScalarFieldContainer[int]
    current_player: int
    leather_to_place: int
    first_to_end: int
    def __init__(self, edition: _Optional[_Union[Edition, str]] = ..., players: _Optional[_Iterable[_Union[PlayerState, _Mapping]]] = ..., circle: _Optional[_Iterable[int]] = ..., leather_spaces: _Optional[_Iterable[int]] = ..., current_player: _Optional[int] = ..., leather_to_place: _Optional[int] = ..., first_to_end: _Optional[int] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("edition", "circle", "actions")
    EDITION_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    edition: Edition
    circle: _containers.RepeatedScalarFieldContainer[int]
    actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, edition: _Optional[_Union[Edition, str]] = ..., circle: _Optional[_Iterable[int]] = ..., actions: _Optional[_Iterable[str]] = ...) -> None: ...

class SuggestMoveRequest(_message.Message):
    __slots__ = ("state_json", "top", "time_limit", "seed", "iterations", "state")
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    state_json: str
    top: int
    time_limit: _duration_pb2.Duration
    seed: int
    iterations: int
    state: GameState
    def __init__(self, state_json: _Optional[str] = ..., top: _Optional[int] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seed: _Optional[int] = ..., iterations: _Optional[int] = ..., state: _Optional[_Union[GameState, _Mapping]] = ...) -> None: ...

class SuggestMoveResponse(_message.Message):
    __slots__ = ("suggestions", "player", "solve_time", "iterations", "searched", "proven")
    SUGGESTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    SOLVE_TIME_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    SEARCHED_FIELD_NUMBER: _ClassVar[int]
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    suggestions: _containers.RepeatedCompositeFieldContainer[MoveSuggestion]
    player: int
    solve_time: _duration_pb2.Duration
    iterations: int
    searched: bool
    proven: bool
    def __init__(self, suggestions: _Optional[_Iterable[_Union[MoveSuggestion, _Mapping]]] = ..., player: _Optional[int] = ..., solve_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., iterations: _Optional[int] = ..., searched: _Optional[bool] = ..., proven: _Optional[bool] = ...) -> None: ...

class AnalyzeGameRequest(_message.Message):
    __slots__ = ("record", "iterations", "time_per_move", "seed", "large_loss")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_PER_MOVE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    LARGE_LOSS_FIELD_NUMBER: _ClassVar[int]
    record: GameRecord
    iterations: int
    time_per_move: _duration_pb2.Duration
    seed: int
    large_loss: float
    def __init__(self, record: _Optional[_Union[GameRecord, _Mapping]] = ..., iterations: _Optional[int] = ..., time_per_move: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seed: _Optional[int] = ..., large_loss: _Optional[float] = ...) -> None: ...

class AnalyzeGameResponse(_message.Message):
    __slots__ = ("ply", "player", "played", "best", "value_played", "value_best", "loss", "large", "loss_points", "margin_played", "margin_best", "label", "player_accuracy")
    PLY_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    VALUE_PLAYED_FIELD_NUMBER: _ClassVar[int]
    VALUE_BEST_FIELD_NUMBER: _ClassVar[int]
    LOSS_FIELD_NUMBER: _ClassVar[int]
    LARGE_FIELD_NUMBER: _ClassVar[int]
    LOSS_POINTS_FIELD_NUMBER: _ClassVar[int]
    MARGIN_PLAYED_FIELD_NUMBER: _ClassVar[int]
    MARGIN_BEST_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    ply: int
    player: int
    played: Move
    best: Move
    value_played: float
    value_best: float
    loss: float
    large: bool
    loss_points: int
    margin_played: int
    margin_best: int
    label: MoveLabel
    player_accuracy: float
    def __init__(self, ply: _Optional[int] = ..., player: _Optional[int] = ..., played: _Optional[_Union[Move, _Mapping]] = ..., best: _Optional[_Union[Move, _Mapping]] = ..., value_played: _Optional[float] = ..., value_best: _Optional[float] = ..., loss: _Optional[float] = ..., large: _Optional[bool] = ..., loss_points: _Optional[int] = ..., margin_played: _Optional[int] = ..., margin_best: _Optional[int] = ..., label: _Optional[_Union[MoveLabel, str]] = ..., player_accuracy: _Optional[float] = ...) -> None: ...

class AnalyzePositionRequest(_message.Message):
    __slots__ = ("state", "state_json", "top", "seed", "iterations", "time_limit", "until_cancelled", "report_interval")
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    UNTIL_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    REPORT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    state_json: str
    top: int
    seed: int
    iterations: int
    time_limit: _duration_pb2.Duration
    until_cancelled: bool
    report_interval: _duration_pb2.Duration
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., state_json: _Optional[str] = ..., top: _Optional[int] = ..., seed: _Optional[int] = ..., iterations: _Optional[int] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., until_cancelled: _Optional[bool] = ..., report_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class AnalyzedMove(_message.Message):
    __slots__ = ("move", "win_chance", "reason", "visits", "mean_margin", "proven_margin", "principal_variation")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    WIN_CHANCE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    MEAN_MARGIN_FIELD_NUMBER: _ClassVar[int]
    PROVEN_MARGIN_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_VARIATION_FIELD_NUMBER: _ClassVar[int]
    move: Move
    win_chance: float
    reason: str
    visits: int
    mean_margin: float
    proven_margin: int
    principal_variation: _containers.RepeatedCompositeFieldContainer[Move]
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., win_chance: _Optional[float] = ..., reason: _Optional[str] = ..., visits: _Optional[int] = ..., mean_margin: _Optional[float] = ..., proven_margin: _Optional[int] = ..., principal_variation: _Optional[_Iterable[_Union[Move, _Mapping]]] = ...) -> None: ...

class AnalyzePositionUpdate(_message.Message):
    __slots__ = ("moves", "player", "iterations", "searched", "proven", "proven_margin", "final", "elapsed")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    SEARCHED_FIELD_NUMBER: _ClassVar[int]
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    PROVEN_MARGIN_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[AnalyzedMove]
    player: int
    iterations: int
    searched: bool
    proven: bool
    proven_margin: int
    final: bool
    elapsed: _duration_pb2.Duration
    def __init__(self, moves: _Optional[_Iterable[_Union[AnalyzedMove, _Mapping]]] = ..., player: _Optional[int] = ..., iterations: _Optional[int] = ..., searched: _Optional[bool] = ..., proven: _Optional[bool] = ..., proven_margin: _Optional[int] = ..., final: _Optional[bool] = ..., elapsed: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class SolvePositionRequest(_message.Message):
    __slots__ = ("state", "state_json", "time_limit", "report_interval", "table_mb")
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    REPORT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    TABLE_MB_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    state_json: str
    time_limit: _duration_pb2.Duration
    report_interval: _duration_pb2.Duration
    table_mb: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., state_json: _Optional[str] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., report_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., table_mb: _Optional[int] = ...) -> None: ...

class SolvePositionUpdate(_message.Message):
    __slots__ = ("player", "lower", "upper", "value", "line", "nodes", "elapsed", "final", "reason", "probes", "table_full", "table_bytes")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PROBES_FIELD_NUMBER: _ClassVar[int]
    TABLE_FULL_FIELD_NUMBER: _ClassVar[int]
    TABLE_BYTES_FIELD_NUMBER: _ClassVar[int]
    player: int
    lower: int
    upper: int
    value: int
    line: _containers.RepeatedCompositeFieldContainer[Move]
    nodes: int
    elapsed: _duration_pb2.Duration
    final: bool
    reason: SolveReason
    probes: int
    table_full: bool
    table_bytes: int
    def __init__(self, player: _Optional[int] = ..., lower: _Optional[int] = ..., upper: _Optional[int] = ..., value: _Optional[int] = ..., line: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., nodes: _Optional[int] = ..., elapsed: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., final: _Optional[bool] = ..., reason: _Optional[_Union[SolveReason, str]] = ..., probes: _Optional[int] = ..., table_full: _Optional[bool] = ..., table_bytes: _Optional[int] = ...) -> None: ...

class SolvePuzzleRequest(_message.Message):
    __slots__ = ("region", "pieces", "mode", "no_mirror", "allow_unused", "max_tilings", "time_limit", "unlimited_pieces", "method")
    REGION_FIELD_NUMBER: _ClassVar[int]
    PIECES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    NO_MIRROR_FIELD_NUMBER: _ClassVar[int]
    ALLOW_UNUSED_FIELD_NUMBER: _ClassVar[int]
    MAX_TILINGS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    UNLIMITED_PIECES_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    region: Region
    pieces: _containers.RepeatedScalarFieldContainer[str]
    mode: PuzzleMode
    no_mirror: bool
    allow_unused: bool
    max_tilings: int
    time_limit: _duration_pb2.Duration
    unlimited_pieces: _containers.RepeatedScalarFieldContainer[str]
    method: PuzzleMethod
    def __init__(self, region: _Optional[_Union[Region, _Mapping]] = ..., pieces: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[PuzzleMode, str]] = ..., no_mirror: _Optional[bool] = ..., allow_unused: _Optional[bool] = ..., max_tilings: _Optional[int] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., unlimited_pieces: _Optional[_Iterable[str]] = ..., method: _Optional[_Union[PuzzleMethod, str]] = ...) -> None: ...

class SolvePuzzleResponse(_message.Message):
    __slots__ = ("status", "tilings", "count", "distinct", "width", "height", "solve_time", "count_decimal", "distinct_decimal", "method")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TILINGS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DISTINCT_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    SOLVE_TIME_FIELD_NUMBER: _ClassVar[int]
    COUNT_DECIMAL_FIELD_NUMBER: _ClassVar[int]
    DISTINCT_DECIMAL_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    status: SolveStatus
    tilings: _containers.RepeatedCompositeFieldContainer[Tiling]
    count: int
    distinct: int
    width: int
    height: int
    solve_time: _duration_pb2.Duration
    count_decimal: str
    distinct_decimal: str
    method: PuzzleMethod
    def __init__(self, status: _Optional[_Union[SolveStatus, str]] = ..., tilings: _Optional[_Iterable[_Union[Tiling, _Mapping]]] = ..., count: _Optional[int] = ..., distinct: _Optional[int] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., solve_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., count_decimal: _Optional[str] = ..., distinct_decimal: _Optional[str] = ..., method: _Optional[_Union[PuzzleMethod, str]] = ...) -> None: ...

class ListPatchesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPatchesResponse(_message.Message):
    __slots__ = ("patches",)
    PATCHES_FIELD_NUMBER: _ClassVar[int]
    patches: _containers.RepeatedCompositeFieldContainer[Patch]
    def __init__(self, patches: _Optional[_Iterable[_Union[Patch, _Mapping]]] = ...) -> None: ...

class GeneratePuzzleRequest(_message.Message):
    __slots__ = ("height", "width", "region", "family", "pieces", "difficulty", "seed", "time_limit")
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    PIECES_FIELD_NUMBER: _ClassVar[int]
    DIFFICULTY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    height: int
    width: int
    region: Region
    family: PieceFamily
    pieces: _containers.RepeatedScalarFieldContainer[str]
    difficulty: PuzzleDifficulty
    seed: int
    time_limit: _duration_pb2.Duration
    def __init__(self, height: _Optional[int] = ..., width: _Optional[int] = ..., region: _Optional[_Union[Region, _Mapping]] = ..., family: _Optional[_Union[PieceFamily, str]] = ..., pieces: _Optional[_Iterable[str]] = ..., difficulty: _Optional[_Union[PuzzleDifficulty, str]] = ..., seed: _Optional[int] = ..., time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class GeneratePuzzleResponse(_message.Message):
    __slots__ = ("status", "region", "pieces", "solution", "count", "distinct", "difficulty_nodes", "difficulty", "width", "height", "attempts", "solve_time")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    PIECES_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DISTINCT_FIELD_NUMBER: _ClassVar[int]
    DIFFICULTY_NODES_FIELD_NUMBER: _ClassVar[int]
    DIFFICULTY_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    SOLVE_TIME_FIELD_NUMBER: _ClassVar[int]
    status: SolveStatus
    region: Region
    pieces: _containers.RepeatedScalarFieldContainer[str]
    solution: Tiling
    count: int
    distinct: int
    difficulty_nodes: int
    difficulty: PuzzleDifficulty
    width: int
    height: int
    attempts: int
    solve_time: _duration_pb2.Duration
    def __init__(self, status: _Optional[_Union[SolveStatus, str]] = ..., region: _Optional[_Union[Region, _Mapping]] = ..., pieces: _Optional[_Iterable[str]] = ..., solution: _Optional[_Union[Tiling, _Mapping]] = ..., count: _Optional[int] = ..., distinct: _Optional[int] = ..., difficulty_nodes: _Optional[int] = ..., difficulty: _Optional[_Union[PuzzleDifficulty, str]] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., attempts: _Optional[int] = ..., solve_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class EngineRecord(_message.Message):
    __slots__ = ("edition", "seed", "circle", "actions")
    EDITION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    edition: str
    seed: int
    circle: _containers.RepeatedScalarFieldContainer[int]
    actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, edition: _Optional[str] = ..., seed: _Optional[int] = ..., circle: _Optional[_Iterable[int]] = ..., actions: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("rows", "buttons", "position", "income", "patches", "leather", "bonus", "empty", "score")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    INCOME_FIELD_NUMBER: _ClassVar[int]
    PATCHES_FIELD_NUMBER: _ClassVar[int]
    LEATHER_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    EMPTY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedScalarFieldContainer[str]
    buttons: int
    position: int
    income: int
    patches: _containers.RepeatedScalarFieldContainer[int]
    leather: int
    bonus: bool
    empty: int
    score: int
    def __init__(self, rows: _Optional[_Iterable[str]] = ..., buttons: _Optional[int] = ..., position: _Optional[int] = ..., income: _Optional[int] = ..., patches: _Optional[_Iterable[int]] = ..., leather: _Optional[int] = ..., bonus: _Optional[bool] = ..., empty: _Optional[int] = ..., score: _Optional[int] = ...) -> None: ...

class AvailablePatch(_message.Message):
    __slots__ = ("slot", "id", "buttons", "time", "income", "affordable", "buyable", "placements")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    INCOME_FIELD_NUMBER: _ClassVar[int]
    AFFORDABLE_FIELD_NUMBER: _ClassVar[int]
    BUYABLE_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    slot: int
    id: int
    buttons: int
    time: int
    income: int
    affordable: bool
    buyable: bool
    placements: int
    def __init__(self, slot: _Optional[int] = ..., id: _Optional[int] = ..., buttons: _Optional[int] = ..., time: _Optional[int] = ..., income: _Optional[int] = ..., affordable: _Optional[bool] = ..., buyable: _Optional[bool] = ..., placements: _Optional[int] = ...) -> None: ...

class Advance(_message.Message):
    __slots__ = ("to", "buttons")
    TO_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    to: int
    buttons: int
    def __init__(self, to: _Optional[int] = ..., buttons: _Optional[int] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("scores", "buttons", "empty", "bonus", "winner")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    EMPTY_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    buttons: _containers.RepeatedScalarFieldContainer[int]
    empty: _containers.RepeatedScalarFieldContainer[int]
    bonus: _struct_pb2.Value
    winner: int
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., buttons: _Optional[_Iterable[int]] = ..., empty: _Optional[_Iterable[int]] = ..., bonus: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., winner: _Optional[int] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("edition", "players", "current_player", "leather_to_place", "terminal", "circle", "available", "advance", "leather_spaces", "leather_track", "income_spaces", "end", "bonus_owner", "first_to_end", "scores", "winner", "notation", "result")
    EDITION_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    LEATHER_TO_PLACE_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    ADVANCE_FIELD_NUMBER: _ClassVar[int]
    LEATHER_SPACES_FIELD_NUMBER: _ClassVar[int]
    LEATHER_TRACK_FIELD_NUMBER: _ClassVar[int]
    INCOME_SPACES_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    BONUS_OWNER_FIELD_NUMBER: _ClassVar[int]
    FIRST_TO_END_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    edition: str
    players: _containers.RepeatedCompositeFieldContainer[PlayerView]
    current_player: int
    leather_to_place: int
    terminal: bool
    circle: _containers.RepeatedScalarFieldContainer[int]
    available: _containers.RepeatedCompositeFieldContainer[AvailablePatch]
    advance: Advance
    leather_spaces: _containers.RepeatedScalarFieldContainer[int]
    leather_track: _containers.RepeatedScalarFieldContainer[int]
    income_spaces: _containers.RepeatedScalarFieldContainer[int]
    end: int
    bonus_owner: int
    first_to_end: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    notation: str
    result: GameResult
    def __init__(self, edition: _Optional[str] = ..., players: _Optional[_Iterable[_Union[PlayerView, _Mapping]]] = ..., current_player: _Optional[int] = ..., leather_to_place: _Optional[int] = ..., terminal: _Optional[bool] = ..., circle: _Optional[_Iterable[int]] = ..., available: _Optional[_Iterable[_Union[AvailablePatch, _Mapping]]] = ..., advance: _Optional[_Union[Advance, _Mapping]] = ..., leather_spaces: _Optional[_Iterable[int]] = ..., leather_track: _Optional[_Iterable[int]] = ..., income_spaces: _Optional[_Iterable[int]] = ..., end: _Optional[int] = ..., bonus_owner: _Optional[int] = ..., first_to_end: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., notation: _Optional[str] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("seed", "edition", "circle")
    SEED_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    seed: int
    edition: str
    circle: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seed: _Optional[int] = ..., edition: _Optional[str] = ..., circle: _Optional[_Iterable[int]] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("state", "view", "record")
    STATE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    view: GameView
    record: EngineRecord
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ..., record: _Optional[_Union[EngineRecord, _Mapping]] = ...) -> None: ...

class ViewPositionRequest(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ...) -> None: ...

class ViewPositionResponse(_message.Message):
    __slots__ = ("state", "view")
    STATE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    view: GameView
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class LegalMovesRequest(_message.Message):
    __slots__ = ("state", "patch_id")
    STATE_FIELD_NUMBER: _ClassVar[int]
    PATCH_ID_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    patch_id: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., patch_id: _Optional[int] = ...) -> None: ...

class LegalMovesResponse(_message.Message):
    __slots__ = ("actions", "count")
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedScalarFieldContainer[str]
    count: int
    def __init__(self, actions: _Optional[_Iterable[str]] = ..., count: _Optional[int] = ...) -> None: ...

class ApplyMoveRequest(_message.Message):
    __slots__ = ("state", "move")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    move: str
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., move: _Optional[str] = ...) -> None: ...

class ApplyMoveResponse(_message.Message):
    __slots__ = ("player", "move", "state", "view")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    player: int
    move: Move
    state: GameState
    view: GameView
    def __init__(self, player: _Optional[int] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class EngineMoveRequest(_message.Message):
    __slots__ = ("state", "strength", "seed")
    STATE_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    strength: str
    seed: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., strength: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class EngineMoveResponse(_message.Message):
    __slots__ = ("player", "strength", "move", "state", "view", "win_chance", "value")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    WIN_CHANCE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    player: int
    strength: str
    move: Move
    state: GameState
    view: GameView
    win_chance: float
    value: float
    def __init__(self, player: _Optional[int] = ..., strength: _Optional[str] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ..., win_chance: _Optional[float] = ..., value: _Optional[float] = ...) -> None: ...

class ReplayGameRequest(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: GameRecord
    def __init__(self, record: _Optional[_Union[GameRecord, _Mapping]] = ...) -> None: ...

class ReplayPly(_message.Message):
    __slots__ = ("ply", "player", "move")
    PLY_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    ply: int
    player: int
    move: Move
    def __init__(self, ply: _Optional[int] = ..., player: _Optional[int] = ..., move: _Optional[_Union[Move, _Mapping]] = ...) -> None: ...

class ReplayGameResponse(_message.Message):
    __slots__ = ("record", "plies", "views")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    PLIES_FIELD_NUMBER: _ClassVar[int]
    VIEWS_FIELD_NUMBER: _ClassVar[int]
    record: EngineRecord
    plies: _containers.RepeatedCompositeFieldContainer[ReplayPly]
    views: _containers.RepeatedCompositeFieldContainer[GameView]
    def __init__(self, record: _Optional[_Union[EngineRecord, _Mapping]] = ..., plies: _Optional[_Iterable[_Union[ReplayPly, _Mapping]]] = ..., views: _Optional[_Iterable[_Union[GameView, _Mapping]]] = ...) -> None: ...

class LoadPositionRequest(_message.Message):
    __slots__ = ("text", "plies")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PLIES_FIELD_NUMBER: _ClassVar[int]
    text: str
    plies: int
    def __init__(self, text: _Optional[str] = ..., plies: _Optional[int] = ...) -> None: ...

class LoadPositionResponse(_message.Message):
    __slots__ = ("kind", "state", "view", "record")
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    kind: str
    state: GameState
    view: GameView
    record: EngineRecord
    def __init__(self, kind: _Optional[str] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ..., record: _Optional[_Union[EngineRecord, _Mapping]] = ...) -> None: ...

class PositionNotationRequest(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ...) -> None: ...

class PositionNotationResponse(_message.Message):
    __slots__ = ("notation",)
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    notation: str
    def __init__(self, notation: _Optional[str] = ...) -> None: ...
