"""The engine's errors about the rules and about states (importable from ``engine`` and ``engine.state`` too)."""

from __future__ import annotations

__all__ = ["IllegalActionError", "StateError"]


class IllegalActionError(ValueError):
    """An action that the rules do not allow here; the message names the rule."""


class StateError(ValueError):
    """A state JSON that is malformed or inconsistent; the message starts with the field path."""
