# Type stub of the compiled endgame search (engine/_core/endgame.c); the driver is engine/endgame.py.
from typing import Any

_State = tuple[Any, ...]
_Action = tuple[int, int, int]

ENTRY_BYTES: int
CHECK_EVERY: int
PACK_STEPS: int
MIN_GROUP: int
PACK_CACHE: int
PACK_CACHE_MIN: int
PACK_GROW_NODES: int

def _init_tables(tables: tuple[Any, ...], /) -> None: ...

class Searcher:
    nodes: int
    table_full: bool
    slots: int
    def __init__(self, table_bytes: int, max_plies: int, deadline: float, stop: Any, relax: bool = ...,
                 grow_nodes: int = ..., /) -> None: ...
    def ab(self, state: _State, alpha: int, beta: int, ply: int, defer: int = ..., /) -> tuple[int, int]: ...
    def ab_after(self, state: _State, action: _Action, alpha: int, beta: int, ply: int, /) -> tuple[int, int]: ...
    def children(self, state: _State, /) -> list[_Action]: ...
    def probe_move(self, state: _State, defer: int = ..., /) -> _Action | None: ...
