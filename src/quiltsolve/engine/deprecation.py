"""Deprecated aliases of moved names: one module ``__getattr__`` maker for every module that lost some.

>>> import types, warnings
>>> home = types.SimpleNamespace(__name__="quiltsolve.engine.policy", ANSWER=42)
>>> __getattr__ = moved_names("quiltsolve.engine.old", ("ANSWER",), home)
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     __getattr__("ANSWER"), str(seen[0].message)
(42, 'engine.old.ANSWER is deprecated: import it from quiltsolve.engine.policy')
>>> __getattr__("other")
Traceback (most recent call last):
...
AttributeError: module 'quiltsolve.engine.old' has no attribute 'other'
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable

__all__ = ["moved_names"]


def moved_names(module: str, names: Iterable[str], home: Any) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``module`` (its ``__name__``) that finds each of ``names`` in
    ``home`` (the module they moved to), the moved object itself, with a ``DeprecationWarning``."""
    moved = frozenset(names)
    short = module.removeprefix("quiltsolve.")

    def __getattr__(name: str) -> Any:
        if name in moved:
            warnings.warn(f"{short}.{name} is deprecated: import it from {home.__name__}",
                          DeprecationWarning, stacklevel=2)
            return getattr(home, name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
