"""The engine's prose in the reader's language: move reasons, moves, and the review's lines.

The engine writes a move's reason in English (``engine/players/search.py`` :func:`move_reason`,
``engine/players/proven.py`` :func:`proof_reason`, the search's stand-in when nothing ran), and the reason
crosses the API as that text: the API and ``--json`` stay language-neutral. The command line words it
again for a person, as the web app does (``web/static/js/play-hint.js`` ``reasonWords``): each of the
engine's templates is recognised (:data:`TEMPLATES`: a pattern over the English text) and said again
through gettext with its figures; a reason of no known template is shown as the engine wrote it.

A review's line and summary come as data (``engine.review.MoveReview``, ``PlayerSummary``): they are worded
here from their fields (:func:`review_text`, :func:`summary_text`), the moves in words (:func:`move_text`).

In English every text is the engine's own, character for character, so a script that reads the English output
reads the same lines as before (the translations may say a figure's plural better than the engine does).

>>> reason_text("advance 2 spaces (+2 buttons): won 40% of 25 playouts, mean margin -3.2")
'advance 2 spaces (+2 buttons): 25 playouts, mean margin -3.2'
>>> reason_text("proven: wins by 1 point")
'proven: wins by 1 point'
>>> reason_text("something new the engine says")
'something new the engine says'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from quiltsolve.engine.actions import Buy, PlaceLeather
from quiltsolve.engine.review import GLYPHS

from .i18n import _, ngettext

# ---------------------------------------------------------------- moves


def move_text(action: Any) -> str:
    """A move in words: ``advance``, ``buy 0 4,2;4,3``, ``leather 4,4`` in English (the engine's text form,
    which ``suggest play`` also reads), in the reader's language otherwise.

    >>> from quiltsolve.engine import ADVANCE, parse_action
    >>> move_text(ADVANCE), move_text(parse_action("buy 0 4,2;4,3")), move_text(parse_action("leather 4,4"))
    ('advance', 'buy 0 4,2;4,3', 'leather 4,4')
    """
    if isinstance(action, Buy):
        cells = ";".join(f"{r},{c}" for r, c in action.cells())
        return _("buy {id} {cells}").format(id=action.patch_id, cells=cells)
    if isinstance(action, PlaceLeather):
        return _("leather {row},{col}").format(row=action.cell[0], col=action.cell[1])
    return _("advance")


# ---------------------------------------------------------------- reasons

# What a searched move does: the head of a reason (engine/players/search.py move_reason).
_HEADS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r"advance (\d+) spaces? \(\+(\d+) buttons\)"),
     lambda m: ngettext("advance {n} space (+{buttons} buttons)", "advance {n} spaces (+{buttons} buttons)",
                        int(m[1])).format(n=m[1], buttons=m[2])),
    (re.compile(r"buy (\d+) \((\d+) buttons, (\d+) time, (\d+) cells, \+(\d+) income × (\d+) paydays\)"),
     lambda m: ngettext("buy {id} ({n} buttons, {time} time, {cells} cells, +{income} income × {paydays} paydays)",
                        "buy {id} ({n} buttons, {time} time, {cells} cells, +{income} income × {paydays} paydays)",
                        int(m[2])).format(id=m[1], n=m[2], time=m[3], cells=m[4], income=m[5], paydays=m[6])),
    (re.compile(r"leather (\d+),(\d+)"),
     lambda m: _("leather {row},{col}").format(row=m[1], col=m[2])),
]
_HEAD = "|".join(f"(?:{p.pattern})" for p, _w in _HEADS)


def head_text(head: str) -> str | None:
    """The head of a searched move's reason in words; None when it is none of the engine's."""
    for pattern, words in _HEADS:
        m = pattern.fullmatch(head)
        if m:
            return words(m)
    return None


def _playouts(m: re.Match[str], verbose: bool) -> str:
    head = head_text(m["head"])
    assert head is not None
    n = int(m["n"])
    if verbose:
        return ngettext("{head}: won {pct}% of {n} playouts, mean margin {margin}",
                        "{head}: won {pct}% of {n} playouts, mean margin {margin}", n).format(
            head=head, pct=m["pct"], n=n, margin=m["margin"])
    # The share of playouts won is a second, uncalibrated win chance beside the move's value: only with -v.
    return ngettext("{head}: {n} playouts, mean margin {margin}", "{head}: {n} playouts, mean margin {margin}",
                    n).format(head=head, n=n, margin=m["margin"])


def _not_searched(m: re.Match[str], verbose: bool) -> str:
    head = head_text(m["head"])
    assert head is not None
    return _("{head}: not searched").format(head=head)


TEMPLATES: list[tuple[str, re.Pattern[str], Callable[[re.Match[str], bool], str]]] = [
    ("searched", re.compile(rf"(?P<head>{_HEAD}): won (?P<pct>\d+)% of (?P<n>\d+) playouts, "
                            r"mean margin (?P<margin>[+-]?\d+(?:\.\d+)?)"), _playouts),
    ("not searched", re.compile(rf"(?P<head>{_HEAD}): not searched"), _not_searched),
    # (each message written out in its ngettext call: that is what `make i18n` extracts)
    ("proven win", re.compile(r"proven: wins by (?P<n>\d+) points?"),
     lambda m, v: ngettext("proven: wins by {n} point", "proven: wins by {n} points", int(m["n"])).format(n=m["n"])),
    ("proven loss", re.compile(r"proven: loses by (?P<n>\d+) points?"),
     lambda m, v: ngettext("proven: loses by {n} point", "proven: loses by {n} points", int(m["n"])).format(
         n=m["n"])),
    ("proven tie", re.compile(r"proven: a tie on points; the tie rule \(who reaches (?P<end>\d+) first\) decides"),
     lambda m, v: _("proven: a tie on points; the tie rule (who reaches {end} first) decides").format(end=m["end"])),
    ("proven tie won", re.compile(r"proven: a tie on points, won on the tie rule \(reached (?P<end>\d+) first\)"),
     lambda m, v: _("proven: a tie on points, won on the tie rule (reached {end} first)").format(end=m["end"])),
    ("proven tie lost",
     re.compile(r"proven: a tie on points, lost on the tie rule \(the opponent reached (?P<end>\d+) first\)"),
     lambda m, v: _("proven: a tie on points, lost on the tie rule (the opponent reached {end} first)").format(
         end=m["end"])),
    ("stopped", re.compile(r"not searched \(stopped\): greedy choice"),
     lambda m, v: _("not searched (stopped): greedy choice")),
]
"""Each form of reason the engine writes: (its name, a pattern over the whole English text, its words)."""

_PLAYOUT_RATE = re.compile(r": won \d+% of (\d+) playouts")


def template_of(reason: str) -> str | None:
    """The name of the engine's template ``reason`` was written from (:data:`TEMPLATES`), or None."""
    for name, pattern, _words in TEMPLATES:
        if pattern.fullmatch(reason):
            return name
    return None


def reason_text(reason: str, verbose: bool = False) -> str:
    """A move's reason for a person (``suggest move``, ``play``'s hint), in their language: without the share
    of playouts the move won unless ``verbose``. That raw rate is a second, uncalibrated win chance beside
    the move's value (the calibrated one), and the two disagree; the move's one figure is its value. A
    reason of no known template is the engine's English (its playout rate taken out alike)."""
    for _name, pattern, words in TEMPLATES:
        m = pattern.fullmatch(reason)
        if m:
            return words(m, verbose)
    return reason if verbose else _PLAYOUT_RATE.sub(r": \1 playouts", reason)


# ---------------------------------------------------------------- the review


def label_text(label: str) -> str:
    """A review's label in words: ``inaccuracy``, ``mistake`` or ``blunder``."""
    return {"inaccuracy": _("inaccuracy"), "mistake": _("mistake"), "blunder": _("blunder")}.get(label, label)


def review_text(r: Any) -> str:
    """One reviewed move in one line (``engine.review.MoveReview.to_str``'s, worded for the reader): ply, the
    player (P1 moves first), the move played and its win chance (and proven margin), the best move and its,
    the loss, the label.

    >>> from quiltsolve.engine import ADVANCE, parse_action
    >>> from quiltsolve.engine.review import MoveReview
    >>> r = MoveReview(50, 0, ADVANCE, parse_action("buy 0 4,2;4,3"), 0.0, 1.0, 1.0, True, -2, 3, 5)
    >>> review_text(r) == r.to_str()
    True
    """
    def value(chance: float, margin: int | None) -> str:
        if margin is None:
            return f"{chance:.3f}"
        return _("{chance}, proven {margin}").format(chance=f"{chance:.3f}", margin=f"{margin:+d}")

    played = value(r.value_played, r.margin_played)
    best = (_("same") if r.best == r.played
            else _("{move} ({value})").format(move=move_text(r.best), value=value(r.value_best, r.margin_best)))
    loss = f"{r.loss:.3f}"
    if r.loss_points is not None:
        loss += ngettext(", {n} point", ", {n} points", r.loss_points).format(n=r.loss_points)
    line = _("{ply}  {player}  {played} ({value})  best {best}  loss {loss}").format(
        ply=f"{r.ply:>3}", player=_("P{n}").format(n=r.player + 1), played=move_text(r.played), value=played,
        best=best, loss=loss)
    notes = [f"{GLYPHS[r.label]} {label_text(r.label)}"] if r.label else []
    if r.large:
        notes.append(_("large mistake"))
    return line + (f"  {', '.join(notes)}" if notes else "")


def summary_text(s: Any) -> str:
    """One player's review in one line (``engine.review.PlayerSummary.to_str``'s, worded for the reader).

    >>> from quiltsolve.engine.review import PlayerSummary
    >>> s = PlayerSummary(40, 0.031, 2, 3, 4, 88.25, 5, 2, 1)
    >>> summary_text(s) == s.to_str()
    True
    """
    line = _("{moves}, accuracy {accuracy}, {inaccuracies}, {mistakes}, {blunders}, mean loss {mean_loss}, "
             "{large}").format(
        moves=ngettext("{n} move", "{n} moves", s.moves).format(n=s.moves),
        accuracy="-" if s.accuracy is None else f"{s.accuracy:.1f}",
        inaccuracies=ngettext("{n} inaccuracy", "{n} inaccuracies", s.inaccuracies).format(n=s.inaccuracies),
        mistakes=ngettext("{n} mistake", "{n} mistakes", s.mistakes).format(n=s.mistakes),
        blunders=ngettext("{n} blunder", "{n} blunders", s.blunders).format(n=s.blunders),
        mean_loss=f"{s.mean_loss:.3f}",
        large=ngettext("{n} large mistake", "{n} large mistakes", s.large_mistakes).format(n=s.large_mistakes))
    if s.proven:
        line += _("; {points} lost in {moves}").format(
            points=ngettext("{n} point", "{n} points", s.loss_points).format(n=s.loss_points),
            moves=ngettext("{n} proven move", "{n} proven moves", s.proven).format(n=s.proven))
    return line


__all__ = ["TEMPLATES", "head_text", "label_text", "move_text", "reason_text", "review_text", "summary_text",
           "template_of"]
