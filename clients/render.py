"""Drawing boards, tilings and patches: rich text for the terminal, and SVG.

Every placed patch gets its own letter *and* colour, so a drawing reads the
same without colour (piped output, screen readers, tests).

>>> print(plain(grid_text(2, 3, fixed=0b000001, pieces=[(0b000110, 0)])))
# A A
. . .
"""

from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape

from rich.console import Console
from rich.text import Text

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Distinct background colours; text is black on all of them.
COLOURS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
           "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
           "#808000", "#ffd8b1", "#000075", "#808080"]


def letter(i: int) -> str:
    return LETTERS[i % len(LETTERS)]


def colour(i: int) -> str:
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
    return text.plain


def console(stream=None) -> Console:
    """A console that never wraps the drawing and only colours real terminals."""
    return Console(file=stream, highlight=False, soft_wrap=True)


def svg(height: int, width: int, *, fixed: int = 0, pieces: Sequence[tuple[int, int]] = (),
        window: tuple[int, int] | None = None, outside: int = 0, title: str = "", cell: int = 32) -> str:
    """An SVG picture of the grid (same conventions as :func:`grid_text`).

    >>> s = svg(1, 2, pieces=[(1, 0)])
    >>> s.startswith("<svg") and ">A</text>" in s
    True
    """
    owner: dict[int, int] = {}
    for mask, idx in pieces:
        for i in range(width * height):
            if mask >> i & 1:
                owner[i] = idx
    top = 24 if title else 0
    w, h = width * cell + 2, height * cell + 2 + top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">']
    if title:
        out.append(f'<text x="2" y="17" font-family="sans-serif" font-size="14">{escape(title)}</text>')
    for r in range(height):
        for c in range(width):
            i = r * width + c
            x, y = 1 + c * cell, 1 + top + r * cell
            if outside >> i & 1:
                continue
            if i in owner:
                fill = colour(owner[i])
            elif fixed >> i & 1:
                fill = "#555555"
            else:
                fill = "#ffffff"
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#999999"/>')
            if i in owner:
                out.append(f'<text x="{x + cell / 2}" y="{y + cell * 0.68}" text-anchor="middle" '
                           f'font-family="monospace" font-size="{cell // 2}">{escape(letter(owner[i]))}</text>')
    if window is not None:
        x, y = 1 + window[1] * cell, 1 + top + window[0] * cell
        out.append(f'<rect x="{x}" y="{y}" width="{7 * cell}" height="{7 * cell}" fill="none" '
                   f'stroke="#d00000" stroke-width="3"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
