"""``suggest play``: a game of Patchwork at the terminal.

A person plays against one of the engine's players (``--engine greedy``,
``--engine search:0.5``, ... from the engine's player registry; ``--side``
says which player the person is), or follows a real game at a table by
entering both players' moves as they happen (``--follow``). At any point
``hint`` asks the engine (in this process, or the service with ``--server``)
for its best moves.

The session is plain ``input()`` and printing (rich draws, and colours only
real terminals), so it works in any terminal, in a pipe and under a
pseudo-terminal (the tests drive it with ``pexpect``). Commands are listed by
``help`` (:data:`HELP`). Buying is two steps: ``buy 2`` (the second patch in
front of the token, or ``buy #17`` by id) shows the placements the solver
ranks best, drawn and numbered, and a number picks one (or give the cells
``r,c;r,c;...``, or the whole move ``buy 17 0,0;0,1``).

``save FILE`` writes the game as an engine record (one JSON line,
``engine/record.py``, with a ``result`` once the game is over), which
``load FILE`` / ``--load FILE``, ``python -m quiltsolve.engine replay`` and
``suggest review`` read. A game started from a position rather than a new
deal cannot be a record: it is saved as the position's state JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from rich.console import Console
from rich.text import Text

from quiltsolve import engine
from quiltsolve.engine import ADVANCE, Advance, Buy, IllegalActionError, PlaceLeather, parse_action, result_of
from quiltsolve.engine.board import contacts
from quiltsolve.engine.track import END, INCOME_SPACES
from quiltsolve.server import positions, records
from quiltsolve.solver.geometry import cells_of
from quiltsolve.solver.patches import LEATHER_PATCH_ID, PATCHES

from . import errors
from .inputs import decode_text, parse_position, read_bytes, read_position, read_record
from .links import review_link
from .render import colour, letter, player_name, reason_text, search_line

HELP = """\
commands (a word's first letters are enough where it is clear: b, a, h, u, q):
  buy [1-3 | #ID]   buy a patch in front of the token (1 = the next one) or by its id,
                    then pick one of the drawn placements by number, or give its cells
  buy ID R,C;R,C    buy patch ID covering those cells (the engine's text form)
  advance           move your time token just past the opponent (+1 button per space)
  leather N | R,C   place a won leather patch: suggestion N, or the cell R,C
  hint [N]          the engine's N best moves (default 5); then 'take K' plays the K-th
  take K            play move K of the last hint
  undo              take back the last move (against the engine: back to your previous turn)
  save FILE         write the game as an engine record (one JSON line)
  load FILE [K]     continue the K-th record of FILE (default 1), or a saved position
  notation          print the position in the engine's notation
  show              draw the position again
  help              this list
  quit              leave the game (also Ctrl-D)"""

PLACEMENTS_SHOWN = 5        # placements drawn at a time after 'buy'
LEATHER_SHOWN = 5           # leather cells suggested
UPCOMING = 6                # upcoming patches the placement ranking looks ahead to
REVIEW_LINK_ITERATIONS = 200   # the review budget of the link printed at the end (the web app's "normal")
_CELLS = re.compile(r"^\s*\d\s*,\s*\d\s*(;\s*\d\s*,\s*\d\s*)*;?\s*$")


class GameInputError(ValueError):
    """A move or command that cannot be played here (said in one line; the session goes on)."""


# --------------------------------------------------------------- loading
def load_game(path: str, line: int = 1) -> tuple[Any, list[Any], bool, Any]:
    """A game to continue from a file: ``(start, actions, from_new_game, seed)``.

    The file holds engine records (the ``line``-th, counting non-empty
    lines from 1), or a position (state JSON or notation, as ``save`` writes
    for games that did not start from a new deal)."""
    if path == "-":
        raise errors.InvalidArgument("stdin is where the moves are typed: give the game in a file")
    try:
        data = read_record(path, line)
    except errors.InvalidArgument as e:
        if line != 1 or "not JSON" not in str(e):
            raise
        return parse_position(decode_text(read_bytes(path), path)), [], False, None   # notation
    if isinstance(data, dict) and "players" in data and "circle" in data and "actions" not in data:
        return parse_position(json.dumps(data)), [], False, None   # a state
    if not isinstance(data, dict):
        raise errors.InvalidArgument(f"{path}: a game record is a JSON object with circle and actions")
    try:        # the record codec every client and face reads records with (server/records.py)
        message = records.from_json(data)
        steps = records.plies(message, need_moves=False)
        start = records.start(message)
    except records.RecordError as e:
        raise errors.InvalidArgument(f"bad record in {path}: {e}", field=e.field) from None
    return start, [action for _, action in steps], True, records.seed_of(data)


def _parse_cells(text: str) -> int:
    mask = 0
    for part in text.replace(" ", "").strip(";").split(";"):
        r, c = (int(x) for x in part.split(","))
        if not (0 <= r < 9 and 0 <= c < 9):
            raise GameInputError(f"cell {r},{c} is off the board: rows and columns are 0-8")
        mask |= 1 << (r * 9 + c)
    return mask


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _cells_text(mask: int) -> str:
    return ";".join(f"{r},{c}" for r, c in cells_of(mask))


# --------------------------------------------------------------- session
class PlaySession:
    """One game at the terminal (see the module docstring).

    ``client`` answers hints and placement rankings (embedded or gRPC);
    ``engine`` is the opponent (an engine player) or None to follow a game
    (both sides entered); ``side`` is the person's player against the engine.
    ``start``/``actions`` is the game so far; ``from_new_game`` says whether
    ``start`` is a fresh deal (then ``save`` writes a record).
    """

    def __init__(self, client: Any, console: Console, *, start: Any, actions: Sequence[Any] = (),
                 engine: Any = None, engine_name: str = "", side: int = 0, from_new_game: bool = True,
                 seed: Any = None, time_limit: float | None = None, iterations: int | None = None,
                 read_line: Callable[[str], str] = input, verbose: bool = False) -> None:
        self.client = client
        self.console = console
        self.engine = engine
        self.engine_name = engine_name
        self.side = side
        self.time_limit = time_limit
        self.iterations = iterations
        self.read_line = read_line
        self.verbose = verbose      # hints also show the share of playouts each move won
        self.last_hint: list[Any] = []
        self.leather: list[int] = []
        self._set_game(start, list(actions), from_new_game, seed)

    # -- the game ----------------------------------------------------------
    def _set_game(self, start: Any, actions: list[Any], from_new_game: bool, seed: Any) -> None:
        self.start = start.clone()
        self.from_new_game = from_new_game
        self.seed = seed
        self.actions: list[Any] = []
        self.movers: list[int] = []
        self.state = start.clone()
        self.pieces: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
        for a in actions:
            self._apply(a)

    def _replay(self, actions: list[Any]) -> None:
        self._set_game(self.start, actions, self.from_new_game, self.seed)

    def _apply(self, action: Any) -> None:
        mover = self.state.current_player()
        try:
            self.state.apply_action(action)
        except IllegalActionError as e:
            raise GameInputError(str(e)) from None
        self.actions.append(action)
        self.movers.append(mover)
        if isinstance(action, Buy):
            self.pieces[mover].append((action.mask, action.patch_id))

    @property
    def following(self) -> bool:
        """Whether both sides are entered by hand (``--follow``)."""
        return self.engine is None

    def name(self, player: int) -> str:
        """How a player (index 0 or 1) is called on screen: player 1 or player 2, and who plays it."""
        if self.following:
            return player_name(player)
        return player_name(player) + (" (you)" if player == self.side else f" ({self.engine_name})")

    def record_names(self) -> list[str]:
        """The players of a saved record: "human" and the engine's spec."""
        if self.following:
            return ["human", "human"]
        return ["human" if i == self.side else self.engine_name for i in (0, 1)]

    # -- drawing -----------------------------------------------------------
    def print(self, *items: Any, **kw: Any) -> None:
        """Print to the session's console (text as it is: no markup)."""
        self.console.print(*items, markup=False, emoji=False, **kw)

    def _quilt(self, player: int, marks: dict[int, str] | None = None) -> list[Text]:
        """A player's quilt: a letter per bought patch (A = the first), ``#``
        leather patches and cells of unknown origin, ``.`` empty; ``marks``
        put characters on cells (numbered suggestions)."""
        board = self.state.players[player].board
        owner: dict[int, int] = {}
        for i, (mask, _) in enumerate(self.pieces[player]):
            m = mask
            while m:
                low = m & -m
                owner[low.bit_length() - 1] = i
                m ^= low
        lines = []
        for r in range(9):
            t = Text()
            for c in range(9):
                k = r * 9 + c
                if marks and k in marks:
                    t.append(marks[k], style="bold reverse")
                elif k in owner:
                    t.append(letter(owner[k]), style=f"bold black on {colour(owner[k])}")
                elif board >> k & 1:
                    t.append("#", style="grey50")
                else:
                    t.append(".", style="dim")
                if c < 8:
                    t.append(" ")
            lines.append(t)
        return lines

    def show(self) -> None:
        """Draw the whole position: both quilts with buttons, income and
        score, the time track, the patches in front of the token."""
        s = self.state
        cur = s.current_player()
        head = "game over" if s.is_terminal() else f"{self.name(cur)} to move"
        if s.leather_to_place and not s.is_terminal():
            head += f": place {s.leather_to_place} leather patch{'es' if s.leather_to_place > 1 else ''}"
        self.print(Text(f"── move {len(self.actions) + 1}: {head} ──", style="bold"))
        width = 24
        left, right = self._quilt(0), self._quilt(1)
        titles = [self.name(0), self.name(1)]
        self.print(Text(f"{titles[0]:<{width}}{titles[1]}"))
        for a, b in zip(left, right):
            row = Text()
            row.append_text(a)
            row.append(" " * (width - 17))
            row.append_text(b)
            self.print(row)
        info = []
        for i in (0, 1):
            p = s.players[i]
            bonus = ", 7x7 bonus" if p.bonus else ""
            info.append((f"space {p.position}, {_n(p.buttons, 'button')}",
                         f"income {p.income}, {p.empty} empty{bonus}", f"score now {p.score()}"))
        for k in range(3):
            self.print(f"{info[0][k]:<{width}}{info[1][k]}")
        self._track()
        self._circle()

    def _track(self) -> None:
        s = self.state
        spaces = "".join("L" if i in s.leather else "$" if i in INCOME_SPACES else "." for i in range(END + 1))
        ruler = "".join(f"{i:<10}" for i in range(0, END + 1, 10))
        self.print(f"time track  {ruler}")
        self.print(f"            {spaces}   $ = button income, L = leather patch")
        for i in (0, 1):
            pos = s.players[i].position
            self.print(f"  {player_name(i)}  {' ' * pos}{i + 1}  (space {pos})")

    def _circle(self) -> None:
        s = self.state
        nxt = s.available_patches()
        if not nxt:
            self.print("circle: no patches left")
            return
        p = s.players[s.current_player()]
        cols: list[list[str]] = []
        for k, pid in enumerate(nxt, 1):
            pt = PATCHES[pid]
            col = [f"{k}) patch {pid}"] + [row.replace(".", " ") for row in pt.shape.rows()]
            col += [f"{_n(pt.buttons, 'button')}, {pt.time} time", f"+{pt.income} income"]
            if pt.buttons > p.buttons and not s.is_terminal():
                col.append("(too dear)")
            cols.append(col)
        width = max(len(x) for col in cols for x in col) + 3
        self.print("next patches after the token (buy 1-3):")
        for r in range(max(len(c) for c in cols)):
            self.print("  " + "".join(f"{(c[r] if r < len(c) else ''):<{width}}" for c in cols).rstrip())
        rest = s.circle[3:]
        if rest:
            shown = " ".join(map(str, rest[:12]))
            self.print(f"then: {shown}{' ...' if len(rest) > 12 else ''} ({len(rest)} more)")

    def describe(self, mover: int, action: Any, before: Any) -> str:
        """One line saying what a move did."""
        p = before.players[mover]
        if isinstance(action, Advance):
            to = min(before.players[1 - mover].position + 1, 53)
            return f"{self.name(mover)} advances to space {to} (+{_n(to - p.position, 'button')})"
        if isinstance(action, Buy):
            pt = PATCHES[action.patch_id]
            return (f"{self.name(mover)} buys patch {action.patch_id} ({_n(pt.buttons, 'button')}, {pt.time} time, "
                    f"+{pt.income} income) at {_cells_text(action.mask)}")
        return f"{self.name(mover)} places a leather patch at {action.cell[0]},{action.cell[1]}"

    # -- moves ---------------------------------------------------------------
    def play(self, action: Any) -> None:
        """Play a move for the player to move and say what it did."""
        before = self.state.clone()
        mover = before.current_player()
        self._apply(action)
        self.last_hint = []
        self.print(self.describe(mover, action, before))

    def engine_moves(self) -> bool:
        """Let the engine play while it is its turn; whether it moved."""
        moved = False
        while not self.following and not self.state.is_terminal() and self.state.current_player() != self.side:
            action = self.engine.choose(self.state.clone())
            self.play(action)
            moved = True
        return moved

    def _upcoming(self, pid: int) -> list[int]:
        circle = self.state.circle
        i = circle.index(pid)
        return (circle[i + 1:] + circle[:i])[:UPCOMING]

    def ranked_placements(self, pid: int) -> list[tuple[int, int]]:
        """Legal placements of ``pid`` (``LEATHER_PATCH_ID``: the won 1x1
        leather patch) for the player to move, best first: ``(mask, value)``,
        value = cells of the next patches that still fit (the solver's
        lookahead ranking; -1 when it gave none), ties broken by snugness as
        the engine's search does."""

        board = self.state.players[self.state.current_player()].board
        if pid == LEATHER_PATCH_ID:
            legal = {1 << k for k in range(81) if not board >> k & 1}
            upcoming = self.state.circle[:UPCOMING]
        else:
            legal = set(self.state.placements(pid))
            upcoming = self._upcoming(pid)
        ranked: list[tuple[int, int]] = []
        try:
            res = self.client.suggest_placement(board, pid, upcoming, time_limit=self.time_limit)
            ranked = [(r.placement.mask, r.value) for r in res.ranked if r.placement.mask in legal]
        except errors.ClientError as e:
            self.print(f"(no placement ranking: {e}; ordered by snugness)")
        seen = {m for m, _ in ranked}
        ranked += [(m, -1) for m in sorted(legal) if m not in seen]
        ranked.sort(key=lambda mv: (-mv[1], -contacts(board, mv[0])))
        return ranked

    def _draw_choices(self, choices: list[tuple[int, int]], first: int) -> None:
        board = self.state.players[self.state.current_player()].board
        boards = []
        for k, (mask, value) in enumerate(choices, first):
            mark = str(k % 10)
            lines = []
            for r in range(9):
                lines.append("".join(mark if mask >> (r * 9 + c) & 1 else "#" if board >> (r * 9 + c) & 1
                                     else "." for c in range(9)))
            fits = f"fits {value}" if value >= 0 else "unranked"
            boards.append([f"{k}: {fits}", *lines])
        for r in range(10):
            self.print("  " + "".join(f"{b[r]:<14}" for b in boards).rstrip())
        self.print("  (fits N: cells of the next patches that still fit after it)")

    def choose_placement(self, pid: int) -> Any:
        """Ask where to put ``pid``: a numbered drawn placement, cells, or the
        whole move; None to go back."""
        ranked = self.ranked_placements(pid)
        if not ranked:
            raise GameInputError(f"patch {pid} fits nowhere on the quilt")
        hinted = [m.action.mask for m in self.last_hint if isinstance(m.action, Buy) and m.action.patch_id == pid]
        if hinted:      # the placement the engine's hint chose comes first
            ranked.sort(key=lambda mv: mv[0] != hinted[0])
        first = 0
        self.print(f"placements of patch {pid}, best first:")
        self._draw_choices(ranked[:PLACEMENTS_SHOWN], 1)
        while True:
            last = min(first + PLACEMENTS_SHOWN, len(ranked))
            answer = self._ask(f"placement (1-{last}, 'more', cells r,c;r,c;... or empty to go back) > ")
            if answer is None:
                return None
            answer = answer.strip()
            if answer in ("", "back", "cancel"):
                self.print("(not bought)")
                return None
            if answer == "more":
                if last >= len(ranked):
                    self.print("(no more placements)")
                    continue
                first = last
                self._draw_choices(ranked[first:first + PLACEMENTS_SHOWN], first + 1)
                continue
            if answer.isdigit():
                k = int(answer)
                if 1 <= k <= last:
                    return Buy(pid, ranked[k - 1][0])
                self.print(f"choose 1-{last}")
                continue
            action: Any
            try:
                if _CELLS.match(answer):
                    action = Buy(pid, _parse_cells(answer))
                elif answer.startswith("buy "):
                    action = parse_action(answer)
                else:
                    self.print("give a number, 'more', the cells r,c;r,c;..., or an empty line to go back")
                    continue
            except (GameInputError, ValueError) as e:
                self.print(f"error: {e}")
                continue
            if not self.state.is_legal(action):
                self.print(f"error: {self._why_illegal(action)}")
                continue
            return action

    def _why_illegal(self, action: Any) -> str:
        try:
            self.state.clone().apply_action(action)
        except ValueError as e:
            return str(e)
        return "not a legal move here"

    def which_patch(self, word: str) -> int:
        """A patch chosen by its position 1-3 in front of the token, or by id (``#17``)."""
        nxt = self.state.available_patches()
        text = word.strip().lower().removeprefix("id").strip()
        by_id = text.startswith("#")
        text = text.lstrip("#").strip()
        if not text.isdigit():
            raise GameInputError(f"which patch? 1-{len(nxt)} (in front of the token) or #ID, not {word[:20]!r}")
        n = int(text)
        if not by_id and 1 <= n <= len(nxt):
            pid = nxt[n - 1]
        elif (by_id or n > 3) and n in nxt:
            pid = n
        elif by_id or n > 3:
            shown = ", ".join(f"{k}) {p}" for k, p in enumerate(nxt, 1))
            raise GameInputError(f"patch {n} is not in front of the token ({shown})")
        else:
            raise GameInputError(f"only {len(nxt)} patches are left in front of the token")
        p = self.state.players[self.state.current_player()]
        if PATCHES[pid].buttons > p.buttons:
            raise GameInputError(f"patch {pid} costs {_n(PATCHES[pid].buttons, 'button')}; "
                                 f"{self.name(self.state.current_player())} has {p.buttons}")
        if not self.state.placements(pid):
            raise GameInputError(f"patch {pid} fits nowhere on the quilt")
        return pid

    def leather_choices(self) -> list[int]:
        """Empty cells for a won leather patch, best first (ranked as placements of the 1x1 patch)."""
        return [m.bit_length() - 1 for m, _ in self.ranked_placements(LEATHER_PATCH_ID)[:LEATHER_SHOWN]]

    def show_leather(self) -> None:
        """Draw the suggested cells for the leather patch due, numbered."""
        cur = self.state.current_player()
        self.leather = self.leather_choices()
        marks = {k: str(i) for i, k in enumerate(self.leather, 1)}
        self.print(f"{self.name(cur)}: place the leather patch: a number below, or a cell r,c")
        for line in self._quilt(cur, marks):
            self.print(Text("  ").append_text(line))
        self.print("  " + "  ".join(f"{i}) {k // 9},{k % 9}" for i, k in enumerate(self.leather, 1)))

    def hint(self, n: int = 5) -> None:
        """The engine's best moves here (embedded search or the service)."""
        if self.state.is_terminal():
            self.print("the game is over: no move to suggest")
            return
        moves = self.client.suggest_move(self.state, time_limit=self.time_limit, top=n,
                                         iterations=self.iterations)
        self.last_hint = list(moves)
        self.print(f"hint for {self.name(self.state.current_player())} ({search_line(moves)}):")
        for k, m in enumerate(moves, 1):
            proven = f"  proven {m.proven_margin:+d}" if m.proven_margin is not None else ""
            self.print(f"  {k}. {m.action.to_str():<36} win chance {m.win_chance:.2f}{proven}  "
                       f"{reason_text(m.reason, self.verbose)}")
        if moves:
            self.print("  ('take K' plays move K)")

    # -- saving -------------------------------------------------------------
    def record(self) -> dict:
        """The game as an engine record (with its result once it is over)."""
        rec: dict[str, Any] = {"edition": self.start.edition, "seed": self.seed, "circle": self.start.circle,
                               "actions": [a.to_str() for a in self.actions]}
        if self.state.is_terminal():
            rec["result"] = result_of(self.state)
        rec["players"] = self.record_names()
        return rec

    def save(self, path: str) -> None:
        """Write the game to ``path``: a record, or the position's state JSON."""
        if self.from_new_game:
            text = json.dumps(self.record())
            what = f"the game ({len(self.actions)} moves) as an engine record"
        else:
            text = json.dumps(positions.to_state_json(self.state))
            what = "the position as state JSON (the game did not start from a new deal, so it is no record)"
        try:
            Path(path).write_text(text + "\n", encoding="utf-8")
        except OSError as e:
            raise GameInputError(f"cannot write {path}: {e.strerror or e}") from None
        self.print(f"saved {what} to {path}")

    def load(self, path: str, line: int = 1) -> None:
        """Continue the game saved in ``path``."""
        start, actions, fresh, seed = load_game(path, line)
        self._set_game(start, actions, fresh, seed)
        self.last_hint = []
        self.print(f"loaded {path}: {len(actions)} moves")

    def undo(self) -> None:
        """Take back the last move (against the engine, back to the person's previous turn)."""
        if not self.actions:
            raise GameInputError("nothing to undo")
        if self.following:
            n = 1
        else:
            mine = [i for i, m in enumerate(self.movers) if m == self.side]
            if not mine:
                raise GameInputError("none of the moves so far is yours: nothing to undo")
            n = len(self.actions) - mine[-1]
        taken = [a.to_str() for a in self.actions[-n:]]
        self._replay(self.actions[:-n])
        self.last_hint = []
        self.print(f"took back {n} move{'s' if n != 1 else ''}: {', '.join(taken)}")

    # -- the loop -----------------------------------------------------------
    def _ask(self, prompt: str) -> str | None:
        try:
            return self.read_line(prompt)
        except EOFError:
            self.print("")
            return None

    def prompt(self) -> str:
        """The prompt for the next command."""
        s = self.state
        if s.is_terminal():
            return "game over > "
        cur = s.current_player()
        if s.leather_to_place:
            return f"{player_name(cur)} leather (1-{len(self.leather) or 1} or r,c) > "
        return f"{player_name(cur)} > "

    def final(self) -> None:
        """Say who won."""
        s = self.state
        sc = s.scores()
        w = s.winner()
        self.print(Text(f"game over: {player_name(0)} scores {sc[0]}, {player_name(1)} scores {sc[1]}: {self.name(w)} wins"
                        + (" (the tie goes to who reached the end first)" if sc[0] == sc[1] else ""),
                        style="bold"))
        if self.from_new_game:      # only a game from a new deal is a record the web app can review
            link = review_link(self.record(), iterations=REVIEW_LINK_ITERATIONS)
            self.print(Text(f"review it in the web app: {link}"), soft_wrap=True)

    def run(self) -> int:
        """Play until ``quit`` or the end of input; returns the exit code (0)."""
        self.print("Patchwork: 'help' lists the commands.")
        self.engine_moves()
        self._show_turn()
        while True:
            line = self._ask(self.prompt())
            if line is None:
                return 0
            words = line.strip().split()
            if not words:
                continue
            try:
                if self.command(words, line.strip()) == "quit":
                    return 0
            except (GameInputError, errors.InvalidArgument) as e:
                self.print(f"error: {e}")
            except errors.ClientError as e:
                self.print(f"error: the service failed: {e}")

    def _show_turn(self) -> None:
        self.show()
        if self.state.is_terminal():
            self.final()
        elif self.state.leather_to_place and (self.following or self.state.current_player() == self.side):
            self.show_leather()

    def _after_move(self) -> None:
        self.engine_moves()
        self._show_turn()

    def command(self, words: list[str], line: str) -> str | None:
        """Run one command line; ``"quit"`` to leave."""
        cmd, args = words[0].lower(), words[1:]
        s = self.state
        if cmd in ("quit", "q", "exit"):
            return "quit"
        if cmd in ("help", "?"):
            self.print(HELP)
            return None
        if cmd == "show":
            self._show_turn()
            return None
        if cmd == "notation":
            self.print(positions.to_notation(s))
            return None
        if cmd in ("hint", "h"):
            self.hint(int(args[0]) if args and args[0].isdigit() and 0 < int(args[0]) <= 50 else 5)
            return None
        if cmd in ("undo", "u"):
            self.undo()
            self._show_turn()
            return None
        if cmd == "save":
            if not args:
                raise GameInputError("save FILE: which file?")
            self.save(line.split(None, 1)[1].strip())
            return None
        if cmd == "load":
            if not args:
                raise GameInputError("load FILE [K]: which file?")
            k = 1
            if len(args) > 1 and args[-1].isdigit():
                k, path = int(args[-1]), line.split(None, 1)[1].rsplit(None, 1)[0].strip()
            else:
                path = line.split(None, 1)[1].strip()
            self.load(path, k)
            self._after_move()
            return None
        if s.is_terminal():
            raise GameInputError("the game is over: undo, save, load, notation or quit")
        if not self.following and s.current_player() != self.side:
            raise GameInputError("it is the engine's turn")
        if cmd == "take":
            if not self.last_hint:
                raise GameInputError("no hint to take: ask for a 'hint' first")
            if not args or not args[0].isdigit() or not 1 <= int(args[0]) <= len(self.last_hint):
                raise GameInputError(f"take K: K is 1-{len(self.last_hint)}")
            self.play(self.last_hint[int(args[0]) - 1].action)
            self._after_move()
            return None
        if s.leather_to_place:
            leather = self.leather
            target = " ".join(args) if cmd in ("leather", "l") else line
            if target.strip().isdigit():
                k = int(target)
                if not 1 <= k <= len(leather):
                    raise GameInputError(f"choose 1-{len(leather)}, or give a cell r,c")
                action: Any = PlaceLeather((leather[k - 1] // 9, leather[k - 1] % 9))
            elif _CELLS.match(target) and target.count(",") == 1:
                mask = _parse_cells(target)
                k = mask.bit_length() - 1
                action = PlaceLeather((k // 9, k % 9))
            else:
                raise GameInputError("a leather patch is due first: a number of the drawing, or a cell r,c")
            self.play(action)
            self._after_move()
            return None
        if cmd in ("advance", "a"):
            self.play(ADVANCE)
            self._after_move()
            return None
        if cmd in ("buy", "b"):
            if len(args) >= 2 and _CELLS.match(" ".join(args[1:])):   # the engine's text form
                try:
                    action = parse_action("buy " + " ".join(args))
                except ValueError as e:
                    raise GameInputError(str(e)) from None
                if not s.is_legal(action):
                    raise GameInputError(self._why_illegal(action))
                self.play(action)
                self._after_move()
                return None
            if args:
                pid = self.which_patch(" ".join(args))
            else:
                for k, p in enumerate(s.available_patches(), 1):
                    self.print(f"  {k}) patch {p}")
                answer = self._ask("which patch (1-3, or #ID; empty to go back) > ")
                if not answer or not answer.strip():
                    return None
                pid = self.which_patch(answer)
            action = self.choose_placement(pid)
            if action is not None:
                self.play(action)
                self._after_move()
            return None
        raise GameInputError(f"unknown command {words[0][:20]!r}: 'help' lists them")


def start_game(*, seed: int, edition: str, load: str | None, line: int,
               position: str | None, circle: str | None = None, client: Any = None) -> tuple[Any, list[Any], bool, Any]:
    """The game a session starts from: a new deal of ``seed``, a saved game or
    record (``load``), a position (state JSON or notation: a file or inline), or
    a new game whose circle is given by ids (``circle``, "12,5,..."), which
    ``client`` sets up (the service's NewGame: its one check of a circle)."""
    if circle is not None:
        dealt = client.new_game(circle=circle, edition=edition)
        return positions.from_message(dealt.state), [], True, None
    if load is not None:
        return load_game(load, line)
    if position is not None:
        if position == "-":
            raise errors.InvalidArgument("--position -: stdin is where the moves are typed; "
                                         "give a file or the position inline")

        return read_position(position), [], False, None
    return engine.new_game(seed, edition), [], True, seed


__all__ = ["HELP", "GameInputError", "PlaySession", "load_game", "start_game"]
