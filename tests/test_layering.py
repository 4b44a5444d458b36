"""The dependency direction of the packages (docs' guide), read with ``ast``
from every import of every file: module-level, inside functions, and under
``if TYPE_CHECKING:`` alike.

    solver   imports no other package of the project
    engine   solver only (not the wire types: ``patchwork``)
    server   solver, engine, patchwork
    web      server, solver, engine, patchwork; never clients, never the gRPC stubs (``*_pb2_grpc``)
    clients  server, engine, solver, patchwork (never web)

(``tests/test_imports.py`` checks that no import cycle runs between the
project's files, so no import has to hide in a function to dodge one.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .test_imports import PACKAGE_DIR, module_name, short_name

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "engine", "server", "web", "clients", "patchwork")

ALLOWED = {
    "solver": set(),
    "engine": {"solver"},
    "server": {"solver", "engine", "patchwork"},
    "web": {"server", "solver", "engine", "patchwork"},
    "clients": {"server", "engine", "solver", "patchwork"},
    "patchwork": set(),
}
# Modules a package never imports, even though their package is allowed.
FORBIDDEN_MODULES = {
    "web": ("quiltsolve.patchwork.v1.placement_pb2_grpc",),
}


def _files(package: str) -> list[Path]:
    return sorted(p for p in (PACKAGE_DIR / package).rglob("*.py") if "_pb2" not in p.name)


def _join(module: str, name: str) -> str:
    return f"{module}.{name}" if module else name


def _resolve(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative ones resolved), without ``quiltsolve.``."""
    if not node.level:
        return short_name(node.module or "")
    base = module_name(path).split(".")
    if path.name != "__init__.py":
        base.pop()                      # a module's package
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path, *, module_level_only: bool = False) -> list[tuple[int, str]]:
    """``(line, module)`` of every project import in ``path``; ``from m import x``
    gives ``m.x`` as well as ``m`` (``x`` may be a submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if module_level_only:
        nodes = list(_module_level(tree.body))
    else:
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(node.lineno, short_name(a.name)) for a in node.names]
        else:
            mod = _resolve(path, node)
            if mod:
                out.append((node.lineno, mod))
            out += [(node.lineno, _join(mod, a.name)) for a in node.names if a.name != "*"]
    return [(line, m) for line, m in out if m.split(".")[0] in PACKAGES]


def _module_level(body: list[ast.stmt]):
    """The imports run when the module is imported: not in functions or classes' methods,
    not under ``if TYPE_CHECKING:``; both branches of other ``if``/``try`` blocks."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            test = ast.unparse(node.test)
            if test not in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _module_level(block)
        elif isinstance(node, (ast.With, ast.ClassDef)):
            yield from _module_level(node.body)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_the_layers_below(package):
    wrong = []
    for path in _files(package):
        for line, mod in imports_of(path):
            top = mod.split(".")[0]
            if top != package and top not in ALLOWED[package]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {mod}")
            if any(mod == f or mod.startswith(f + ".") for f in FORBIDDEN_MODULES.get(package, ())):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {mod} (forbidden module)")
    assert _files(package), package
    assert wrong == [], "\n".join(wrong)


def test_imports_of_sees_every_kind_of_import(tmp_path):
    f = tmp_path / "sample.py"
    f.write_text("from typing import TYPE_CHECKING\nimport json\nimport quiltsolve.solver.cover\n"
                 "if TYPE_CHECKING:\n    from quiltsolve.clients import connect\n"
                 "def f():\n    from quiltsolve import web\n    import quiltsolve.engine\n")
    assert [m for _, m in imports_of(f)] == ["solver.cover", "clients", "clients.connect", "web", "engine"]
    assert [m for _, m in imports_of(f, module_level_only=True)] == ["solver.cover"]


# ------------------------------------------------- imports inside functions
# Packages whose function-level imports of the project's own modules are
# only there for start-up time (heavy or optional dependencies), each saying
# so in a "start-up time" comment on its line or just above (engine/ has its
# own budget in tests/test_imports.py on its branch).
NO_LAZY_CYCLE_DODGE = ("solver", "server", "web", "clients")
MAX_LAZY = 8    # today: 5 in clients/__init__ (the grpc clients), clients.cli's --ray, server.pool's worker


def function_level_imports(path: Path) -> list[int]:
    """Lines of the project imports inside a function body of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0]
                                                         in PACKAGES):
                    lines.add(node.lineno)
                elif isinstance(node, ast.Import) and any(a.name.split(".")[0] in PACKAGES for a in node.names):
                    lines.add(node.lineno)
    return sorted(lines)


def test_function_level_imports_are_for_start_up_time_only():
    found, silent = [], []
    for package in NO_LAZY_CYCLE_DODGE:
        for path in _files(package):
            text = path.read_text(encoding="utf-8").splitlines()
            for line in function_level_imports(path):
                where = f"{path.relative_to(ROOT)}:{line}"
                found.append(where)
                # the comment: on the import's line, or in the comment lines right above it
                above = []
                for k in range(line - 2, max(line - 6, -1), -1):
                    if not text[k].lstrip().startswith("#"):
                        break
                    above.append(text[k])
                if "start-up time" not in " ".join([text[line - 1], *above]):
                    silent.append(where)
    assert found, "the walk found none: is it still looking at the right files?"
    assert silent == [], f"function-level imports without a 'start-up time' reason: {silent}"
    assert len(found) <= MAX_LAZY, found
