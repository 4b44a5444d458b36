"""The engine's errors about the rules and about states (importable from ``engine`` and ``engine.state`` too)."""

from __future__ import annotations

__all__ = ["FieldError", "IllegalActionError", "StateError"]


class FieldError(ValueError):
    """Input that is wrong in one field: ``field``, its path (``players[0].buttons``; '' for the
    input as a whole), and ``message``, what is wrong with it.

    ``str(error)`` is ``"field: message"``, the one line users read; a caller that needs the field
    (the position codec, which names it in INVALID_ARGUMENT) reads ``field``, never the text.

    >>> e = StateError("players[0].buttons", "must be an integer 0-1000, got -1")
    >>> e.field, e.message, str(e)
    ('players[0].buttons', 'must be an integer 0-1000, got -1', 'players[0].buttons: must be an integer 0-1000, got -1')
    >>> import pickle; pickle.loads(pickle.dumps(e)).field
    'players[0].buttons'
    """

    def __init__(self, field: str, message: str | None = None) -> None:
        if message is None:       # the one-argument form of 0.2 (a whole message that names no field)
            field, message = "", field
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        # errors cross process boundaries (worker pools): rebuild from both parts, not from str()
        return type(self), (self.field, self.message)


class IllegalActionError(ValueError):
    """An action that the rules do not allow here; the message names the rule."""


class StateError(FieldError):
    """A state JSON that is malformed or inconsistent; ``field`` is the path of the field at fault."""
