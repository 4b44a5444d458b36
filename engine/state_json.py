"""The checks of a state's JSON form (``GameState.from_json``, in ``engine.state``, puts them together).

Every error is a one-line ``StateError`` that starts with the field path and
quotes the client's value cut short (:func:`quote`), e.g.

>>> from quiltsolve.engine import GameState, new_game
>>> d = new_game(1).to_json()
>>> d["players"][0]["buttons"] = 10 ** 400
>>> GameState.from_json(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
quiltsolve.engine.errors.StateError: players[0].buttons: must be an integer 0-1000, got 1000000000...
>>> d["players"][0]["buttons"] = 3.0
>>> GameState.from_json(d)
Traceback (most recent call last):
...
quiltsolve.engine.errors.StateError: players[0].buttons: must be an integer 0-1000, got 3.0 (write integers without a fraction or exponent)

Bounds (also in docs/engine.md): buttons 0-1000 (no game reaches 400),
positions 0-53, income 0-38 (all the income printed on the patches),
patch ids 0-32, at most 33 ids in a list, leather counts 0-5, players 0-1;
a board is 9 strings of 9 ``#``/``.`` or (the older form) an integer
0 … 2^81−1. ``bool`` is never an integer here, and a JSON number with a
fraction or exponent (``3.0``, ``3e0``) is never an integer either, even
when its value is whole.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import StateError
from .quote import QUOTE_LIMIT, quote  # noqa: F401  (quote: this module's API since 0.1)
from .tables import BOARD_MAX, INCOME, N_PATCHES
from .track import BOARD_CELLS, LEATHER_SPACES

__all__ = ["MAX_BUTTONS", "MAX_INCOME", "MAX_LEATHER", "PLAYER_FIELDS", "QUOTE_LIMIT", "TOP_FIELDS", "check_board",
           "check_fields", "check_ids", "check_int", "check_list", "check_player_or_null", "quote"]

TOP_FIELDS = ("edition", "players", "circle", "leather_spaces", "current_player", "leather_to_place", "first_to_end")
PLAYER_FIELDS = ("board", "buttons", "position", "income", "patches", "leather", "bonus")

MAX_BUTTONS = 1000
"""Most buttons a state may give a player: no game gets past 400 (5 + 53 + 9 paydays × 38 income)."""
MAX_INCOME = sum(INCOME)
MAX_LEATHER = max(len(v) for v in LEATHER_SPACES.values())

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
_ROW_BITS = str.maketrans("#.", "10")


def field_path(path: str, key: object) -> str:
    """``path.key``, the key written as it is when it is a plain name, else quoted.

    >>> field_path("players[0]", "buttons"), field_path("", "x y")
    ('players[0].buttons', '"x y"')
    """
    name = key if isinstance(key, str) and _NAME.fullmatch(key) else quote(key, 40)
    return f"{path}.{name}" if path else name


def check_fields(d: Any, path: str, names: tuple[str, ...], *, optional: tuple[str, ...] = (),
                 error: type[ValueError] = StateError) -> None:
    """``d`` is an object with exactly the fields ``names`` (and any of ``optional``).

    Raises ``error`` (a state's :class:`StateError` unless the caller's, e.g. a record's) naming the
    first unknown or missing field.
    """
    if not isinstance(d, dict):
        raise error(path or "state", f"must be an object, got {quote(d, 40)}")
    for k in d:
        if k not in names and k not in optional:
            raise error(field_path(path, k), "unknown field")
    for k in names:
        if k not in d:
            raise error(field_path(path, k), "missing")


def _got(v: object) -> str:
    if type(v) is float and v.is_integer():
        return f"{quote(v)} (write integers without a fraction or exponent)"
    return quote(v)


def check_int(v: Any, path: str, lo: int, hi: int, what: str = "an integer") -> int:
    """``v`` is an int (never a bool or a float) in ``lo..hi``; returns it."""
    if type(v) is not int or not lo <= v <= hi:
        raise StateError(path, f"must be {what} {lo}-{hi}, got {_got(v)}")
    return v


def check_player_or_null(v: Any, path: str) -> int | None:
    """``v`` is 0, 1 or None (null); returns it."""
    if v is None:
        return None
    if type(v) is not int or v not in (0, 1):
        raise StateError(path, f"must be 0, 1 or null, got {_got(v)}")
    return v


def check_list(v: Any, path: str, most: int, what: str) -> list[Any]:
    """``v`` is a list of at most ``most`` items; returns it."""
    if not isinstance(v, list):
        raise StateError(path, f"must be a list of {what}, got {quote(v)}")
    if len(v) > most:
        raise StateError(path, f"must hold at most {most} {what}, got {len(v)}")
    return v


def check_ids(v: Any, path: str) -> list[int]:
    """``v`` is a list of patch ids; returns it."""
    check_list(v, path, N_PATCHES, "patch ids")
    for i, x in enumerate(v):
        check_int(x, f"{path}[{i}]", 0, N_PATCHES - 1, "a patch id")
    ids: list[int] = v
    return ids


def check_board(v: Any, path: str) -> int:
    """A board: 9 row strings (row 0 first, ``#`` filled) or the older 81-bit integer."""
    if type(v) is int:
        if not 0 <= v <= BOARD_MAX:
            raise StateError(path, f"must be 9 row strings or an integer 0-2^81-1, got {quote(v)}")
        return v
    if not isinstance(v, list) or len(v) != 9:
        raise StateError(path, "must be a list of 9 row strings of '#' (filled) and '.' (empty), "
                         f"got {quote(v, 40)}")
    m = 0
    for r, row in enumerate(v):
        if type(row) is not str or len(row) != 9 or not set(row) <= {"#", "."}:
            raise StateError(f"{path}[{r}]", f"must be 9 characters '#' (filled) or '.' (empty), got {quote(row)}")
        m |= int(row.translate(_ROW_BITS)[::-1], 2) << (9 * r)
    return m


assert BOARD_CELLS == 81
