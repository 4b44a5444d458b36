"""Polyomino geometry and CP-SAT placement / puzzle solvers for Patchwork.

This package imports none of the project's other packages.
"""

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
    Candidate, LookaheadResult, Objective, PatchKey, PlacedPatch, PlacementResult,
    PuzzleResult, RankedPlacement, SolverInputError, SolveStatus,
)
