"""The time track and scoring constants, loaded once from ``engine/data/track.json``.

>>> END, INCOME_SPACES[0], LEATHER_SPACES["original"]
(53, 5, (20, 26, 32, 44, 50))
>>> INCOME_UP_TO[4], INCOME_UP_TO[5], INCOME_UP_TO[53]
(0, 1, 9)
"""

from __future__ import annotations

import json
from importlib import resources

from quiltsolve.solver import BOARD_SIZE, FULL_BOARD, square_masks

_RAW = json.loads(resources.files("quiltsolve.engine").joinpath("data/track.json").read_text())

END: int = _RAW["end"]
INCOME_SPACES: tuple[int, ...] = tuple(_RAW["income_spaces"])
LEATHER_SPACES: dict[str, tuple[int, ...]] = {
    k: tuple(sorted(v)) for k, v in _RAW["leather_patch_spaces"].items()
}
EDITIONS: tuple[str, ...] = tuple(sorted(LEATHER_SPACES, key=lambda e: e != _RAW["default_edition"]))
DEFAULT_EDITION: str = _RAW["default_edition"]
START_BUTTONS: int = _RAW["start_buttons"]
BONUS_SIDE: int = _RAW["bonus_square"]
BONUS_POINTS: int = _RAW["bonus_points"]
EMPTY_PENALTY: int = _RAW["empty_cell_penalty"]
START_PATCH_ID: int = _RAW["start_patch_id"]
assert _RAW["board_size"] == BOARD_SIZE

# INCOME_UP_TO[p] = number of income spaces <= p, so a move a -> b crosses
# INCOME_UP_TO[b] - INCOME_UP_TO[a] of them (each pays once).
INCOME_UP_TO: tuple[int, ...] = tuple(sum(1 for s in INCOME_SPACES if s <= p) for p in range(END + 1))

# Payouts still to come for a token standing on p (used by heuristics).
PAYOUTS_AFTER: tuple[int, ...] = tuple(len(INCOME_SPACES) - INCOME_UP_TO[p] for p in range(END + 1))

BONUS_MASKS: tuple[int, ...] = tuple(m for _, m in square_masks(BONUS_SIDE, BOARD_SIZE))
BOARD_CELLS: int = BOARD_SIZE * BOARD_SIZE
FULL: int = FULL_BOARD
