"""One memory budget, in bytes, for every cache of the solver package.

The solver keeps tables that are costly to rebuild: a puzzle's placement
tables (``solver.puzzle``), the placements and orientations of a shape
(``solver.geometry``, ``solver.cover``). A long-lived server meets an
unbounded stream of distinct puzzles and custom shapes, so these caches
share one byte budget (default :data:`DEFAULT_CACHE_LIMIT`, 64 MiB) instead
of an entry count: each entry carries an estimate of its size, the least
recently used entries are dropped while the total is over the limit, and an
entry bigger than the whole limit is simply not kept.

>>> c = ByteCache("doctest")
>>> c.put("k", b"x" * 1000)
True
>>> c.get("k") == b"x" * 1000, cache_info()["caches"]["doctest"]["entries"]
(True, 1)
>>> c.clear(); c.get("k") is None
True

Public functions (exported by ``solver``): :func:`set_cache_limit` and
:func:`cache_info`. Cheap to import: only the standard library.
"""

from __future__ import annotations

import sys
import threading
from array import array
from collections import OrderedDict
from dataclasses import fields, is_dataclass
from functools import wraps
from typing import Any, Callable, Hashable

DEFAULT_CACHE_LIMIT = 64 * 1024 * 1024

_lock = threading.Lock()
_entries: "OrderedDict[tuple[str, Hashable], tuple[Any, int]]" = OrderedDict()
_state = {"bytes": 0, "max_bytes": DEFAULT_CACHE_LIMIT}
_stats: dict[str, dict[str, int]] = {}   # per cache: hits, misses, bytes, entries, rejected


def _stat(name: str) -> dict[str, int]:
    s = _stats.get(name)
    if s is None:
        s = _stats[name] = {"hits": 0, "misses": 0, "bytes": 0, "entries": 0, "evicted": 0, "rejected": 0}
    return s


def _evict_to(limit: int) -> None:
    """Drop least recently used entries until the total is <= limit (lock held)."""
    while _state["bytes"] > limit and _entries:
        (name, _key), (_v, nbytes) = _entries.popitem(last=False)
        _state["bytes"] -= nbytes
        s = _stat(name)
        s["bytes"] -= nbytes
        s["entries"] -= 1
        s["evicted"] += 1


def set_cache_limit(max_bytes: int) -> None:
    """Set the byte budget shared by all solver caches (0 turns caching off).

    Entries are evicted at once, least recently used first, until the total
    fits. The default is ``DEFAULT_CACHE_LIMIT`` (64 MiB).
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError(f"max_bytes must be an int >= 0, not {max_bytes!r}")
    with _lock:
        _state["max_bytes"] = max_bytes
        _evict_to(max_bytes)


def cache_info() -> dict:
    """``{"bytes": used, "max_bytes": limit, "entries": n, "caches": {name: {...}}}``.

    Per cache: ``bytes``, ``entries``, ``hits``, ``misses``, ``evicted`` and
    ``rejected`` (entries larger than the whole limit, never stored).
    """
    with _lock:
        return {
            "bytes": _state["bytes"],
            "max_bytes": _state["max_bytes"],
            "entries": len(_entries),
            "caches": {name: dict(s) for name, s in sorted(_stats.items())},
        }


def clear_caches() -> None:
    """Empty every solver cache (the limit and the hit counters stay)."""
    with _lock:
        _entries.clear()
        _state["bytes"] = 0
        for s in _stats.values():
            s["bytes"] = s["entries"] = 0


class ByteCache:
    """A named view of the shared byte-bounded LRU store."""

    def __init__(self, name: str, sizeof: Callable[[Any], int] | None = None) -> None:
        self.name = name
        self.sizeof = sizeof or deep_sizeof
        with _lock:
            _stat(name)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The cached value of ``key`` (now the most recently used), or ``default``."""
        k = (self.name, key)
        with _lock:
            e = _entries.get(k)
            s = _stats[self.name]
            if e is None:
                s["misses"] += 1
                return default
            _entries.move_to_end(k)
            s["hits"] += 1
            return e[0]

    def put(self, key: Hashable, value: Any, nbytes: int | None = None) -> bool:
        """Store ``value``; False when it is larger than the whole limit (not stored)."""
        if nbytes is None:
            nbytes = self.sizeof(value) + deep_sizeof(key)
        nbytes = max(int(nbytes), 1)
        k = (self.name, key)
        with _lock:
            s = _stats[self.name]
            old = _entries.pop(k, None)
            if old is not None:
                _state["bytes"] -= old[1]
                s["bytes"] -= old[1]
                s["entries"] -= 1
            if nbytes > _state["max_bytes"]:
                s["rejected"] += 1
                return False
            _evict_to(_state["max_bytes"] - nbytes)
            _entries[k] = (value, nbytes)
            _state["bytes"] += nbytes
            s["bytes"] += nbytes
            s["entries"] += 1
            return True

    def clear(self) -> None:
        """Drop every entry of this cache (the others keep theirs)."""
        with _lock:
            for k in [k for k in _entries if k[0] == self.name]:
                _v, nbytes = _entries.pop(k)
                _state["bytes"] -= nbytes
            s = _stats[self.name]
            s["bytes"] = s["entries"] = 0


def byte_cached(name: str, sizeof: Callable[[Any], int] | None = None):
    """Decorator: memoise a function of hashable arguments in a :class:`ByteCache`.

    The wrapper has ``cache_clear()`` and ``cache`` (the ByteCache).
    """
    def deco(fn):
        cache = ByteCache(name, sizeof)
        miss = object()

        @wraps(fn)
        def wrapper(*args):
            v = cache.get(args, miss)
            if v is miss:
                v = fn(*args)
                cache.put(args, v)
            return v

        wrapper.cache = cache  # type: ignore[attr-defined]
        wrapper.cache_clear = cache.clear  # type: ignore[attr-defined]
        return wrapper

    return deco


_ATOMS = (int, float, complex, str, bytes, bool, type(None))


def uniform_sizeof(seq) -> int:
    """Size of a tuple/list whose items all look alike, from its first item
    (a quick estimate for long tuples of small objects)."""
    if not seq:
        return sys.getsizeof(seq)
    return sys.getsizeof(seq) + len(seq) * deep_sizeof(seq[0])


def dict_sizeof(d: dict) -> int:
    """Size of a dict of plain ints / strings (keys and values counted once each)."""
    g = sys.getsizeof
    return g(d) + sum(g(k) + g(v) for k, v in d.items())


def deep_sizeof(obj: Any) -> int:
    """Bytes held by ``obj`` and everything it references (each object once).

    Handles tuples, lists, sets, dicts, arrays, dataclasses and objects with
    ``__dict__`` / ``__slots__``; a careful estimate, not an exact figure
    (allocator overhead is not counted). Shared small ints are counted too,
    so it errs on the high side.
    """
    seen: set[int] = set()
    total = 0
    todo = [obj]
    getsizeof = sys.getsizeof
    while todo:
        o = todo.pop()
        i = id(o)
        if i in seen:
            continue
        seen.add(i)
        total += getsizeof(o)
        if isinstance(o, _ATOMS) or isinstance(o, array):
            continue
        if isinstance(o, (tuple, list, set, frozenset)):
            todo.extend(o)
        elif isinstance(o, dict):
            todo.extend(o.keys())
            todo.extend(o.values())
        else:
            d = getattr(o, "__dict__", None)
            if d is not None:
                todo.append(d)
            elif is_dataclass(o):
                todo.extend(getattr(o, f.name) for f in fields(o))
            for slot in getattr(type(o), "__slots__", ()):
                if hasattr(o, slot):
                    todo.append(getattr(o, slot))
    return total


__all__ = ["DEFAULT_CACHE_LIMIT", "ByteCache", "byte_cached", "cache_info", "clear_caches", "deep_sizeof",
           "dict_sizeof", "set_cache_limit", "uniform_sizeof"]
