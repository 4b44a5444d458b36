"""Drawing boards, tilings and patches: rich text for the terminal, and SVG.

Every placed patch gets its own letter *and* colour, so a drawing reads the
same without colour (piped output, screen readers, tests).

>>> print(plain(grid_text(2, 3, fixed=0b000001, pieces=[(0b000110, 0)])))
# A A
. . .
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, TextIO
from xml.sax.saxutils import escape

from rich.console import Console
from rich.text import Text

from quiltsolve.engine.actions import Buy, PlaceLeather
from quiltsolve.engine.record import replay_steps
from quiltsolve.engine.review import summarize

from .i18n import _, ngettext

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Distinct background colours; text is black on all of them.
COLOURS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
           "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
           "#808000", "#ffd8b1", "#000075", "#808080"]


if TYPE_CHECKING:
    from quiltsolve.solver.patches import Patch


def letter(i: int) -> str:
    """The letter of the ``i``-th placed patch (``A``, ``B``, ...)."""
    return LETTERS[i % len(LETTERS)]


def colour(i: int) -> str:
    """The background colour of the ``i``-th placed patch."""
    return COLOURS[i % len(COLOURS)]


def grid_text(height: int, width: int, *, fixed: int = 0, pieces: Sequence[tuple[int, int]] = (),
              window: tuple[int, int] | None = None, outside: int = 0) -> Text:
    """The grid as rich text: ``#`` fixed cells, ``.`` empty cells, a letter per
    piece (``pieces`` is ``[(mask, index)]``), blank for cells ``outside`` a
    puzzle region. Cells of the 7×7 ``window`` are bold/underlined."""
    owner: dict[int, int] = {}
    for mask, idx in pieces:
        m = mask
        while m:
            low = m & -m
            owner[low.bit_length() - 1] = idx
            m ^= low
    t = Text()
    for r in range(height):
        for c in range(width):
            i = r * width + c
            in_win = window is not None and window[0] <= r < window[0] + 7 and window[1] <= c < window[1] + 7
            extra = " underline" if in_win else ""
            if i in owner:
                t.append(letter(owner[i]), style=f"bold black on {colour(owner[i])}{extra}")
            elif outside >> i & 1:
                t.append(" ")
            elif fixed >> i & 1:
                t.append("#", style=f"grey50{extra}")
            else:
                t.append(".", style=f"dim{extra}")
            if c < width - 1:
                t.append(" ")
        if r < height - 1:
            t.append("\n")
    return t


def plain(text: Text) -> str:
    """The characters of a rich text, without styles."""
    return text.plain


def console(stream: TextIO | None = None) -> Console:
    """A console that never wraps the drawing and only colours real terminals."""
    return Console(file=stream, highlight=False, soft_wrap=True)


# -------------------------------------------------------------------- SVG
@dataclass(frozen=True)
class LegendEntry:
    """One placed patch in an SVG legend: what it is, its shape and, for a
    standard patch, its cost in buttons, its time and its button income."""

    label: str
    shape: str
    buttons: int | None = None
    time: int | None = None
    income: int | None = None

    def details(self) -> str:
        """``cost 7 buttons · time 6 · income 3`` (the cells of other shapes)."""
        if self.buttons is None:
            n = len(_shape_cells(self.shape))
            return f"{n} cell" if n == 1 else f"{n} cells"
        return f"cost {_buttons(self.buttons)} · time {self.time} · income {self.income}"


def _buttons(n: int) -> str:
    return f"{n} button" if n == 1 else f"{n} buttons"


_FONT = 'font-family="DejaVu Sans, Verdana, sans-serif"'
_MONO = 'font-family="DejaVu Sans Mono, monospace"'
_BACKGROUND = "#ffffff"
_OUTLINE = "#1a1a1a"


def _owners(pieces: Sequence[tuple[int, int]], cells: int) -> dict[int, int]:
    owner: dict[int, int] = {}
    for mask, idx in pieces:
        m = mask & ((1 << cells) - 1)
        while m:
            low = m & -m
            owner[low.bit_length() - 1] = idx
            m ^= low
    return owner


def _outline(cells: set[tuple[int, int]], x0: float, y0: float, cell: float) -> str:
    """An SVG path along the boundary of a set of cells: every cell side
    whose neighbour is not in the set."""
    seg = []
    for r, c in sorted(cells):
        x, y = x0 + c * cell, y0 + r * cell
        if (r - 1, c) not in cells:
            seg.append(f"M{x:g} {y:g}h{cell:g}")
        if (r + 1, c) not in cells:
            seg.append(f"M{x:g} {y + cell:g}h{cell:g}")
        if (r, c - 1) not in cells:
            seg.append(f"M{x:g} {y:g}v{cell:g}")
        if (r, c + 1) not in cells:
            seg.append(f"M{x + cell:g} {y:g}v{cell:g}")
    return "".join(seg)


def _shape_cells(text: str) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(text.split("/")) for c, ch in enumerate(row) if ch == "#"}


def _icon_cell(text: str, box: int = 50, largest: int = 10) -> int:
    """The cell size that fits a shape's drawing in ``box`` pixels."""
    rows = text.split("/")
    return max(2, min(largest, box // max(len(rows), max(len(r) for r in rows))))


def _icon(out: list[str], text: str, x: float, y: float, cell: float, fill: str) -> None:
    """A small drawing of a shape, top-left at (x, y)."""
    cells = _shape_cells(text)
    for r, c in sorted(cells):
        out.append(f'<rect x="{x + c * cell:g}" y="{y + r * cell:g}" width="{cell:g}" height="{cell:g}" '
                   f'fill="{fill}" stroke="#777777" stroke-width="0.5"/>')
    out.append(f'<path d="{_outline(cells, x, y, cell)}" fill="none" stroke="{_OUTLINE}" stroke-width="1.5" '
               f'stroke-linecap="square"/>')


def svg(height: int, width: int, *, fixed: int = 0, pieces: Sequence[tuple[int, int]] = (),
        window: tuple[int, int] | None = None, outside: int = 0, title: str = "", cell: int = 32,
        legend: Sequence[LegendEntry] = ()) -> str:
    """An SVG picture of the grid (same conventions as :func:`grid_text`) on an
    opaque background: each placed patch in its colour with its letter and
    its outline, the 7×7 ``window`` framed in red, a ``title`` above and,
    below, a ``legend`` (entry ``i`` explains the piece with index ``i``).

    >>> s = svg(1, 2, pieces=[(1, 0)], legend=[LegendEntry("patch 0", "##", 2, 1, 0)])
    >>> s.startswith("<svg") and ">A</text>" in s and "cost 2 buttons" in s
    True
    """
    owner = _owners(pieces, width * height)
    pad = 8
    top = pad + (28 if title else 0)
    board_w, board_h = width * cell, height * cell
    icon_box = 50
    icons = [_icon_cell(e.shape, icon_box) for e in legend]
    heights = [max(36, len(e.shape.split("/")) * ic + 8) for e, ic in zip(legend, icons)]
    legend_h = sum(heights) + (8 if legend else 0)
    text_x = 34 + icon_box + 10
    text_w = max([len(title) * 9.5] + [text_x + max(len(e.label + e.shape) * 8 + 16, len(e.details()) * 7)
                                       for e in legend])
    w = int(max(board_w, text_w) + 2 * pad)
    h = int(top + board_h + legend_h + pad)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="{_BACKGROUND}"/>']
    if title:
        out.append(f'<text x="{pad}" y="{pad + 17}" {_FONT} font-size="16" font-weight="bold" '
                   f'fill="#000000">{escape(title)}</text>')
    x0, y0 = pad, top
    for r in range(height):
        for c in range(width):
            i = r * width + c
            if outside >> i & 1:
                continue
            x, y = x0 + c * cell, y0 + r * cell
            if i in owner:
                fill = colour(owner[i])
            elif fixed >> i & 1:
                fill = "#555555"
            else:
                fill = "#ffffff"
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#bbbbbb"/>')
            if i in owner:
                out.append(f'<text x="{x + cell / 2:g}" y="{y + cell * 0.68:g}" text-anchor="middle" {_MONO} '
                           f'font-size="{cell // 2}" fill="#000000">{escape(letter(owner[i]))}</text>')
    # The outline of each placed patch, drawn over the cell grid.
    by_piece: dict[int, set[tuple[int, int]]] = {}
    for i, idx in owner.items():
        by_piece.setdefault(idx, set()).add(divmod(i, width))
    for idx, cells in sorted(by_piece.items()):
        out.append(f'<path d="{_outline(cells, x0, y0, cell)}" fill="none" stroke="{_OUTLINE}" '
                   f'stroke-width="3" stroke-linecap="square"/>')
    if window is not None:
        x, y = x0 + window[1] * cell, y0 + window[0] * cell
        out.append(f'<rect x="{x}" y="{y}" width="{7 * cell}" height="{7 * cell}" fill="none" '
                   f'stroke="#d00000" stroke-width="4" stroke-dasharray="10 5"/>')
    y = y0 + board_h + 12
    for i, (e, ic, eh) in enumerate(zip(legend, icons, heights)):
        out.append(f'<rect x="{pad}" y="{y}" width="24" height="24" fill="{colour(i)}" stroke="{_OUTLINE}"/>')
        out.append(f'<text x="{pad + 12}" y="{y + 17}" text-anchor="middle" {_MONO} font-size="15" '
                   f'font-weight="bold" fill="#000000">{escape(letter(i))}</text>')
        _icon(out, e.shape, pad + 34, y + 2, ic, colour(i))
        tx = pad + text_x
        out.append(f'<text x="{tx}" y="{y + 12}" {_FONT} font-size="13" fill="#000000">'
                   f'{escape(e.label)}  <tspan {_MONO}>{escape(e.shape)}</tspan></text>')
        out.append(f'<text x="{tx}" y="{y + 28}" {_FONT} font-size="12" fill="#333333">{escape(e.details())}</text>')
        y += eh
    out.append("</svg>")
    return "\n".join(out) + "\n"


def patch_sheet(patches: Sequence[Patch], *, columns: int = 6, cell: int = 16) -> str:
    """An SVG sheet of patches laid out as a grid, ``columns`` per row; each
    drawn to scale with its id, cost (buttons), time and income under it.

    >>> from quiltsolve.solver.patches import PATCHES
    >>> s = patch_sheet(PATCHES[:2])
    >>> "patch 1" in s and s.count("<path") == 2
    True
    """
    pad = 10
    box_w = max(6 * cell, 132)
    tallest = max((p.shape.height for p in patches), default=1)
    box_h = tallest * cell + 64
    ncols = max(1, min(columns, len(patches)))
    nrows = (len(patches) + ncols - 1) // ncols
    title_h = 32
    w = pad * 2 + ncols * box_w
    h = pad * 2 + title_h + nrows * box_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="{_BACKGROUND}"/>',
           f'<text x="{pad}" y="{pad + 18}" {_FONT} font-size="18" font-weight="bold" fill="#000000">'
           f'The {len(patches)} standard patches</text>']
    for n, p in enumerate(patches):
        bx = pad + (n % ncols) * box_w
        by = pad + title_h + (n // ncols) * box_h
        out.append(f'<rect x="{bx + 2}" y="{by + 2}" width="{box_w - 4}" height="{box_h - 4}" rx="6" '
                   f'fill="#f6f6f6" stroke="#cccccc"/>')
        sx = bx + (box_w - p.shape.width * cell) / 2
        sy = by + 8 + (tallest - p.shape.height) * cell / 2
        _icon(out, p.shape.to_str(), sx, sy, cell, colour(p.id))
        ty = by + 8 + tallest * cell + 16
        out.append(f'<text x="{bx + box_w / 2:g}" y="{ty:g}" text-anchor="middle" {_FONT} font-size="13" '
                   f'font-weight="bold" fill="#000000">patch {p.id}</text>')
        for k, line in enumerate((f"cost {_buttons(p.buttons)}", f"time {p.time} · income {p.income}"), 1):
            out.append(f'<text x="{bx + box_w / 2:g}" y="{ty + 15 * k:g}" text-anchor="middle" {_FONT} '
                       f'font-size="12" fill="#333333">{line}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def search_line(moves: Any) -> str:
    """How much the search did (or that the moves are proven), for the human output (``suggest move``,
    ``play``'s hint).

    >>> search_line(type("M", (), {"iterations": 1, "wall_time": 0.5})())
    'search: 1 iteration in 0.50 s'
    >>> search_line(type("M", (), {"iterations": 0, "wall_time": 0.05, "proven": True})())
    'proven: the endgame solver found the exact value of every move in 0.05 s'
    """
    n = getattr(moves, "iterations", None)
    wall = getattr(moves, "wall_time", None)
    took = _(" in {s:.2f} s").format(s=wall) if isinstance(wall, (int, float)) else ""
    if getattr(moves, "proven", False):
        return _("proven: the endgame solver found the exact value of every move{took}").format(took=took)
    if not getattr(moves, "searched", True):
        if n is None:
            return _("search: NOT SEARCHED (no iterations{took}): the moves are ranked by the greedy rule only; "
                     "give more --time-limit or --iterations").format(took=took)
        return _("search: NOT SEARCHED ({n} iterations{took}): the moves are ranked by the greedy rule only; "
                 "give more --time-limit or --iterations").format(n=n, took=took)
    if n is None:
        return _("search: searched{took} (the engine did not count the iterations)").format(took=took)
    return ngettext("search: {n} iteration{took}", "search: {n} iterations{took}", n).format(n=n, took=took)


_PLAYOUT_RATE = re.compile(r": won \d+% of (\d+) playouts")


def reason_text(reason: str, verbose: bool = False) -> str:
    """A move's reason for the human output (``suggest move``, ``play``'s hint): without the share of
    playouts the move won unless ``verbose``. That raw rate is a second, uncalibrated win chance beside the
    move's value (the calibrated one), and the two disagree; the move's one figure is its value.

    >>> r = "advance 2 spaces (+2 buttons): won 40% of 25 playouts, mean margin -3.2"
    >>> reason_text(r)
    'advance 2 spaces (+2 buttons): 25 playouts, mean margin -3.2'
    >>> reason_text(r, verbose=True) == r
    True
    """
    return reason if verbose else _PLAYOUT_RATE.sub(r": \1 playouts", reason)


def player_name(index: int) -> str:
    """How a player is called in human-readable text: ``player 1`` moves first, ``player 2`` second (the
    web app's numbering); JSON, the proto and the notation keep the indices 0 and 1.

    >>> player_name(0), player_name(1)
    ('player 1', 'player 2')
    """
    return _("player {n}").format(n=index + 1)


_PLAYER_COLOURS = ("#1f5fbf", "#c2410c")
_GLYPHS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
_LABEL_COLOURS = {"inaccuracy": "#b58900", "mistake": "#d9480f", "blunder": "#c00000"}


def _move_words(action: Any, other: Any = None) -> str:
    """A move in words; a buy says where when ``other`` buys the same patch elsewhere."""
    if isinstance(action, Buy):
        where = ""
        if isinstance(other, Buy) and other.patch_id == action.patch_id and other.mask != action.mask:
            where = " at " + " ".join(f"{r + 1},{c + 1}" for r, c in action.cells())
        return f"buy patch {action.patch_id}{where}"
    if isinstance(action, PlaceLeather):
        return f"leather on {action.cell[0] + 1},{action.cell[1] + 1}"
    return "advance"


def review_svg(record: dict[str, Any], reviews: Sequence[Any], *, title: str = "", key_positions: int = 4) -> str:
    """The review of a game as one SVG picture: both players' win chances move by move (the mover's points,
    labelled moves marked with their glyphs ?!, ? and ??), each player's accuracy and label counts, and the
    ``key_positions`` worst labelled moves: the mover's quilt before the move, the cells of the move played
    (red) and of the engine's best (green, dashed).

    ``reviews`` are ``engine.review.MoveReview`` objects of ``record``'s moves.

    >>> from quiltsolve.engine import new_game, make_record, ADVANCE
    >>> from quiltsolve.engine.review import review_game
    >>> s = new_game(3); start = s.clone(); s.apply_action(ADVANCE)
    >>> rec = make_record(start, ["advance"], s)
    >>> pic = review_svg(rec, list(review_game(rec, iterations=20)))
    >>> pic.startswith("<svg") and "accuracy" in pic
    True
    """
    reviews = sorted(reviews, key=lambda r: r.ply)
    n = len(record.get("actions", []))
    states = {ply: before for ply, before, _ in replay_steps(record)}
    summary = summarize(reviews)
    names = record.get("players") if isinstance(record.get("players"), list) else None
    W, pad = 760, 12
    PL, PR, PT, PH = 48, 16, 84, 200
    out: list[str] = []
    y_title = pad + 18
    out.append(f'<text x="{pad}" y="{y_title}" {_FONT} font-size="18" font-weight="bold" fill="#000000">'
               f'{escape(title or "Game review")}</text>')
    for i in (0, 1):
        s = summary[i]
        who = f"Player {i + 1}" + (f" ({names[i]})" if names else "")
        acc = "-" if s.accuracy is None else f"{s.accuracy:.1f}"
        out.append(f'<text x="{pad}" y="{y_title + 22 + 18 * i}" {_FONT} font-size="14" '
                   f'fill="{_PLAYER_COLOURS[i]}">{escape(who)}: accuracy {acc} · {s.inaccuracies} ?! · '
                   f'{s.mistakes} ? · {s.blunders} ?? · {s.moves} moves</text>')
    x0, x1, y0, y1 = PL, W - PR, PT, PT + PH

    def x(i: int) -> float:
        return x0 + ((i + 1) / n if n else 0) * (x1 - x0)

    def y(v: float) -> float:
        return y0 + (1 - v) * (y1 - y0)

    out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{PH}" fill="#fafafa" stroke="#999999"/>')
    out.append(f'<line x1="{x0}" y1="{y(0.5):g}" x2="{x1}" y2="{y(0.5):g}" stroke="#bbbbbb" stroke-dasharray="4 4"/>')
    for v in (0.0, 0.5, 1.0):
        out.append(f'<text x="{x0 - 6}" y="{y(v) + 4:g}" text-anchor="end" {_FONT} font-size="11" '
                   f'fill="#333333">{v:.0%}</text>')
    for i in range(10, n + 1, 10 if n <= 60 else 20):
        out.append(f'<text x="{x(i - 1):g}" y="{y1 + 14}" text-anchor="middle" {_FONT} font-size="11" '
                   f'fill="#333333">{i}</text>')
    first = [(r.ply, r.value_played if r.player == 0 else 1 - r.value_played, r) for r in reviews]
    for p in (0, 1):
        pts = [(x0, y(0.5))] + [(x(i), y(v if p == 0 else 1 - v)) for i, v, _ in first]
        out.append(f'<polyline points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in pts)}" fill="none" '
                   f'stroke="{_PLAYER_COLOURS[p]}" stroke-width="2" opacity="{1 if p == 0 else 0.45}"/>')
    for i, v, r in first:
        mine = v if r.player == 0 else 1 - v
        out.append(f'<circle cx="{x(i):.1f}" cy="{y(mine):.1f}" r="3" fill="{_PLAYER_COLOURS[r.player]}"/>')
        if r.label:
            out.append(f'<text x="{x(i):.1f}" y="{y(mine) - 6:.1f}" text-anchor="middle" {_FONT} font-size="11" '
                       f'font-weight="bold" fill="{_LABEL_COLOURS[r.label]}">{_GLYPHS[r.label]}</text>')
    out.append(f'<text x="{x0}" y="{y1 + 28}" {_FONT} font-size="11" fill="#333333">move → (each player\'s '
               f'win chance; points: the mover\'s)</text>')
    worst = sorted((r for r in reviews if r.label in ("mistake", "blunder")), key=lambda r: (-r.loss, r.ply))
    worst = sorted(worst[:key_positions], key=lambda r: r.ply)
    cell, gap = 16, 24
    top = y1 + 48
    for k, r in enumerate(worst):
        bx = pad + k * (9 * cell + gap + 30)
        before = states[r.ply]
        board = before.players[r.player].board
        played_mask = getattr(r.played, "mask", 0) or 0
        best_mask = getattr(r.best, "mask", 0) or 0
        out.append(f'<text x="{bx}" y="{top}" {_FONT} font-size="12" font-weight="bold" fill="#000000">'
                   f'Move {r.ply + 1}, player {r.player + 1} {_GLYPHS[r.label]}</text>')
        out.append(f'<text x="{bx}" y="{top + 15}" {_FONT} font-size="11" fill="#c00000">played '
                   f'{escape(_move_words(r.played, r.best))} (−{r.loss:.0%})</text>')
        out.append(f'<text x="{bx}" y="{top + 29}" {_FONT} font-size="11" fill="#1b7a1b">best '
                   f'{escape(_move_words(r.best, r.played))}</text>')
        gy = top + 38
        for c in range(81):
            rr, cc = divmod(c, 9)
            fill = "#555555" if board >> c & 1 else "#ffffff"
            out.append(f'<rect x="{bx + cc * cell}" y="{gy + rr * cell}" width="{cell}" height="{cell}" '
                       f'fill="{fill}" stroke="#cccccc"/>')
        marks = [(played_mask, "#c00000", "")]
        if best_mask != played_mask:
            marks.append((best_mask, "#1b7a1b", ' stroke-dasharray="4 2"'))
        for mask, stroke, dash in marks:
            if mask:
                cells = {divmod(c, 9) for c in range(81) if mask >> c & 1}
                out.append(f'<path d="{_outline(cells, bx, gy, cell)}" fill="none" stroke="{stroke}" '
                           f'stroke-width="3"{dash}/>')
    h = top + (38 + 9 * cell + pad if worst else 0) + pad
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}">',
            f'<rect x="0" y="0" width="{W}" height="{h}" fill="{_BACKGROUND}"/>']
    return "\n".join(head + out + ["</svg>"]) + "\n"
