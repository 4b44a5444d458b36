"""Doctests of the package folders are collected under their installed names.

pytest would name ``server/errors.py`` ``server.errors`` (its folder is a
package at the repository root), but the code is ``quiltsolve.server.errors``:
its doctests run on that module (one module object, and exception paths as
``quiltsolve.server.errors.BadRequest``) instead of a second copy. Only public
pytest API does it: the package folders are plain directories
(``pytest.Dir``, which imports no ``__init__.py``), and each of their modules
is one :class:`InstalledDoctests` file whose items are ``pytest.DoctestItem``
run by a stdlib ``doctest.DocTestRunner``. So no ``server`` / ``solver`` ...
module is ever imported under its old top-level name, not even for a file
named on the command line (``pytest server/app.py``).
"""

from __future__ import annotations

import doctest
import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent

# The suite checks English output (the README's examples, the doctests, the web app's English pages): whatever
# the developer's locale, gettext (clients/i18n.py) and the browsers it starts speak English here, unless a test
# asks for a language in the environment it passes on.
os.environ["LANGUAGE"] = "en"
PACKAGES = ("server", "solver", "engine", "clients", "web", "patchwork")


def _in_packages(path: Path) -> bool:
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        return False
    return bool(rel.parts) and rel.parts[0] in PACKAGES


def _installed_name(path: Path) -> str:
    """``server/errors.py`` -> ``quiltsolve.server.errors``; ``server/__init__.py`` -> ``quiltsolve.server``."""
    parts = list(path.resolve().relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["quiltsolve", *parts])


class _Runner(doctest.DocTestRunner):
    """Stops a doctest at its first failure (``--doctest-continue-on-failure``: collects them all), and
    lets pytest's own outcomes (a skip inside a doctest) through, as pytest's doctest runner does."""

    def __init__(self, optionflags: int, continue_on_failure: bool) -> None:
        super().__init__(optionflags=optionflags, verbose=False)
        self.continue_on_failure = continue_on_failure

    def report_failure(self, out: Any, test: doctest.DocTest, example: doctest.Example, got: str) -> None:
        self._fail(out, doctest.DocTestFailure(test, example, got))

    def report_unexpected_exception(self, out: Any, test: doctest.DocTest, example: doctest.Example,
                                    exc_info: Any) -> None:
        if isinstance(exc_info[1], (pytest.skip.Exception, pytest.xfail.Exception, pytest.fail.Exception)):
            raise exc_info[1]
        self._fail(out, doctest.UnexpectedException(test, example, exc_info))

    def _fail(self, out: Any, failure: Exception) -> None:
        if not self.continue_on_failure:
            raise failure
        out.append(failure)  # DoctestItem.runtest hands a list as ``out`` and reports them together


def _optionflags(config: pytest.Config) -> int:
    return sum(doctest.OPTIONFLAGS_BY_NAME[name] for name in set(config.getini("doctest_optionflags")))


class InstalledDoctests(pytest.File):
    """The doctests of one package module, found on the installed module object."""

    def collect(self) -> Iterator[pytest.DoctestItem]:
        module = importlib.import_module(_installed_name(self.path))
        runner = _Runner(_optionflags(self.config), bool(self.config.getoption("doctest_continue_on_failure")))
        for test in doctest.DocTestFinder().find(module, module.__name__):
            if test.examples:
                yield pytest.DoctestItem.from_parent(self, name=test.name, runner=runner, dtest=test)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # A plain directory: a pytest.Package would import its __init__.py as a top-level module.
    return pytest.Dir.from_parent(parent, path=path) if _in_packages(path) else None


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Any:
    result = yield
    if file_path.suffix != ".py" or not _in_packages(file_path):
        return result
    # Instead of what the python and doctest plugins made (they would import the file under its
    # folder's name): its doctests on the installed module, as --doctest-modules asks. The doctest
    # plugin never collects a __main__.py either (importing it would run the program).
    if not parent.config.getoption("doctestmodules") or file_path.name == "__main__.py":
        return []
    return [InstalledDoctests.from_parent(parent, path=file_path)]
