"""Clients' values quoted in error messages: JSON-like text, cut short.

>>> quote("x" * 500)[:10], len(quote("x" * 500))
('"xxxxxxxxx', 80)
"""

from __future__ import annotations

import json
import math

__all__ = ["QUOTE_LIMIT", "quote"]

QUOTE_LIMIT = 80
"""Longest quoted value (characters) in a message."""


class _Raw(str):
    """Text that ``quote`` emits as it is (brackets, commas)."""


def _scalar(v: object, limit: int) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        try:
            return str(v)
        except ValueError:   # beyond Python's int-to-text digit limit
            return ("-" if v < 0 else "") + "9" * (limit + 1)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, str):
        text = json.dumps(v[:limit + 1], ensure_ascii=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:     # a lone surrogate such as "\ud800": write it escaped
            text = json.dumps(v[:limit + 1])
        return text
    return f"<{type(v).__name__}>"


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A client's value as JSON-like text, cut to at most ``limit`` characters.

    Works on anything (nesting depth, huge integers, lone surrogates) without
    recursion, and never looks at more than it prints.

    >>> quote("x" * 500)[:10], len(quote("x" * 500))
    ('"xxxxxxxxx', 80)
    >>> quote([1, {"a": None}, 2.5, True])
    '[1, {"a": null}, 2.5, true]'
    >>> quote("\\ud800")
    '"\\\\ud800"'
    """
    out: list[str] = []
    size = 0
    stack: list[object] = [value]
    while stack and size <= limit:
        v = stack.pop()
        if type(v) is _Raw:
            piece = str(v)
        elif isinstance(v, (list, tuple)):
            stack.append(_Raw("]"))
            for i in range(min(len(v), limit) - 1, -1, -1):
                stack.append(v[i])
                if i:
                    stack.append(_Raw(", "))
            piece = "["
        elif isinstance(v, dict):
            stack.append(_Raw("}"))
            items = []
            for k in v:
                items.append(k)
                if len(items) > limit:
                    break
            for i in range(len(items) - 1, -1, -1):
                stack.append(v[items[i]])
                stack.append(_Raw(": "))
                stack.append(items[i])
                if i:
                    stack.append(_Raw(", "))
            piece = "{"
        else:
            piece = _scalar(v, limit)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    if stack or len(text) > limit:
        text = text[:limit - 3] + "..."
    return text
