"""Build explicit, consistent game states for rule scenarios."""

from __future__ import annotations

from quiltsolve.solver import PATCHES, board_from_rows

from quiltsolve.engine import GameState
from quiltsolve.engine.track import LEATHER_SPACES

ZERO_INCOME_FIRST = sorted(range(len(PATCHES)), key=lambda i: (PATCHES[i].income != 0, i))


def rows(*lines: str) -> int:
    """A board from up to 9 rows ('#' covered); missing rows are empty."""
    lines = list(lines) + ["." * 9] * (9 - len(lines))
    return board_from_rows([ln.ljust(9, ".") for ln in lines])


def _filler(n: int, pool: list[int]) -> list[int]:
    """Patches from ``pool`` (income-0 first) whose areas sum to ``n``."""
    reach: dict[int, list[int]] = {0: []}
    for pid in pool:
        a = PATCHES[pid].area
        for total, chosen in list(reach.items()):
            if total + a <= n and total + a not in reach:
                reach[total + a] = chosen + [pid]
        if n in reach:
            return reach[n]
    raise ValueError(f"no patches cover exactly {n} cells")


def build(p0: dict | None = None, p1: dict | None = None, *, front=(), current=0, pending=0, first_to_end=None,
          edition="revised") -> GameState:
    """A checked state. Each player dict may set board, buttons, position,
    patches (kept, plus filler patches for the rest of the board's cells),
    leather, bonus. ``front`` are the first patches of the circle."""
    specs = [dict(p0 or {}), dict(p1 or {})]
    used = set(front)
    for s in specs:
        used |= set(s.get("patches", ()))
    players = []
    for s in specs:
        board = s.get("board", 0)
        patches = list(s.get("patches", ()))
        leather = s.get("leather", 0)
        rest = board.bit_count() - leather - sum(PATCHES[p].area for p in patches)
        if rest:
            extra = _filler(rest, [p for p in ZERO_INCOME_FIRST if p not in used])
            used |= set(extra)
            patches += extra
        players.append({
            "board": board, "buttons": s.get("buttons", 5), "position": s.get("position", 0),
            "income": sum(PATCHES[p].income for p in patches), "patches": patches, "leather": leather,
            "bonus": s.get("bonus", False),
        })
    far = max(p["position"] for p in players)
    circle = list(front) + [p for p in range(len(PATCHES)) if p not in used]
    return GameState.from_json({
        "edition": edition, "players": players, "circle": circle,
        "leather_spaces": [x for x in LEATHER_SPACES[edition] if x > far],
        "current_player": current, "leather_to_place": pending, "first_to_end": first_to_end,
    })
