"""Doctests of the package folders are collected under their installed names.

pytest names ``server/errors.py`` ``server.errors`` (its folder is a package
at the repository root), but the code is ``quiltsolve.server.errors``: its
doctests run on that module (one module object, and exception paths as
``quiltsolve.server.errors.BadRequest``) instead of a second copy. The
package folders themselves (pytest's ``Package`` imports their
``__init__.py``) are set up the same way, so no ``server`` / ``solver`` ...
module is ever imported under its old top-level name.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule
from _pytest.python import Package

ROOT = Path(__file__).resolve().parent
PACKAGES = ("server", "solver", "engine", "clients", "web", "patchwork")


def _installed_name(path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        return None
    if not rel.parts or rel.parts[0] not in PACKAGES:
        return None
    if rel.suffix == ".py":
        rel = rel.with_suffix("")
    elif not (path / "__init__.py").is_file():
        return None
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["quiltsolve", *parts])


class InstalledDoctestModule(DoctestModule):
    def _getobj(self):
        return importlib.import_module(self.quiltsolve_name)


class InstalledPackage(Package):
    def setup(self) -> None:
        # (none of these packages has a setup_module / teardown_module)
        importlib.import_module(self.quiltsolve_name)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path, parent):
    name = _installed_name(path)
    if name is None:
        return None
    node = InstalledPackage.from_parent(parent, path=path)
    node.quiltsolve_name = name
    return node


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    result = yield
    name = _installed_name(file_path)
    if name is None or not result:
        return result
    out = []
    for node in result:
        if type(node) is DoctestModule:
            new = InstalledDoctestModule.from_parent(parent, path=file_path)
            new.quiltsolve_name = name
            node = new
        out.append(node)
    return out
