"""Checked loading of a state's JSON form (``GameState.from_json``).

Each error names the offending field path first, e.g.
``players[1].buttons: must be >= 0``.
"""

from __future__ import annotations

from solver import completed_square

from .state import AREA, BOARD_MAX, INCOME, N_PATCHES, GameState, PlayerState, StateError
from .track import BOARD_CELLS, BONUS_SIDE, EDITIONS, END, LEATHER_SPACES

_TOP = ("edition", "players", "circle", "leather_spaces", "current_player", "leather_to_place", "first_to_end")
_PLAYER = ("board", "buttons", "position", "income", "patches", "leather", "bonus")


def _fields(d, path: str, names: tuple[str, ...]) -> None:
    if not isinstance(d, dict):
        raise StateError(f"{path or 'state'}: must be an object, not {type(d).__name__}")
    for k in d:
        if k not in names:
            raise StateError(f"{path}{'.' if path else ''}{k}: unknown field")
    for k in names:
        if k not in d:
            raise StateError(f"{path}{'.' if path else ''}{k}: missing")


def _int(v, path: str, lo: int, hi: int | None = None) -> int:
    if type(v) is not int:
        raise StateError(f"{path}: must be an integer, not {type(v).__name__}")
    if v < lo:
        raise StateError(f"{path}: must be >= {lo}")
    if hi is not None and v > hi:
        raise StateError(f"{path}: must be <= {hi}")
    return v


def _player_or_null(v, path: str):
    if v is None:
        return None
    return _int(v, path, 0, 1)


def _ids(v, path: str) -> list[int]:
    if not isinstance(v, list):
        raise StateError(f"{path}: must be a list of patch ids")
    for i, x in enumerate(v):
        _int(x, f"{path}[{i}]", 0, N_PATCHES - 1)
    return v


def state_from_json(d) -> GameState:
    _fields(d, "", _TOP)
    edition = d["edition"]
    if edition not in EDITIONS:
        raise StateError(f"edition: must be one of {', '.join(map(repr, EDITIONS))}")
    players_raw = d["players"]
    if not isinstance(players_raw, list) or len(players_raw) != 2:
        raise StateError("players: must be a list of two player objects")
    players = []
    owner: dict[int, str] = {}
    for i, pr in enumerate(players_raw):
        path = f"players[{i}]"
        _fields(pr, path, _PLAYER)
        board = _int(pr["board"], f"{path}.board", 0, BOARD_MAX)
        buttons = _int(pr["buttons"], f"{path}.buttons", 0)
        position = _int(pr["position"], f"{path}.position", 0, END)
        income = _int(pr["income"], f"{path}.income", 0)
        patches = _ids(pr["patches"], f"{path}.patches")
        leather = _int(pr["leather"], f"{path}.leather", 0, len(LEATHER_SPACES[edition]))
        if type(pr["bonus"]) is not bool:
            raise StateError(f"{path}.bonus: must be true or false")
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
    if d["leather_spaces"] != want_leather:
        raise StateError(f"leather_spaces: must be {want_leather}, the {edition} leather spaces beyond both tokens")
    cur = _int(d["current_player"], "current_player", 0, 1)
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
