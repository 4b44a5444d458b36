"""The 33 standard Patchwork patches and the 1×1 leather patch.

Data comes from ``solver/data/patches.json`` (a copy of the project's shared
rules data). ``PATCH_MASKS[i]`` lists every placement mask of patch ``i`` on
an empty 9×9 board, precomputed once at import.

>>> len(PATCHES), sum(p.shape.area for p in PATCHES), sum(p.income for p in PATCHES)
(33, 166, 38)
>>> PATCHES[0].shape.to_str(), PATCHES[0].buttons, PATCHES[0].time
('##', 2, 1)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from .geometry import Board, Shape, placement_masks

LEATHER_PATCH_ID = -1
"""Key used for the 1×1 leather patches in placement answers."""


@dataclass(frozen=True)
class Patch:
    id: int
    shape: Shape
    buttons: int
    time: int
    income: int

    @property
    def area(self) -> int:
        return self.shape.area


class UnknownPatchError(ValueError):
    """A patch id that is not one of the 33 standard patches."""


def _load() -> tuple[Patch, ...]:
    raw = json.loads(resources.files("quiltsolve.solver").joinpath("data/patches.json").read_text())
    out = tuple(
        Patch(p["id"], Shape.from_rows(p["shape"]), p["buttons"], p["time"], p["income"])
        for p in sorted(raw, key=lambda p: p["id"])
    )
    assert [p.id for p in out] == list(range(len(out)))
    return out


PATCHES: tuple[Patch, ...] = _load()
LEATHER_SHAPE = Shape(((0, 0),))
PATCH_MASKS: tuple[tuple[Board, ...], ...] = tuple(placement_masks(p.shape) for p in PATCHES)
LEATHER_MASKS: tuple[Board, ...] = placement_masks(LEATHER_SHAPE)


def patch(patch_id: int) -> Patch:
    """The standard patch with this id.

    >>> patch(99)
    Traceback (most recent call last):
    ...
    quiltsolve.solver.patches.UnknownPatchError: unknown patch id 99; standard ids are 0-32
    """
    if isinstance(patch_id, bool) or not isinstance(patch_id, int) or not 0 <= patch_id < len(PATCHES):
        raise UnknownPatchError(f"unknown patch id {patch_id}; standard ids are 0-{len(PATCHES) - 1}")
    return PATCHES[patch_id]
