"""A whole position as one short line of text, like FEN for chess.

Six fields separated by blanks::

    EDITION PLAYER0 PLAYER1 CIRCLE TURN FIRST

    r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -        (new_game(7))

``EDITION`` is ``r`` (revised) or ``o`` (original). Each ``PLAYER`` is
``SPACE,BUTTONS,PATCHES,BOARD`` with ``+`` after it for the holder of the
7×7 bonus tile: the time token's space (0-53), the buttons held (0-1000),
the bought patch ids in buying order (``-`` for none) and the board. A
patch id is one character: ``0``-``9`` then ``a``-``w`` for 10-32. A board
is up to 27 octal digits, three per row, row 0 first; a digit is three
cells, the left one worth 4, the middle 2, the right 1 (``7`` = ``###``,
``4`` = ``#..``, ``1`` = ``..#``); missing digits at the end are empty
cells, so an empty board is ``0``. ``CIRCLE`` lists the patches left,
clockwise from the neutral token. ``TURN`` is the player to move, ``0`` or
``1``, followed by ``L`` and a count when that player must first place
leather patches (``1L1``). ``FIRST`` is who reached space 53 first, or
``-``.

Income, leather counts and the leather patches left on the track follow
from the rest and are not written. Letters may be upper or lower case; the
canonical form (:meth:`GameState.to_notation`) is lower case, with no
leading zeros and without trailing empty board rows.

>>> from quiltsolve.engine import GameState, new_game, parse_action
>>> s = new_game(7)
>>> s.to_notation()
'r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -'
>>> s.apply_action(parse_action("buy 10 0,0;0,2;1,0;1,1;1,2"))    # patch 10 is 'a'
>>> s.to_notation()
'r 2,4,a,500700 0,5,-,0 kbu68n1f9gopmeqs7hrjc4i32wd5vl0t 1 -'
>>> GameState.from_notation(s.to_notation()) == s
True
>>> GameState.from_notation("r 0,5,-,0 0,5,-,0 tak 0 -")
Traceback (most recent call last):
...
quiltsolve.engine.notation.NotationError: circle: patch 0 is neither in the circle nor on a board
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING, Any, Iterable

from .errors import FieldError
from .quote import quote
from .state_json import MAX_BUTTONS, MAX_LEATHER
from .tables import AREA, INCOME, N_PATCHES
from .track import EDITIONS, END, LEATHER_SPACES

if TYPE_CHECKING:   # engine.state builds states from this module's fields: it imports this module
    from .state import GameState

__all__ = ["ID_CHARS", "MAX_LENGTH", "NotationError", "notation_fields", "to_notation", "translate_state_error"]

ID_CHARS = "0123456789abcdefghijklmnopqrstuvw"
"""Patch id ``i`` is written ``ID_CHARS[i]``."""
assert len(ID_CHARS) == N_PATCHES

MAX_LENGTH = 400
"""Longest text accepted; no position takes more than 120 characters."""

_EDITION = {"r": "revised", "o": "original"}
_EDITION_CODE = {v: k for k, v in _EDITION.items()}
assert set(_EDITION.values()) == set(EDITIONS)
_FIELDS = "edition, player 0, player 1, circle, turn, first to end"
_NUMBER = re.compile(r"[0-9]{1,4}")
_OCTAL = re.compile(r"[0-7]{1,27}")
_TURN = re.compile(r"([01])(?:L([0-9]))?", re.IGNORECASE)


class NotationError(FieldError):
    """Text that is not a position; ``field`` is the notation's field at fault (``player 0 buttons``)."""


def _row_digits(board: int) -> str:
    out = []
    for r in range(9):
        row = board >> (9 * r) & 0x1FF
        for c in (0, 3, 6):
            out.append(str((row >> c & 1) << 2 | (row >> (c + 1) & 1) << 1 | (row >> (c + 2) & 1)))
    text = "".join(out)
    while text.endswith("000"):
        text = text[:-3]
    return text or "0"


def _ids_text(ids: Iterable[int]) -> str:
    return "".join(ID_CHARS[i] for i in ids) or "-"


def to_notation(state: GameState) -> str:
    """The position of ``state`` as one line (see the module docstring)."""
    parts = [_EDITION_CODE[state.edition]]
    for p in state.players:
        parts.append(f"{p.position},{p.buttons},{_ids_text(p.patches)},{_row_digits(p.board)}"
                     + ("+" if p.bonus else ""))
    parts.append(_ids_text(state.circle))
    cur, pending = state.current_player(), state.leather_to_place
    parts.append(f"{cur}L{pending}" if pending else str(cur))
    parts.append("-" if state.first_to_end is None else str(state.first_to_end))
    return " ".join(parts)


def _number(text: str, where: str, hi: int) -> int:
    if not _NUMBER.fullmatch(text) or int(text) > hi:
        raise NotationError(where, f"must be a number 0-{hi}, got {quote(text)}")
    return int(text)


def _ids(text: str, where: str) -> list[int]:
    if text == "-":
        return []
    out = []
    for ch in text.lower():
        i = ID_CHARS.find(ch)
        if i < 0:
            raise NotationError(where, f"{quote(ch)} is not a patch id; use 0-9 and a-w (10-32), "
                                f"or '-' for none; got {quote(text, 40)}")
        out.append(i)
    return out


def _board(text: str, where: str) -> int:
    if not _OCTAL.fullmatch(text):
        raise NotationError(where, "must be 1-27 octal digits, 3 per row (7 = '###', 4 = '#..'), "
                            f"got {quote(text, 40)}")
    text = text.ljust(27, "0")
    m = 0
    for k, ch in enumerate(text):
        d = int(ch)
        r, c = divmod(k, 3)
        for j in range(3):
            if d >> (2 - j) & 1:
                m |= 1 << (9 * r + 3 * c + j)
    return m


def _player(text: str, i: int, edition: str) -> dict[str, Any]:
    where = f"player {i}"
    bonus = text.endswith("+")
    parts = (text[:-1] if bonus else text).split(",")
    if len(parts) != 4:
        raise NotationError(where, f"must be SPACE,BUTTONS,PATCHES,BOARD (e.g. 12,7,h3,6060), got {quote(text, 40)}")
    space = _number(parts[0], f"{where} space", END)
    buttons = _number(parts[1], f"{where} buttons", MAX_BUTTONS)
    patches = _ids(parts[2], f"{where} patches")
    board = _board(parts[3], f"{where} board")
    if len(patches) > N_PATCHES:
        raise NotationError(f"{where} patches", f"at most {N_PATCHES} patch ids, got {len(patches)}")
    cells = board.bit_count()
    area = sum(AREA[p] for p in patches)
    if cells < area:
        raise NotationError(f"{where} board", f"covers {cells} cells, fewer than the {area} of its patches")
    if cells - area > MAX_LEATHER:
        raise NotationError(f"{where} board", f"covers {cells} cells, {cells - area} more than its patches; "
                            f"at most {MAX_LEATHER} can be leather patches")
    return {"board": board, "buttons": buttons, "position": space, "income": sum(INCOME[p] for p in patches),
            "patches": patches, "leather": cells - area, "bonus": bonus}


_PATHS = [
    (re.compile(r"players\[(\d)\]\.(\w+)(\[\d+\])?"),
     lambda m: f"player {m[1]} {'space' if m[2] == 'position' else m[2]}"),
    (re.compile(r"circle\[\d+\]"), lambda m: "circle"),
    (re.compile(r"leather_to_place"), lambda m: "turn"),
    (re.compile(r"current_player"), lambda m: "turn"),
    (re.compile(r"first_to_end"), lambda m: "first to end"),
]


def translate_state_error(message: str) -> str:
    """A StateError's field (or message) with its JSON field paths named as the notation's fields.

    >>> translate_state_error("players[1].buttons"), translate_state_error("circle[3]")
    ('player 1 buttons', 'circle')
    """
    for rx, name in _PATHS:
        message = rx.sub(name, message)
    return message


def notation_fields(text: Any) -> dict[str, Any]:
    """The state JSON (for ``GameState.from_json``) of a position written by :func:`to_notation`.

    ``NotationError`` names what is wrong with the text; ``GameState.from_notation``
    then checks the position itself, its ``StateError`` worded in the notation's terms
    (:func:`translate_state_error`).
    """
    if not isinstance(text, str):
        raise NotationError("notation", f"must be a string, got {quote(text)}")
    if len(text) > MAX_LENGTH:
        raise NotationError("notation", f"at most {MAX_LENGTH} characters, got {len(text)}")
    fields = text.split()
    if len(fields) != 6:
        raise NotationError("notation", f"must have 6 fields separated by blanks ({_FIELDS}), "
                            f"got {len(fields)}: {quote(text, 40)}")
    ed, p0, p1, circle, turn, first = fields
    edition = _EDITION.get(ed.lower()) or (ed.lower() if ed.lower() in EDITIONS else None)
    if edition is None:
        raise NotationError("edition", f"must be r (revised) or o (original), got {quote(ed)}")
    players = [_player(p0, 0, edition), _player(p1, 1, edition)]
    m = _TURN.fullmatch(turn)
    if not m:
        raise NotationError("turn", "must be 0 or 1, then L and a count if leather is to be placed (1L1), "
                            f"got {quote(turn)}")
    cur, pending = int(m[1]), int(m[2] or 0)
    if m[2] is not None and pending == 0:
        raise NotationError("turn", f"L needs a count 1-{MAX_LEATHER}, got {quote(turn)}")
    if first not in ("0", "1", "-"):
        raise NotationError("first to end", f"must be 0, 1 or -, got {quote(first)}")
    far = max(p["position"] for p in players)
    d = {
        "edition": edition,
        "players": players,
        "circle": _ids(circle, "circle"),
        "leather_spaces": [x for x in LEATHER_SPACES[edition] if x > far],
        "current_player": cur,
        "leather_to_place": pending,
        "first_to_end": None if first == "-" else int(first),
    }
    return d

