"""Polyomino geometry and CP-SAT placement / puzzle solvers for Patchwork.

This package imports none of the project's other packages.
"""

from .cache import DEFAULT_CACHE_LIMIT, cache_info, set_cache_limit  # noqa: F401
from .geometry import (  # noqa: F401
    BOARD_SIZE, FULL_BOARD, Board, BoardError, Cell, Placement, Shape, ShapeError,
    board_from_rows, board_to_rows, cells_of, completed_square, mask_of, placement_masks,
    placements, square_masks,
)
from .patches import (  # noqa: F401
    LEATHER_MASKS, LEATHER_PATCH_ID, LEATHER_SHAPE, PATCH_MASKS, PATCHES, Patch,
    UnknownPatchError, patch,
)
from .stop import StopToken  # noqa: F401
from .types import (  # noqa: F401
    Candidate, CountTableFull, LookaheadResult, Objective, PatchKey, PlacedPatch, PlacementResult,
    PuzzleResult, RankedPlacement, SolverInputError, SolveStatus,
)

# The solvers import OR-Tools (0.5-1.6 s), so they load on first use: the
# engine and the CLI stay fast to import when they only need geometry.
_LAZY = {
    "candidates_from": "cover",
    "solve": "cover",
    "solve_cover": "cover",
    "solve_square7": "cover",
    "rank_placements": "lookahead",
    "solve_puzzle": "puzzle",
    "PuzzleProblem": "puzzle",
    "generate_puzzle": "puzzle",
    "GeneratedPuzzle": "puzzle",
    "validate_placements": "validate",
    "validate_tiling": "validate",
    "ValidationError": "validate",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
