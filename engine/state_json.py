"""Checked loading of a state's JSON form (``GameState.from_json``).

Every error is a one-line ``StateError`` that starts with the field path and
quotes the client's value cut short (:func:`quote`), e.g.

>>> from engine import GameState, new_game
>>> d = new_game(1).to_json()
>>> d["players"][0]["buttons"] = 10 ** 400
>>> GameState.from_json(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.state.StateError: players[0].buttons: must be an integer 0-1000, got 1000000000...
>>> d["players"][0]["buttons"] = 3.0
>>> GameState.from_json(d)
Traceback (most recent call last):
...
engine.state.StateError: players[0].buttons: must be an integer 0-1000, got 3.0 (write integers without a fraction or exponent)

Bounds (also in docs/engine.md): buttons 0-1000 (no game reaches 400),
positions 0-53, income 0-38 (all the income printed on the patches),
patch ids 0-32, at most 33 ids in a list, leather counts 0-5, players 0-1;
a board is 9 strings of 9 ``#``/``.`` or (the older form) an integer
0 … 2^81−1. ``bool`` is never an integer here, and a JSON number with a
fraction or exponent (``3.0``, ``3e0``) is never an integer either, even
when its value is whole.
"""

from __future__ import annotations

import json
import math
import re

from solver import completed_square

from .state import AREA, BOARD_MAX, INCOME, N_PATCHES, GameState, PlayerState, StateError
from .track import BOARD_CELLS, BONUS_SIDE, EDITIONS, END, LEATHER_SPACES

_TOP = ("edition", "players", "circle", "leather_spaces", "current_player", "leather_to_place", "first_to_end")
_PLAYER = ("board", "buttons", "position", "income", "patches", "leather", "bonus")

MAX_BUTTONS = 1000
"""Most buttons a state may give a player: no game gets past 400 (5 + 53 + 9 paydays × 38 income)."""
MAX_INCOME = sum(INCOME)
MAX_LEATHER = max(len(v) for v in LEATHER_SPACES.values())
QUOTE_LIMIT = 80

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
_ROW_BITS = str.maketrans("#.", "10")


class _Raw(str):
    """Text that ``quote`` emits as it is (brackets, commas)."""


def _scalar(v, limit: int) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        try:
            return str(v)
        except ValueError:   # beyond Python's int-to-text digit limit
            return ("-" if v < 0 else "") + "9" * (limit + 1)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, str):
        text = json.dumps(v[:limit + 1], ensure_ascii=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:     # a lone surrogate such as "\ud800": write it escaped
            text = json.dumps(v[:limit + 1])
        return text
    return f"<{type(v).__name__}>"


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """A client's value as JSON-like text, cut to at most ``limit`` characters.

    Works on anything (nesting depth, huge integers, lone surrogates) without
    recursion, and never looks at more than it prints.

    >>> quote("x" * 500)[:10], len(quote("x" * 500))
    ('"xxxxxxxxx', 80)
    >>> quote([1, {"a": None}, 2.5, True])
    '[1, {"a": null}, 2.5, true]'
    >>> quote("\\ud800")
    '"\\\\ud800"'
    """
    out: list[str] = []
    size = 0
    stack: list = [value]
    while stack and size <= limit:
        v = stack.pop()
        if type(v) is _Raw:
            piece = str(v)
        elif isinstance(v, (list, tuple)):
            stack.append(_Raw("]"))
            for i in range(min(len(v), limit) - 1, -1, -1):
                stack.append(v[i])
                if i:
                    stack.append(_Raw(", "))
            piece = "["
        elif isinstance(v, dict):
            stack.append(_Raw("}"))
            items = []
            for k in v:
                items.append(k)
                if len(items) > limit:
                    break
            for i in range(len(items) - 1, -1, -1):
                stack.append(v[items[i]])
                stack.append(_Raw(": "))
                stack.append(items[i])
                if i:
                    stack.append(_Raw(", "))
            piece = "{"
        else:
            piece = _scalar(v, limit)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    if stack or len(text) > limit:
        text = text[:limit - 3] + "..."
    return text


def _field(path: str, key) -> str:
    """``path.key``, the key written as it is when it is a plain name, else quoted."""
    name = key if isinstance(key, str) and _NAME.fullmatch(key) else quote(key, 40)
    return f"{path}.{name}" if path else name


def _fields(d, path: str, names: tuple[str, ...]) -> None:
    if not isinstance(d, dict):
        raise StateError(f"{path or 'state'}: must be an object, got {quote(d)}")
    for k in d:
        if k not in names:
            raise StateError(f"{_field(path, k)}: unknown field")
    for k in names:
        if k not in d:
            raise StateError(f"{_field(path, k)}: missing")


def _got(v) -> str:
    if type(v) is float and v.is_integer():
        return f"{quote(v)} (write integers without a fraction or exponent)"
    return quote(v)


def _int(v, path: str, lo: int, hi: int, what: str = "an integer") -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise StateError(f"{path}: must be {what} {lo}-{hi}, got {_got(v)}")
    return v


def _player_or_null(v, path: str):
    if v is None:
        return None
    if type(v) is not int or v not in (0, 1):
        raise StateError(f"{path}: must be 0, 1 or null, got {_got(v)}")
    return v


def _list(v, path: str, most: int, what: str) -> list:
    if not isinstance(v, list):
        raise StateError(f"{path}: must be a list of {what}, got {quote(v)}")
    if len(v) > most:
        raise StateError(f"{path}: must hold at most {most} {what}, got {len(v)}")
    return v


def _ids(v, path: str) -> list[int]:
    _list(v, path, N_PATCHES, "patch ids")
    for i, x in enumerate(v):
        _int(x, f"{path}[{i}]", 0, N_PATCHES - 1, "a patch id")
    return v


def _board(v, path: str) -> int:
    """A board: 9 row strings (row 0 first, ``#`` filled) or the older 81-bit integer."""
    if type(v) is int:
        if not 0 <= v <= BOARD_MAX:
            raise StateError(f"{path}: must be 9 row strings or an integer 0-2^81-1, got {quote(v)}")
        return v
    if not isinstance(v, list) or len(v) != 9:
        raise StateError(f"{path}: must be a list of 9 row strings of '#' (filled) and '.' (empty), "
                         f"got {quote(v, 40)}")
    m = 0
    for r, row in enumerate(v):
        if type(row) is not str or len(row) != 9 or not set(row) <= {"#", "."}:
            raise StateError(f"{path}[{r}]: must be 9 characters '#' (filled) or '.' (empty), got {quote(row)}")
        m |= int(row.translate(_ROW_BITS)[::-1], 2) << (9 * r)
    return m


def state_from_json(d) -> GameState:
    _fields(d, "", _TOP)
    edition = d["edition"]
    if type(edition) is not str or edition not in EDITIONS:
        raise StateError(f"edition: must be one of {', '.join(map(repr, EDITIONS))}, got {quote(edition)}")
    players_raw = d["players"]
    if not isinstance(players_raw, list) or len(players_raw) != 2:
        raise StateError(f"players: must be a list of two player objects, got {quote(players_raw, 40)}")
    players = []
    owner: dict[int, str] = {}
    for i, pr in enumerate(players_raw):
        path = f"players[{i}]"
        _fields(pr, path, _PLAYER)
        board = _board(pr["board"], f"{path}.board")
        buttons = _int(pr["buttons"], f"{path}.buttons", 0, MAX_BUTTONS)
        position = _int(pr["position"], f"{path}.position", 0, END)
        income = _int(pr["income"], f"{path}.income", 0, MAX_INCOME)
        patches = _ids(pr["patches"], f"{path}.patches")
        leather = _int(pr["leather"], f"{path}.leather", 0, len(LEATHER_SPACES[edition]))
        if type(pr["bonus"]) is not bool:
            raise StateError(f"{path}.bonus: must be true or false, got {quote(pr['bonus'])}")
        for j, pid in enumerate(patches):
            if pid in owner:
                raise StateError(f"{path}.patches[{j}]: patch {pid} is also in {owner[pid]}")
            owner[pid] = f"{path}.patches"
        want_income = sum(INCOME[p] for p in patches)
        if income != want_income:
            raise StateError(f"{path}.income: must be {want_income}, the income printed on its patches")
        cells = sum(AREA[p] for p in patches) + leather
        if board.bit_count() != cells:
            raise StateError(f"{path}.board: covers {board.bit_count()} cells but its patches and "
                             f"leather patches cover {cells}")
        if pr["bonus"] and completed_square(board, BONUS_SIDE) is None:
            raise StateError(f"{path}.bonus: the board has no completed {BONUS_SIDE}x{BONUS_SIDE} square")
        players.append(PlayerState(board, buttons, position, income, tuple(patches), leather, pr["bonus"]))

    circle = _ids(d["circle"], "circle")
    seen: set[int] = set()
    for j, pid in enumerate(circle):
        if pid in owner:
            raise StateError(f"circle[{j}]: patch {pid} is already in {owner[pid]}")
        if pid in seen:
            raise StateError(f"circle[{j}]: patch {pid} is listed twice")
        seen.add(pid)
    missing = sorted(set(range(N_PATCHES)) - seen - set(owner))
    if missing:
        raise StateError(f"circle: patch {missing[0]} is neither in the circle nor on a board")

    # A leather patch is taken by the first token to cross its space, so the
    # ones left are exactly those beyond both tokens.
    far = max(p.position for p in players)
    want_leather = [s for s in LEATHER_SPACES[edition] if s > far]
    spaces = _list(d["leather_spaces"], "leather_spaces", MAX_LEATHER, "track spaces")
    for j, x in enumerate(spaces):
        _int(x, f"leather_spaces[{j}]", 0, END, "a track space")
    if spaces != want_leather:
        raise StateError(f"leather_spaces: must be {want_leather}, the {edition} leather spaces beyond both tokens")
    cur = _int(d["current_player"], "current_player", 0, 1, "a player")
    pending = _int(d["leather_to_place"], "leather_to_place", 0, len(LEATHER_SPACES[edition]))
    taken = len(LEATHER_SPACES[edition]) - len(want_leather)
    if players[0].leather + players[1].leather + pending > taken:
        raise StateError(f"leather_to_place: placed plus pending leather patches exceed the {taken} taken from the track")
    if pending:
        # Pending leather was just crossed by the current player and not yet
        # by the opponent, so it lies between the two tokens.
        lo, hi = players[1 - cur].position, players[cur].position
        between = sum(1 for x in LEATHER_SPACES[edition] if lo < x <= hi)
        if pending > between:
            raise StateError(f"leather_to_place: must be <= {between}, the leather spaces between "
                             f"player {1 - cur} on {lo} and player {cur} on {hi}")
    if pending and pending > players[cur].empty:
        raise StateError(f"leather_to_place: must be <= {players[cur].empty}, the empty cells of player {cur}")
    first = _player_or_null(d["first_to_end"], "first_to_end")
    at_end = [i for i in (0, 1) if players[i].position == END]
    if first is None and at_end:
        raise StateError(f"first_to_end: must be {at_end[0]}, who is on space {END}")
    if first is not None and first not in at_end:
        raise StateError(f"first_to_end: player {first} is not on space {END}")

    holders = [i for i in (0, 1) if players[i].bonus]
    if len(holders) == 2:
        raise StateError("players[1].bonus: the bonus tile is already held by player 0")
    if not holders:
        for i in (0, 1):
            if completed_square(players[i].board, BONUS_SIDE) is not None:
                raise StateError(f"players[{i}].bonus: must be true: the board has a completed "
                                 f"{BONUS_SIDE}x{BONUS_SIDE} square and nobody holds the tile")

    over = len(at_end) == 2 and not pending
    if not over and not pending:
        p, o = players[cur].position, players[1 - cur].position
        if p > o:
            raise StateError(f"current_player: must be {1 - cur}, the player further back on the track")
    s = GameState.__new__(GameState)
    s.edition = edition
    s.players = (players[0], players[1])
    s._circle = tuple(circle)
    s.leather = tuple(want_leather)
    s._cur = cur
    s._pending = pending
    s.first_to_end = first
    s._bonus_open = not holders
    s._over = over
    return s


assert BOARD_CELLS == 81
