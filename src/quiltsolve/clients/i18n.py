"""The command line's languages: English, Ukrainian, Korean and Italian, through gettext (stdlib).

The human-readable output of ``suggest`` (and the other console scripts' text where it is ours) goes
through :func:`_` and :func:`ngettext`. The catalogues are ``clients/locale/<lang>/LC_MESSAGES/quiltsolve.po``
(sources, managed by Babel: ``make i18n`` extracts, updates and compiles them) and the compiled ``.mo`` files
beside them, shipped as package data. The language follows ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and
``LANG``, in that order, as gettext reads them (``LANG=uk_UA.UTF-8`` is Ukrainian; ``C``, ``POSIX`` and
unknown languages are English). ``--json`` output, errors from the service and the API stay English: they
are for programs.

Messages use ``{name}`` placeholders, filled with ``str.format`` after the lookup::

    _("empty cells: {before} → {after}").format(before=40, after=25)

>>> translation({"LANG": "C.UTF-8"}).gettext("no placement possible")
'no placement possible'
>>> translation({"LANGUAGE": "it", "LANG": "C"}).gettext("no placement possible") != "no placement possible"
True
"""

from __future__ import annotations

import functools
import gettext
import os
from collections.abc import Mapping
from importlib import resources

DOMAIN = "quiltsolve"
LANGUAGES = ("en", "uk", "ko", "it")
"""The languages of the catalogues (English is the source: no catalogue)."""
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Where the language comes from, first set first (gettext's order)."""


def locale_dir() -> str:
    """The folder holding ``<lang>/LC_MESSAGES/quiltsolve.mo``."""
    return str(resources.files("quiltsolve.clients") / "locale")


@functools.lru_cache(maxsize=16)
def _translation(languages: tuple[str, ...] | None) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, localedir=locale_dir(), languages=list(languages) if languages else None,
                               fallback=True)


def _languages(environ: Mapping[str, str]) -> tuple[str, ...] | None:
    """The language list gettext would read from ``environ`` (its first non-empty variable)."""
    for name in ENVIRONMENT:
        value = environ.get(name)
        if value:
            return tuple(value.split(":"))
    return None


def translation(environ: Mapping[str, str] | None = None) -> gettext.NullTranslations:
    """The catalogue for the language ``environ`` (default: this process's environment) asks for; a
    catalogue that does nothing (English) when none fits."""
    languages = _languages(os.environ if environ is None else environ)
    return _translation(languages) if languages else gettext.NullTranslations()


def _(message: str) -> str:
    """``message`` in the language of the environment (read at each call: a test may change it)."""
    return translation().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for ``n`` in the language of the environment (Ukrainian has three, Korean one)."""
    return translation().ngettext(singular, plural, n)


def language() -> str:
    """The language of the output: ``en``, ``uk``, ``ko`` or ``it``.

    >>> language() in LANGUAGES
    True
    """
    t = translation()
    lang = t.info().get("language", "").split("_")[0] if isinstance(t, gettext.GNUTranslations) else ""
    return lang if lang in LANGUAGES else "en"


__all__ = ["DOMAIN", "ENVIRONMENT", "LANGUAGES", "_", "language", "locale_dir", "ngettext", "translation"]
