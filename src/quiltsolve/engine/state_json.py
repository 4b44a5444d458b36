"""The checks of a state's JSON form: each field's (``check_int``, ``check_board`` ...) and the whole state's
(:func:`check_state`, whose checked values ``GameState.from_json`` in ``engine.state`` builds the state from).

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
from typing import Any, NamedTuple

from quiltsolve.solver import completed_square

from .errors import StateError
from .quote import QUOTE_LIMIT, quote  # noqa: F401  (quote: this module's API since 0.1)
from .tables import AREA, BOARD_MAX, INCOME, N_PATCHES
from .track import BOARD_CELLS, BONUS_SIDE, EDITIONS, END, LEATHER_SPACES

__all__ = ["MAX_BUTTONS", "MAX_INCOME", "MAX_LEATHER", "PLAYER_FIELDS", "QUOTE_LIMIT", "TOP_FIELDS", "CheckedPlayer",
           "CheckedState", "check_board", "check_fields", "check_ids", "check_int", "check_list",
           "check_player_or_null", "check_state", "quote"]

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


class CheckedPlayer(NamedTuple):
    """One player's fields of a checked state, in ``PlayerState``'s order."""

    board: int
    buttons: int
    position: int
    income: int
    patches: tuple[int, ...]
    leather: int
    bonus: bool


class CheckedState(NamedTuple):
    """A state's fields after :func:`check_state`, plus what follows from them: whether the bonus tile is
    still open and whether the game is over."""

    edition: str
    players: tuple[CheckedPlayer, CheckedPlayer]
    circle: tuple[int, ...]
    leather_spaces: tuple[int, ...]
    current_player: int
    leather_to_place: int
    first_to_end: int | None
    bonus_open: bool
    over: bool


def check_state(d: Any) -> CheckedState:
    """A state's JSON form (``GameState.to_json``), every field checked, alone and against the others and
    the rules; :meth:`engine.GameState.from_json` builds the state from the values.

    Raises :class:`StateError` naming the first field that is wrong.

    >>> from quiltsolve.engine import new_game
    >>> c = check_state(new_game(1).to_json())
    >>> c.edition, c.players[0].buttons, c.current_player, c.over
    ('revised', 5, 0, False)
    """
    check_fields(d, "", TOP_FIELDS)
    edition = d["edition"]
    if type(edition) is not str or edition not in EDITIONS:
        raise StateError("edition", f"must be one of {', '.join(map(repr, EDITIONS))}, got {quote(edition)}")
    players_raw = d["players"]
    if not isinstance(players_raw, list) or len(players_raw) != 2:
        raise StateError("players", f"must be a list of two player objects, got {quote(players_raw, 40)}")
    players = []
    owner: dict[int, str] = {}
    for i, pr in enumerate(players_raw):
        path = f"players[{i}]"
        check_fields(pr, path, PLAYER_FIELDS)
        board = check_board(pr["board"], f"{path}.board")
        buttons = check_int(pr["buttons"], f"{path}.buttons", 0, MAX_BUTTONS)
        position = check_int(pr["position"], f"{path}.position", 0, END)
        income = check_int(pr["income"], f"{path}.income", 0, MAX_INCOME)
        patches = check_ids(pr["patches"], f"{path}.patches")
        leather = check_int(pr["leather"], f"{path}.leather", 0, len(LEATHER_SPACES[edition]))
        if type(pr["bonus"]) is not bool:
            raise StateError(f"{path}.bonus", f"must be true or false, got {quote(pr['bonus'])}")
        for j, pid in enumerate(patches):
            if pid in owner:
                raise StateError(f"{path}.patches[{j}]", f"patch {pid} is also in {owner[pid]}")
            owner[pid] = f"{path}.patches"
        want_income = sum(INCOME[p] for p in patches)
        if income != want_income:
            raise StateError(f"{path}.income", f"must be {want_income}, the income printed on its patches")
        cells = sum(AREA[p] for p in patches) + leather
        if board.bit_count() != cells:
            raise StateError(f"{path}.board", f"covers {board.bit_count()} cells but its patches and "
                             f"leather patches cover {cells}")
        if pr["bonus"] and completed_square(board, BONUS_SIDE) is None:
            raise StateError(f"{path}.bonus", f"the board has no completed {BONUS_SIDE}x{BONUS_SIDE} square")
        players.append(CheckedPlayer(board, buttons, position, income, tuple(patches), leather, pr["bonus"]))

    circle = check_ids(d["circle"], "circle")
    seen: set[int] = set()
    for j, pid in enumerate(circle):
        if pid in owner:
            raise StateError(f"circle[{j}]", f"patch {pid} is already in {owner[pid]}")
        if pid in seen:
            raise StateError(f"circle[{j}]", f"patch {pid} is listed twice")
        seen.add(pid)
    missing = sorted(set(range(N_PATCHES)) - seen - set(owner))
    if missing:
        raise StateError("circle", f"patch {missing[0]} is neither in the circle nor on a board")

    # A leather patch is taken by the first token to cross its space, so the
    # ones left are exactly those beyond both tokens.
    far = max(p.position for p in players)
    want_leather = [s for s in LEATHER_SPACES[edition] if s > far]
    spaces = check_list(d["leather_spaces"], "leather_spaces", MAX_LEATHER, "track spaces")
    for j, x in enumerate(spaces):
        check_int(x, f"leather_spaces[{j}]", 0, END, "a track space")
    if spaces != want_leather:
        raise StateError("leather_spaces", f"must be {want_leather}, the {edition} leather spaces beyond both tokens")
    cur = check_int(d["current_player"], "current_player", 0, 1, "a player")
    pending = check_int(d["leather_to_place"], "leather_to_place", 0, len(LEATHER_SPACES[edition]))
    taken = len(LEATHER_SPACES[edition]) - len(want_leather)
    if players[0].leather + players[1].leather + pending > taken:
        raise StateError("leather_to_place", f"placed plus pending leather patches exceed the {taken} taken from the track")
    if pending:
        # Pending leather was just crossed by the current player and not yet
        # by the opponent, so it lies between the two tokens.
        lo, hi = players[1 - cur].position, players[cur].position
        between = sum(1 for x in LEATHER_SPACES[edition] if lo < x <= hi)
        if pending > between:
            raise StateError("leather_to_place", f"must be <= {between}, the leather spaces between "
                             f"player {1 - cur} on {lo} and player {cur} on {hi}")
    empty = BOARD_CELLS - players[cur].board.bit_count()
    if pending and pending > empty:
        raise StateError("leather_to_place", f"must be <= {empty}, the empty cells of player {cur}")
    first = check_player_or_null(d["first_to_end"], "first_to_end")
    at_end = [i for i in (0, 1) if players[i].position == END]
    if first is None and at_end:
        raise StateError("first_to_end", f"must be {at_end[0]}, who is on space {END}")
    if first is not None and first not in at_end:
        raise StateError("first_to_end", f"player {first} is not on space {END}")

    holders = [i for i in (0, 1) if players[i].bonus]
    if len(holders) == 2:
        raise StateError("players[1].bonus", "the bonus tile is already held by player 0")
    if not holders:
        for i in (0, 1):
            if completed_square(players[i].board, BONUS_SIDE) is not None:
                raise StateError(f"players[{i}].bonus", "must be true: the board has a completed "
                                 f"{BONUS_SIDE}x{BONUS_SIDE} square and nobody holds the tile")

    over = len(at_end) == 2 and not pending
    if not over and not pending:
        p, o = players[cur].position, players[1 - cur].position
        if p > o:
            raise StateError("current_player", f"must be {1 - cur}, the player further back on the track")
    return CheckedState(edition, (players[0], players[1]), tuple(circle), tuple(want_leather), cur, pending, first,
                        bonus_open=not holders, over=over)
