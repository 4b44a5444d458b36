"""Actions: small frozen dataclasses with a stable one-line text form.

    advance                 move in front of the opponent, 1 button per space
    buy P r,c;r,c;...       buy patch P and cover these cells (row-major order)
    leather r,c             place a won leather patch on this cell

>>> parse_action("buy 0 3,5;3,4").to_str()
'buy 0 3,4;3,5'
>>> parse_action(" leather 8,0 ")
PlaceLeather(cell=(8, 0))
>>> parse_action("advance") is ADVANCE
True
>>> parse_action("jump")
Traceback (most recent call last):
...
quiltsolve.engine.actions.ActionSyntaxError: unknown action "jump"; expected 'advance', 'buy P r,c;...' or 'leather r,c'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, TypeVar, Union

from quiltsolve.solver import BOARD_SIZE, cells_of

from .quote import quote

Mask: TypeAlias = int
"""A set of board cells; bit ``row * 9 + col``."""


class ActionSyntaxError(ValueError):
    """Text that is not an action."""


def _q(value: object) -> str:
    """The client's text, cut short (:func:`engine.quote.quote`)."""
    return quote(value)


def _small_number(text: str) -> bool:
    return 0 < len(text) <= 3 and text.isascii() and text.isdigit()


def _cell(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2 or not all(_small_number(p.strip()) for p in parts):
        raise ActionSyntaxError(f"bad cell {_q(text)}; expected 'row,col' with row and col 0-{BOARD_SIZE - 1}")
    r, c = int(parts[0]), int(parts[1])
    if not (0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE):
        raise ActionSyntaxError(f"cell {r},{c} is off the board; row and col are 0-{BOARD_SIZE - 1}")
    return r, c


@dataclass(frozen=True, slots=True)
class Advance:
    """Pass: move to the space just in front of the opponent."""

    def to_str(self) -> str:
        return "advance"

    @classmethod
    def from_str(cls, text: str) -> "Advance":
        return _parse_as(cls, text, "an advance")


@dataclass(frozen=True, slots=True)
class Buy:
    """Buy ``patch_id`` and place it on the cells of ``mask``."""

    patch_id: int
    mask: Mask

    def cells(self) -> list[tuple[int, int]]:
        return cells_of(self.mask)

    def to_str(self) -> str:
        return f"buy {self.patch_id} " + ";".join(f"{r},{c}" for r, c in cells_of(self.mask))

    @classmethod
    def from_str(cls, text: str) -> "Buy":
        return _parse_as(cls, text, "a buy")


@dataclass(frozen=True, slots=True)
class PlaceLeather:
    """Place a 1×1 leather patch on ``cell`` = (row, col)."""

    cell: tuple[int, int]

    @property
    def mask(self) -> Mask:
        r, c = self.cell
        return 1 << (r * BOARD_SIZE + c)

    def to_str(self) -> str:
        return f"leather {self.cell[0]},{self.cell[1]}"

    @classmethod
    def from_str(cls, text: str) -> "PlaceLeather":
        return _parse_as(cls, text, "a leather placement")


Action: TypeAlias = Union[Advance, Buy, PlaceLeather]

ADVANCE = Advance()

# Every leather action is interned: there are only 81.
LEATHER_ACTIONS: tuple[PlaceLeather, ...] = tuple(
    PlaceLeather((i // BOARD_SIZE, i % BOARD_SIZE)) for i in range(BOARD_SIZE * BOARD_SIZE)
)


_A = TypeVar("_A", "Advance", "Buy", "PlaceLeather")


def _parse_as(cls: type[_A], text: str, what: str) -> _A:
    """``parse_action``, insisting on one kind of action (the ``from_str`` methods)."""
    a = parse_action(text)
    if not isinstance(a, cls):
        raise ActionSyntaxError(f"{_q(text)} is not {what}")
    return a


def parse_action(text: str) -> Action:
    """Parse one action's text form (surrounding blanks ignored)."""
    if not isinstance(text, str):
        raise ActionSyntaxError(f"an action is a string, got {_q(text)}")
    words = text.split()
    if not words:
        raise ActionSyntaxError("empty action")
    kind = words[0]
    if kind == "advance" and len(words) == 1:
        return ADVANCE
    if kind == "leather" and len(words) == 2:
        r, c = _cell(words[1])
        return LEATHER_ACTIONS[r * BOARD_SIZE + c]
    if kind == "buy" and len(words) == 3:
        if not _small_number(words[1]):
            raise ActionSyntaxError(f"bad patch id {_q(words[1])}; expected a number")
        mask = 0
        for part in words[2].split(";"):
            r, c = _cell(part)
            bit = 1 << (r * BOARD_SIZE + c)
            if mask & bit:
                raise ActionSyntaxError(f"cell {r},{c} is listed twice")
            mask |= bit
        return Buy(int(words[1]), mask)
    if kind in ("advance", "leather", "buy"):
        usage = {"advance": "'advance'", "leather": "'leather r,c'", "buy": "'buy P r,c;r,c;...'"}[kind]
        raise ActionSyntaxError(f"bad {kind} action {_q(text.strip())}; expected {usage}")
    raise ActionSyntaxError(f"unknown action {_q(kind)}; expected 'advance', 'buy P r,c;...' or 'leather r,c'")
