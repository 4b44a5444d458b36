"""Game state and the rules of Patchwork (see ``docs/RULES.md``).

A ``GameState`` is mutable: ``apply_action`` changes it in place and
``clone`` gives an independent copy. Everything is plain ints, tuples and two
small ``PlayerState`` objects with ``__slots__``, so cloning and playing out
are cheap.

>>> s = new_game(7)
>>> s.current_player(), s.players[0].buttons, len(s.circle), s.circle[-1]
(0, 5, 33, 0)
>>> s.apply_action(ADVANCE)            # player 0 moves just past player 1
>>> s.players[0].position, s.players[0].buttons, s.current_player()
(1, 6, 1)
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Iterator

from quiltsolve.solver import PATCH_MASKS, PATCHES, board_to_rows, cells_of

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Advance, Buy, Mask, PlaceLeather
from .errors import IllegalActionError, StateError
from .notation import NotationError, notation_fields, to_notation, translate_state_error
from .quote import quote
from .state_json import CheckedState, check_state
from .tables import AREA, BOARD_MAX, COST, INCOME, MASK_SETS, N_PATCHES, TIME
from .track import (
    BONUS_MASKS, BONUS_POINTS, BOARD_CELLS, DEFAULT_EDITION, EDITIONS, EMPTY_PENALTY, END, FULL,
    INCOME_UP_TO, LEATHER_SPACES, START_BUTTONS, START_PATCH_ID,
)

__all__ = ["AREA", "BOARD_MAX", "COST", "GameState", "INCOME", "IllegalActionError", "MASK_SETS", "N_PATCHES",
           "PlayerState", "StateError", "TIME", "new_game"]


class PlayerState:
    """One player's pieces. Read it; only the engine changes it.

    ``board`` is the covered-cells mask (bit ``row*9+col``), ``patches`` the
    bought patch ids in buying order, ``leather`` how many leather patches
    are on the board, ``bonus`` whether this player holds the 7×7 tile.
    """

    __slots__ = ("board", "buttons", "position", "income", "patches", "leather", "bonus")

    def __init__(self, board: Mask = 0, buttons: int = START_BUTTONS, position: int = 0, income: int = 0,
                 patches: tuple[int, ...] = (), leather: int = 0, bonus: bool = False):
        self.board = board
        self.buttons = buttons
        self.position = position
        self.income = income
        self.patches = patches
        self.leather = leather
        self.bonus = bonus

    def copy(self) -> "PlayerState":
        c = PlayerState.__new__(PlayerState)
        c.board = self.board
        c.buttons = self.buttons
        c.position = self.position
        c.income = self.income
        c.patches = self.patches
        c.leather = self.leather
        c.bonus = self.bonus
        return c

    @property
    def empty(self) -> int:
        """Uncovered cells."""
        return BOARD_CELLS - self.board.bit_count()

    def score(self) -> int:
        return self.buttons + (BONUS_POINTS if self.bonus else 0) - EMPTY_PENALTY * (BOARD_CELLS - self.board.bit_count())

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data; the board as 9 rows of ``#`` (filled) and ``.``, row 0 first."""
        return {"board": board_to_rows(self.board), "buttons": self.buttons, "position": self.position,
                "income": self.income, "patches": list(self.patches), "leather": self.leather,
                "bonus": self.bonus}

    def _key(self) -> tuple[Any, ...]:
        return (self.board, self.buttons, self.position, self.income, self.patches, self.leather, self.bonus)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerState) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"PlayerState(position={self.position}, buttons={self.buttons}, income={self.income}, "
                f"empty={self.empty}, patches={list(self.patches)}, leather={self.leather}, bonus={self.bonus})")


class GameState:
    """A Patchwork position: both players, the patch circle, the track.

    ``circle`` lists the patches clockwise starting with the one directly
    after the neutral token; ``available_patches()`` are its first three.
    ``leather`` holds the track spaces whose leather patch is still there.
    """

    __slots__ = ("edition", "players", "_circle", "leather", "_cur", "_pending", "first_to_end",
                 "_bonus_open", "_over")
    edition: str
    players: tuple[PlayerState, PlayerState]
    _circle: tuple[int, ...]
    leather: tuple[int, ...]
    _cur: int
    _pending: int
    first_to_end: int | None
    _bonus_open: bool
    _over: bool

    # ------------------------------------------------------------------ set-up
    @classmethod
    def from_circle(cls, circle: Iterable[int], edition: str = DEFAULT_EDITION) -> "GameState":
        """The starting position with this circle (clockwise from the token, patch 0 last)."""
        if edition not in EDITIONS:
            raise ValueError(f"unknown edition {quote(edition)}; expected one of {', '.join(EDITIONS)}")
        circle = tuple(circle)
        if any(type(x) is not int for x in circle) or sorted(circle) != list(range(N_PATCHES)):
            raise ValueError(f"circle must hold each patch id 0-{N_PATCHES - 1} exactly once")
        if circle[-1] != START_PATCH_ID:
            raise ValueError(f"circle must end with patch {START_PATCH_ID}: the token starts just after it")
        s = cls.__new__(cls)
        s.edition = edition
        s.players = (PlayerState(), PlayerState())
        s._circle = circle
        s.leather = LEATHER_SPACES[edition]
        s._cur = 0
        s._pending = 0
        s.first_to_end = None
        s._bonus_open = True
        s._over = False
        return s

    def clone(self) -> "GameState":
        s = GameState.__new__(GameState)
        s.edition = self.edition
        s.players = (self.players[0].copy(), self.players[1].copy())
        s._circle = self._circle          # tuples: shared safely
        s.leather = self.leather
        s._cur = self._cur
        s._pending = self._pending
        s.first_to_end = self.first_to_end
        s._bonus_open = self._bonus_open
        s._over = self._over
        return s

    __copy__ = clone

    # --------------------------------------------------------------- queries
    @property
    def circle(self) -> list[int]:
        return list(self._circle)

    def available_patches(self) -> list[int]:
        """The (up to) three patch ids in front of the token, nearest first."""
        return list(self._circle[:3])

    def front_patches(self) -> tuple[int, ...]:
        """``available_patches()`` as a tuple, without building a list (for the players' hot loops)."""
        return self._circle[:3]

    def patches_after(self, patch_id: int, n: int) -> tuple[int, ...]:
        """The ``n`` patches that follow ``patch_id`` clockwise (what comes up once it is bought).

        >>> s = new_game(7)
        >>> s.patches_after(s.circle[0], 2) == tuple(s.circle[1:3])
        True
        """
        circle = self._circle
        i = circle.index(patch_id)
        return (circle[i + 1:] + circle[:i])[:n]

    @property
    def bonus_open(self) -> bool:
        """Whether the 7×7 bonus tile is still to be won."""
        return self._bonus_open

    def position_key(self) -> tuple[Any, ...]:
        """A hashable key of the position (both players, circle, turn, pending leather, track).

        Only ints, bools and tuples of them, so ``hash(position_key())`` is the
        same in every process (players seed their random streams from it).
        """
        a, b = self.players
        return (a.board, a.buttons, a.position, a.income, a.bonus, b.board, b.buttons, b.position, b.income,
                b.bonus, self._circle, self._cur, self._pending, self.leather,
                -1 if self.first_to_end is None else self.first_to_end)

    def current_player(self) -> int:
        """Who acts next (the leather placer while one is pending)."""
        return self._cur

    @property
    def pending_leather(self) -> int | None:
        """The player who must place a leather patch now, or None."""
        return self._cur if self._pending else None

    @property
    def leather_to_place(self) -> int:
        """How many leather patches the current player still has to place."""
        return self._pending

    @property
    def bonus_owner(self) -> int | None:
        for i in (0, 1):
            if self.players[i].bonus:
                return i
        return None

    def is_terminal(self) -> bool:
        return self._over

    def scores(self) -> tuple[int, int]:
        return self.players[0].score(), self.players[1].score()

    def winner(self) -> int | None:
        """The winner of a finished game (ties go to whoever reached 53 first), else None."""
        if not self._over:
            return None
        s0, s1 = self.players[0].score(), self.players[1].score()
        if s0 != s1:
            return 0 if s0 > s1 else 1
        return self.first_to_end

    def buyable_patches(self) -> list[int]:
        """Available patch ids the current player can afford and place somewhere."""
        if self._over or self._pending:
            return []
        p = self.players[self._cur]
        board, buttons = p.board, p.buttons
        out = []
        for pid in self._circle[:3]:
            if COST[pid] <= buttons:
                for m in PATCH_MASKS[pid]:
                    if not m & board:
                        out.append(pid)
                        break
        return out

    def placements(self, patch_id: int) -> list[Mask]:
        """Masks where the current player could put ``patch_id`` on their board now."""
        board = self.players[self._cur].board
        return [m for m in PATCH_MASKS[patch_id] if not m & board]

    def iter_legal_actions(self) -> Iterator[Action]:
        """Legal actions in a fixed order: leather cells row-major, or advance
        then each available patch (nearest first) in ``PATCH_MASKS`` order."""
        if self._over:
            return
        p = self.players[self._cur]
        board = p.board
        if self._pending:
            for i in range(BOARD_CELLS):
                if not board >> i & 1:
                    yield LEATHER_ACTIONS[i]
            return
        yield ADVANCE
        buttons = p.buttons
        for pid in self._circle[:3]:
            if COST[pid] <= buttons:
                for m in PATCH_MASKS[pid]:
                    if not m & board:
                        yield Buy(pid, m)

    def legal_actions(self) -> list[Action]:
        return list(self.iter_legal_actions())

    def num_legal_actions(self) -> int:
        """``len(legal_actions())`` without building the actions."""
        if self._over:
            return 0
        p = self.players[self._cur]
        board = p.board
        if self._pending:
            return BOARD_CELLS - board.bit_count()
        n = 1
        for pid in self._circle[:3]:
            if COST[pid] <= p.buttons:
                for m in PATCH_MASKS[pid]:
                    if not m & board:
                        n += 1
        return n

    def is_legal(self, action: Action) -> bool:
        try:
            self.clone().apply_action(action)
        except IllegalActionError:
            return False
        return True

    # ---------------------------------------------------------------- moves
    def apply_action(self, action: Action) -> None:
        """Play ``action`` for the current player; IllegalActionError if the rules forbid it."""
        if self._over:
            raise IllegalActionError("game is over: both time tokens are on space 53")
        cur = self._cur
        p = self.players[cur]
        t = type(action)
        if self._pending:
            if type(action) is not PlaceLeather:
                raise IllegalActionError(
                    f"player {cur} must first place the leather patch they took ('leather r,c')")
            self._place_leather(cur, p, action)
            return
        if type(action) is Buy:
            pid = action.patch_id
            circle = self._circle
            if type(pid) is not int or pid not in circle[:3]:
                raise IllegalActionError(
                    f"patch {pid} is not one of the patches in front of the token "
                    f"({', '.join(map(str, circle[:3])) or 'none left'})")
            i = circle.index(pid)
            cost = COST[pid]
            if cost > p.buttons:
                raise IllegalActionError(
                    f"patch {pid} costs {cost} buttons but player {cur} has {p.buttons}")
            m = action.mask
            if type(m) is not int or m not in MASK_SETS[pid]:
                raise IllegalActionError(f"the cells are not a placement of patch {pid} "
                                         f"({PATCHES[pid].shape.to_str()}) on the board")
            if m & p.board:
                raise IllegalActionError(
                    f"patch {pid} would overlap covered cells " + ";".join(f"{r},{c}" for r, c in cells_of(m & p.board)))
            p.buttons -= cost
            p.board |= m
            p.income += INCOME[pid]
            p.patches += (pid,)
            # The token moves onto the bought patch's place; the circle goes on from there.
            self._circle = circle[i + 1:] + circle[:i]
            if self._bonus_open:
                self._check_bonus(p)
            self._move(cur, p, p.position + TIME[pid])
        elif t is Advance:
            target = self.players[1 - cur].position + 1
            if target > END:
                target = END
            p.buttons += target - p.position      # only the spaces actually moved pay
            self._move(cur, p, target)
        elif t is PlaceLeather:
            raise IllegalActionError(f"player {cur} has no leather patch to place")
        else:
            raise IllegalActionError(f"{quote(action)} is not an action")

    def _place_leather(self, cur: int, p: PlayerState, action: PlaceLeather) -> None:
        cell = action.cell
        if (type(cell) is not tuple or len(cell) != 2 or type(cell[0]) is not int or type(cell[1]) is not int
                or not (0 <= cell[0] < 9 and 0 <= cell[1] < 9)):
            raise IllegalActionError(f"leather cell {quote(cell)} is off the board; row and col are 0-8")
        bit = 1 << (cell[0] * 9 + cell[1])
        if p.board & bit:
            raise IllegalActionError(f"leather patch cannot go on covered cell {cell[0]},{cell[1]}")
        p.board |= bit
        p.leather += 1
        self._pending -= 1
        if p.board == FULL:           # a second patch taken with it is lost
            self._pending = 0
        if self._bonus_open:
            self._check_bonus(p)
        if not self._pending:
            self._end_turn(cur)

    def _check_bonus(self, p: PlayerState) -> None:
        b = p.board
        if b.bit_count() >= 49:
            for m in BONUS_MASKS:
                if b & m == m:
                    p.bonus = True
                    self._bonus_open = False
                    return

    def _move(self, cur: int, p: PlayerState, target: int) -> None:
        a = p.position
        if target > END:
            target = END
        p.position = target
        n = INCOME_UP_TO[target] - INCOME_UP_TO[a]
        if n:
            p.buttons += n * p.income
        lea = self.leather
        if lea and lea[0] <= target:
            # Every leather patch still on the track lies beyond both tokens,
            # so all those up to ``target`` are crossed by this move.
            k = 1
            while k < len(lea) and lea[k] <= target:
                k += 1
            self.leather = lea[k:]
            empty = BOARD_CELLS - p.board.bit_count()
            self._pending = k if k < empty else empty   # the ones that find no room are lost
        if target == END and self.first_to_end is None:
            self.first_to_end = cur
        if not self._pending:
            self._end_turn(cur)

    def _end_turn(self, mover: int) -> None:
        mp = self.players[mover].position
        op = self.players[1 - mover].position
        if mp > op:
            self._cur = 1 - mover
        elif mp == END:               # both on 53
            self._over = True
        # else: still behind, or on top of a shared space: the mover goes again

    # ------------------------------------------------------- compiled core
    def core_tuple(self) -> tuple[Any, ...]:
        """The state as the compiled core's plain tuple (``engine/_core/state.h`` documents it).

        ``(edition_index, current_player, leather_to_place, first_to_end or -1, bonus_open, over,
        circle, leather_spaces, player0, player1)``; a player is
        ``(board_lo64, board_hi64, buttons, position, income, leather, bonus, patches)``.

        >>> s = new_game(7)
        >>> GameState.from_core_tuple(s.core_tuple()) == s
        True
        """
        pl = tuple((p.board & 0xFFFF_FFFF_FFFF_FFFF, p.board >> 64, p.buttons, p.position, p.income, p.leather,
                    int(p.bonus), p.patches) for p in self.players)
        return (EDITIONS.index(self.edition), self._cur, self._pending,
                -1 if self.first_to_end is None else self.first_to_end, int(self._bonus_open), int(self._over),
                self._circle, self.leather, pl[0], pl[1])

    @classmethod
    def from_core_tuple(cls, t: tuple[Any, ...]) -> "GameState":
        """The inverse of :meth:`core_tuple` (no checks: the tuple comes from the core or ``core_tuple``)."""
        s = cls.__new__(cls)
        s.edition = EDITIONS[t[0]]
        players = []
        for lo, hi, buttons, position, income, leather, bonus, patches in (t[8], t[9]):
            players.append(PlayerState(lo | hi << 64, buttons, position, income, tuple(patches), leather, bool(bonus)))
        s.players = (players[0], players[1])
        s._cur = t[1]
        s._pending = t[2]
        s.first_to_end = None if t[3] < 0 else t[3]
        s._bonus_open = bool(t[4])
        s._over = bool(t[5])
        s._circle = tuple(t[6])
        s.leather = tuple(t[7])
        return s

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (schema in docs/engine.md)."""
        return {
            "edition": self.edition,
            "players": [self.players[0].to_json(), self.players[1].to_json()],
            "circle": list(self._circle),
            "leather_spaces": list(self.leather),
            "current_player": self._cur,
            "leather_to_place": self._pending,
            "first_to_end": self.first_to_end,
        }

    @classmethod
    def from_json(cls, d: Any) -> "GameState":
        """Rebuild a state from ``to_json`` data, checking every field (StateError).

        Boards may also be given in the older form, an integer mask 0 … 2^81−1.
        """
        return _state_from_checked(check_state(d))

    # ------------------------------------------------------------- notation
    def to_notation(self) -> str:
        """The position as one line of text (grammar in ``engine.notation`` and docs/engine.md)."""
        return to_notation(self)

    @classmethod
    def from_notation(cls, text: Any) -> "GameState":
        """Parse ``to_notation`` text; ``NotationError`` (a ValueError) names the field that is wrong."""
        d = notation_fields(text)
        try:
            return _state_from_checked(check_state(d))
        except StateError as e:
            raise NotationError(translate_state_error(e.field), translate_state_error(e.message)) from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and (
            self.edition, self.players[0]._key(), self.players[1]._key(), self._circle, self.leather, self._cur,
            self._pending, self.first_to_end, self._over) == (
            other.edition, other.players[0]._key(), other.players[1]._key(), other._circle, other.leather,
            other._cur, other._pending, other.first_to_end, other._over)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        p0, p1 = self.players
        return (f"GameState(edition={self.edition!r}, current={self._cur}, pending_leather={self._pending}, "
                f"positions=({p0.position}, {p1.position}), buttons=({p0.buttons}, {p1.buttons}), "
                f"circle={list(self._circle[:3])}+{max(0, len(self._circle) - 3)})")


def _state_from_checked(c: CheckedState) -> GameState:
    """The state of :func:`engine.state_json.check_state`'s values (already checked)."""
    s = GameState.__new__(GameState)
    s.edition = c.edition
    s.players = (PlayerState(*c.players[0]), PlayerState(*c.players[1]))
    s._circle = c.circle
    s.leather = c.leather_spaces
    s._cur = c.current_player
    s._pending = c.leather_to_place
    s.first_to_end = c.first_to_end
    s._bonus_open = c.bonus_open
    s._over = c.over
    return s


def new_game(seed: int, edition: str = DEFAULT_EDITION) -> GameState:
    """A new game whose circle is shuffled by ``random.Random(seed)``.

    Patches 1-32 are shuffled and patch 0 goes last, so the token stands
    directly after patch 0.

    >>> new_game(101).circle[:5]
    [21, 1, 25, 19, 29]
    """
    rest = list(range(N_PATCHES))
    rest.remove(START_PATCH_ID)
    random.Random(seed).shuffle(rest)
    return GameState.from_circle(rest + [START_PATCH_ID], edition)
