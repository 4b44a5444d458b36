#!/usr/bin/env python3
"""Move every installed package under the one top-level name ``quiltsolve`` (issue 17, item 6).

    python scripts/move_namespace.py            # rewrite the tree, print what changed
    python scripts/move_namespace.py --check    # change nothing; exit 1 if a rewrite is due

The folders stay where they are (``server/``, ``solver/``, ``engine/``,
``clients/``, ``web/``, ``patchwork/``); the build maps them to
``quiltsolve.server`` ... through setuptools' ``package_dir`` (setup.py), and a
tiny ``quiltsolve/__init__.py`` makes ``import quiltsolve.server`` work from
the repository root without an install. Deterministic and idempotent: a second
run changes nothing, and it can be run again on a newer main. Only tracked
files (``git ls-files``) are read; CHANGELOG.md's history is left as written.

What it rewrites (every rule is a regular expression over the text, kept
narrow so that words like "server" in prose are never touched):

* imports: ``from solver(.x) import`` (also in doctests, docs and strings),
  ``import solver`` -> ``from quiltsolve import solver``,
  ``import solver.x`` -> ``from quiltsolve import solver`` + ``import quiltsolve.solver.x``,
  ``import solver.x as y`` -> ``import quiltsolve.solver.x as y``;
* module commands: ``-m server`` -> ``-m quiltsolve.server`` in any text,
  ``"-m", "server"`` in argument lists (``bench`` stays ``python -m bench``);
* quoted module names that are modules of the tree: ``"server.worker"``,
  ``"clients.cli:main"``, ``'solver.cover'``, ``"solver._exactcover"``;
  ``resources.files("web")``; doctest exception lines ``server.errors.BadRequest: ...``;
* pyproject.toml (version 0.2.0, packaging, package data, mypy module names),
  setup.py (the package mapping and ``quiltsolve.solver._exactcover``),
  the generated stubs (``scripts/gen_proto.py``'s IMPORT_PREFIX, stubs fixed in
  place), CHANGELOG.md's "Moved imports", and a list of one-off fixes (FIXUPS).

At the end it lists the lines that still look like old references (for a
person to read: most are prose).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS = "quiltsolve"
PACKAGES = ("server", "solver", "engine", "clients", "web", "patchwork")
R = "(?:" + "|".join(PACKAGES) + ")"
VERSION = "0.2.0"

TEXT_SUFFIXES = {".py", ".pyi", ".md", ".toml", ".sh", ".txt", ".cfg", ".ini", ".conf", ".yaml", ".yml"}
TEXT_NAMES = {"Makefile", "Dockerfile", "Containerfile"}
SKIP = {"CHANGELOG.md", "scripts/move_namespace.py", "quiltsolve/__init__.py", "conftest.py",
        "constraints.txt",
        # they name the repository's modules by their folder paths on purpose (after the move by hand)
        "tests/test_layering.py", "tests/test_imports.py"}
SKIP_DIRS = ("web/static/", "tests/data/", "bench/data/", "solver/data/", "engine/data/", "patchwork/")

INIT = '''"""quiltsolve: patch placement planning for the board game Patchwork, and quilt-packing puzzles.

The one installed top-level name. Its subpackages live in the repository's
top-level folders, mapped by setup.py's ``package_dir``:
``quiltsolve.server`` (server/), ``quiltsolve.solver`` (solver/),
``quiltsolve.engine`` (engine/), ``quiltsolve.clients`` (clients/),
``quiltsolve.web`` (web/) and ``quiltsolve.patchwork`` (patchwork/, the
generated protobuf stubs).
"""

from __future__ import annotations

from pathlib import Path as _Path

try:
    from importlib.metadata import PackageNotFoundError as _NotFound, version as _version

    __version__ = _version("quiltsolve")
except _NotFound:  # a bare source tree
    __version__ = "0+unknown"

# In the source tree (no install, or an editable one) the subpackages are the
# folders beside this one: look for them there too. An installed wheel has
# them inside this folder, and its parent (site-packages) is never searched.
_ROOT = _Path(__file__).resolve().parent.parent
if (_ROOT / "pyproject.toml").is_file() and (_ROOT / "server" / "__init__.py").is_file():
    if str(_ROOT) not in __path__:
        __path__.append(str(_ROOT))
del _Path, _ROOT
'''

CONFTEST = '''"""Doctests of the package folders are collected under their installed names.

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
'''

SETUP = '''"""Package mapping and the optional C search (metadata lives in pyproject.toml).

One top-level name is installed, ``quiltsolve``; its subpackages are the
repository's folders: ``quiltsolve.server`` is server/, and so on
(``package_dir``; every subpackage with an ``__init__.py`` is found, so a new
one needs no change here).

``optional=True``: if the compiler is missing the install still succeeds and
``quiltsolve.solver.puzzle`` falls back to its pure-Python search (same answers, slower).
"""

from setuptools import Extension, find_packages, setup

SUBPACKAGES = ("server", "solver", "engine", "clients", "web", "patchwork")

package_dir = {"quiltsolve": "quiltsolve", **{f"quiltsolve.{p}": p for p in SUBPACKAGES}}
packages = ["quiltsolve"] + sorted(
    f"quiltsolve.{name}" for name in find_packages(include=[f"{p}" for p in SUBPACKAGES]
                                                   + [f"{p}.*" for p in SUBPACKAGES]))

setup(
    package_dir=package_dir,
    packages=packages,
    ext_modules=[
        Extension(
            "quiltsolve.solver._exactcover",
            ["solver/_exactcover.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ],
)
'''

PACKAGE_DATA = '''[tool.setuptools.package-data]
quiltsolve = ["py.typed"]
"quiltsolve.solver" = ["data/*.json", "py.typed"]
"quiltsolve.engine" = ["data/*.json", "py.typed"]
"quiltsolve.clients" = ["py.typed"]
"quiltsolve.web" = ["static/*", "static/**/*"]
'''

WHEEL_TEST = '''

def test_wheel_installs_one_top_level_name(tmp_path):
    """The wheel puts exactly one name into site-packages: ``quiltsolve`` (and its .dist-info)."""
    pytest.importorskip("setuptools", reason="building without isolation needs setuptools in this venv")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "-w", str(tmp_path), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("quiltsolve-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names}
    dist_info = {t for t in top if t.endswith(".dist-info")}
    assert top - dist_info == {"quiltsolve"}, sorted(top)
    assert len(dist_info) == 1, sorted(top)
    for name in ("quiltsolve/__init__.py", "quiltsolve/py.typed", "quiltsolve/server/worker.py",
                 "quiltsolve/patchwork/v1/placement_pb2_grpc.py", "quiltsolve/web/static/index.html",
                 "quiltsolve/solver/data/patches.json", "quiltsolve/engine/data/track.json"):
        assert name in names, name
    grpc_stub = zipfile.ZipFile(wheel).read("quiltsolve/patchwork/v1/placement_pb2_grpc.py").decode()
    assert "from quiltsolve.patchwork.v1 import placement_pb2" in grpc_stub


OLD_ROOTS = {"server", "solver", "engine", "clients", "web", "patchwork"}


def test_no_import_uses_an_old_top_level_name():
    """From the repository root ``import server`` still works (the folder is there), installed it
    does not: every absolute import names ``quiltsolve.server`` ... (scripts/move_namespace.py)."""
    import ast

    bad = []
    for folder in (*sorted(OLD_ROOTS), "tests", "bench", "scripts", "deploy", "quiltsolve"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                         else [])
                bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                        if n.split(".")[0] in OLD_ROOTS]
    assert bad == []
'''

CHANGELOG = '''### Moved imports

Every package is now installed under one top-level name, `quiltsolve` (the
folders of the repository are unchanged; see setup.py's `package_dir`):

| old import | new import |
| --- | --- |
| `server` | `quiltsolve.server` |
| `solver` (and `solver._exactcover`) | `quiltsolve.solver` (`quiltsolve.solver._exactcover`) |
| `engine` | `quiltsolve.engine` |
| `clients` | `quiltsolve.clients` |
| `web` | `quiltsolve.web` |
| `patchwork` (the generated stubs) | `quiltsolve.patchwork` (the proto package is still `patchwork.v1` on the wire) |

- Module commands: `python -m server` → `python -m quiltsolve.server`,
  `python -m web` → `python -m quiltsolve.web`, `python -m engine` →
  `python -m quiltsolve.engine`, `python -m clients.cli` →
  `python -m quiltsolve.clients.cli`. `python -m bench` is unchanged (run
  from the repository; `bench/` is not installed).
- The console scripts are unchanged: `suggest`, `quiltsolve-server`,
  `quiltsolve-engine`, `quiltsolve-web`.
- The advisor entry point group is still `quiltsolve.advisors`; its values
  name `quiltsolve.clients...`. `importlib.resources.files("quiltsolve.web")`
  (and `quiltsolve.solver`, `quiltsolve.engine`) hold the package data.
- Relative imports inside the packages are unchanged. The move was made by
  `scripts/move_namespace.py`.

'''

MYPY_OLD = '''def _mypy(*targets: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                           str(ROOT / "pyproject.toml"), *targets], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
'''
MYPY_NEW = '''_MYPY_TREE: list[Path] = []


def _mypy_tree() -> Path:
    """A folder holding ``quiltsolve/``, links to the package folders, on MYPYPATH.

    mypy finds modules on paths only: it runs neither the editable install's
    import hook nor quiltsolve/__init__.py (which finds ``quiltsolve.clients``
    in clients/), so it is shown the installed layout.
    """
    import tempfile

    if _MYPY_TREE:
        return _MYPY_TREE[0]
    tree = Path(tempfile.mkdtemp(prefix="quiltsolve-mypy-"))
    pkg = tree / "quiltsolve"
    pkg.mkdir()
    for name in ("__init__.py", "py.typed"):
        (pkg / name).symlink_to(ROOT / "quiltsolve" / name)
    for sub in ("server", "solver", "engine", "clients", "web", "patchwork"):
        (pkg / sub).symlink_to(ROOT / sub, target_is_directory=True)
    _MYPY_TREE.append(tree)
    return tree


def _mypy(*targets: str) -> subprocess.CompletedProcess[str]:
    import os

    pytest.importorskip("mypy")
    env = {**os.environ, "MYPYPATH": str(_mypy_tree())}
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                           str(ROOT / "pyproject.toml"), *targets], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env=env)
'''

# One-off fixes the rules above do not cover: (path, old, new); applied when
# ``old`` is present (so a second run, or a file that changed, is a no-op).
FIXUPS: list[tuple[str, str, str]] = [
    ("tests/clients/test_service_player.py", "m == 'clients' or m.startswith('clients.')",
     "m == 'quiltsolve.clients' or m.startswith('quiltsolve.clients.')"),
    ("tests/clients/test_client.py", '__import__("engine").new_game', '__import__("quiltsolve.engine").engine.new_game'),
    ("tests/test_typing.py", '_missing("clients")', '_missing("quiltsolve.clients")'),
    ("tests/test_typing.py", '    "solver": {\n', '    "quiltsolve.solver": {\n'),
    ("tests/test_typing.py", '    "engine": {\n', '    "quiltsolve.engine": {\n'),
    ("tests/test_typing.py", '_mypy("clients", str(snippet))', '_mypy(str(_mypy_tree() / "quiltsolve" / "clients"), str(snippet))'),
    ("tests/test_typing.py", MYPY_OLD, MYPY_NEW),
    ("tests/test_packaging.py", 'assert "py.typed" in data[pkg], pkg', 'assert "py.typed" in data[f"quiltsolve.{pkg}"], pkg'),
    ("tests/test_packaging.py", 'assert f"{pkg}/py.typed" in names', 'assert f"quiltsolve/{pkg}/py.typed" in names'),
    ("tests/test_packaging.py", 'assert "solver/limits.py" in names and "clients/aio_client.py" in names',
     'assert "quiltsolve/solver/limits.py" in names and "quiltsolve/clients/aio_client.py" in names'),
    ("tests/test_packaging.py", '"quiltsolve-engine = engine.__main__:main"',
     '"quiltsolve-engine = quiltsolve.engine.__main__:main"'),
    ("deploy/build-image-steps.sh", 'n.startswith("solver/_exactcover")', 'n.startswith("quiltsolve/solver/_exactcover")'),
    ("deploy/build-image-steps.sh", "no solver/_exactcover*.so", "no quiltsolve/solver/_exactcover*.so"),
    # Python run by ``python -c`` in tests: ``import a, b`` lines bind names, spelled out here
    ("tests/deploy/test_image_steps.py", '"import server, solver, web, importlib.util as u; print(server.__file__); "',
     '"from quiltsolve import server, solver, web; import importlib.util as u; print(server.__file__); "'),
    ("tests/deploy/test_image_steps.py", 'n.startswith("solver/_exactcover")', 'n.startswith("quiltsolve/solver/_exactcover")'),
    ("tests/solver/test_limits.py", '("import sys, solver; i = solver.cache_info()',
     '("import sys; from quiltsolve import solver; i = solver.cache_info()'),
    ("tests/clients/test_service_player.py",
     '"import sys, engine, engine.suggest, engine.advisor, engine.service_player, engine.players;"',
     '"import sys, quiltsolve.engine.suggest, quiltsolve.engine.advisor, quiltsolve.engine.service_player, "\n'
     '            "quiltsolve.engine.players; from quiltsolve import engine;"'),
    ("tests/clients/test_limits.py", '"import sys, solver.limits; print(', '"import sys, quiltsolve.solver.limits; print('),
]


# ----------------------------------------------------------------- helpers
def is_module(dotted: str) -> bool:
    """``dotted`` (``server.worker``) names a module or package of the tree (a .py, a package, a C source)."""
    path = ROOT.joinpath(*dotted.split("."))
    return (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
            or path.with_suffix(".c").is_file() or path.name == "__main__" and path.parent.is_dir())


def module_prefix(dotted: str) -> bool:
    """Some leading part of ``dotted`` beyond the root is a module (``server.errors.BadRequest``)."""
    parts = dotted.split(".")
    return any(is_module(".".join(parts[:i])) for i in range(2, len(parts) + 1))


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted(f for f in out.split("\0") if f)


def wanted(rel: str) -> bool:
    if rel in SKIP or rel.startswith(SKIP_DIRS) or rel.startswith("bench/data"):
        return False
    p = Path(rel)
    return p.suffix in TEXT_SUFFIXES or p.name in TEXT_NAMES


# ------------------------------------------------------------------- rules
FROM_IMPORT = re.compile(rf"(?<![\w.])from ({R})((?:\.\w+)*) import\b")
IMPORT_LINE = re.compile(rf"^(?P<pre>\s*(?:>>> |\.\.\. |\$ )?)import (?P<mod>{R})(?P<sub>(?:\.\w+)*)"
                         rf"(?P<alias>\s+as\s+\w+)?(?P<rest>\s*(?:#.*)?)$")
DEPRECATED_MSG = re.compile(rf"(is deprecated: import )({R}\.)")
DASH_M = re.compile(rf"(?<![\w-])-m ({R})((?:\.\w+)*)(?![\w-])")
DASH_M_LIST = re.compile(rf"""(["'])-m\1(\s*,\s*)(["'])({R})((?:\.\w+)*)\3""")
QUOTED = re.compile(rf"""(?<![\w./])(["'])({R})((?:\.\w+)+)((?::[\w.]+)?)\1""")
RESOURCES = re.compile(rf"""\b(files|import_module|find_spec)\((["'])({R})\2""")
GETATTR_MSG = re.compile(rf"""(f["'])module '{R}' has no attribute""")
EXC_LINE = re.compile(rf"^(\s*)({R}(?:\.\w+)+)\.([A-Z]\w*): ", re.MULTILINE)


def rewrite_import_lines(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        m = IMPORT_LINE.match(line)
        if not m:
            out.append(line)
            continue
        pre, mod, sub, alias, rest = m["pre"], m["mod"], m["sub"], m["alias"] or "", m["rest"] or ""
        if alias:
            out.append(f"{pre}import {NS}.{mod}{sub}{alias}{rest}")
        elif not sub:
            out.append(f"{pre}from {NS} import {mod}{rest}")
        else:
            binder = f"{pre}from {NS} import {mod}"
            # already bound in the same block of imports just above?
            seen = False
            for prev in reversed(out):
                if not prev.startswith(pre) or not re.match(r"(import|from) ", prev[len(pre):]):
                    break
                if prev == binder or prev.startswith(binder + " ") or prev.startswith(binder + "  #"):
                    seen = True
                    break
            if not seen:
                out.append(binder)
            out.append(f"{pre}import {NS}.{mod}{sub}{rest}")
    return "\n".join(out)


def rewrite_text(rel: str, text: str) -> str:
    is_py = rel.endswith((".py", ".pyi", ".sh"))
    text = FROM_IMPORT.sub(rf"from {NS}.\1\2 import", text)
    text = rewrite_import_lines(text)
    if is_py:
        text = DEPRECATED_MSG.sub(rf"\1{NS}.\2", text)
        text = GETATTR_MSG.sub(r"\1module {__name__!r} has no attribute", text)
    text = DASH_M_LIST.sub(rf"\1-m\1\2\3{NS}.\4\5\3", text)
    text = DASH_M.sub(rf"-m {NS}.\1\2", text)

    def quoted(m: re.Match[str]) -> str:
        dotted = m[2] + m[3]
        # patchwork.v1 (a package) is also the proto package's name: only modules (placement_pb2) move
        ok = (ROOT.joinpath(*dotted.split(".")).with_suffix(".py").is_file() if m[2] == "patchwork"
              else module_prefix(dotted))
        return f"{m[1]}{NS}.{dotted}{m[4]}{m[1]}" if ok else m[0]

    if not rel.endswith(".md"):
        text = QUOTED.sub(quoted, text)
        text = RESOURCES.sub(rf"\1(\2{NS}.\3\2", text)

    def exc(m: re.Match[str]) -> str:
        return f"{m[1]}{NS}.{m[2]}.{m[3]}: " if module_prefix(m[2]) or is_module(m[2]) else m[0]

    text = EXC_LINE.sub(exc, text)
    return text


def rewrite_pyproject(text: str) -> str:
    text = re.sub(r'^version = "0\.1\.\d+"$', f'version = "{VERSION}"', text, flags=re.MULTILINE)
    # packages: setup.py maps them (package_dir); no discovery here
    text = re.sub(r"^\[tool\.setuptools\.packages\.find\]\n(?:[^\[\n].*\n|\n)*", "", text, flags=re.MULTILINE)
    text = re.sub(r"^\[tool\.setuptools\.package-data\]\n(?:[^\[\n].*\n)*", PACKAGE_DATA, text, count=1,
                  flags=re.MULTILINE)

    def mypy_modules(m: re.Match[str]) -> str:
        return re.sub(rf'"({R})(\.\*)?"', rf'"{NS}.\1\2"', m[0])

    text = re.sub(r"^module = \[.*\]$", mypy_modules, text, flags=re.MULTILINE)
    return text


def rewrite_changelog(text: str) -> str:
    if "### Moved imports" in text:
        return text
    head = "## 0.2.0 (unreleased)\n"
    if head not in text:
        text = text.replace("# Changelog\n", f"# Changelog\n\n{head}\n", 1)
    # at the end of the 0.2.0 section (before the next release heading)
    start = text.index(head) + len(head)
    nxt = text.find("\n## ", start)
    end = len(text) if nxt < 0 else nxt + 1
    body = text[start:end].rstrip("\n")
    return text[:start] + body + ("\n\n" if body.strip() else "\n") + CHANGELOG + text[end:]


# -------------------------------------------------------------------- main
def plan() -> dict[str, tuple[str | None, str]]:
    """{relative path: (old text or None for a new file, new text)} of every file to change."""
    changes: dict[str, tuple[str | None, str]] = {}

    def want(rel: str, new: str) -> None:
        path = ROOT / rel
        old = path.read_text() if path.exists() else None
        if old != new:
            changes[rel] = (old, new)

    files = tracked_files()
    for rel in files:
        if not wanted(rel) or not (ROOT / rel).is_file():
            continue
        old = (ROOT / rel).read_text()
        new = rewrite_text(rel, old)
        if rel == "pyproject.toml":
            new = rewrite_pyproject(new)
        for path, a, b in FIXUPS:
            if path == rel and a in new:
                new = new.replace(a, b)
        if rel == "tests/test_packaging.py" and "def test_wheel_installs_one_top_level_name" not in new:
            new = new.replace("\n\n# ---------------------------------------------------------------- Makefile",
                              WHEEL_TEST + "\n\n# ---------------------------------------------------------------- Makefile", 1)
        if rel == "scripts/gen_proto.py":
            new = re.sub(r'^IMPORT_PREFIX = ""$', f'IMPORT_PREFIX = "{NS}."', new, flags=re.MULTILINE)
        if new != old:
            changes[rel] = (old, new)
    want("quiltsolve/__init__.py", INIT)
    want("quiltsolve/py.typed", "")
    want("conftest.py", CONFTEST)
    want("setup.py", SETUP)
    if (ROOT / "CHANGELOG.md").exists():
        want("CHANGELOG.md", rewrite_changelog((ROOT / "CHANGELOG.md").read_text()))
    # the generated stubs: same fix as scripts/gen_proto.py's (run `make proto` / --check to confirm)
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_proto  # noqa: E402

    for rel in files:
        if rel.startswith("patchwork/") and rel.endswith(gen_proto.GENERATED_SUFFIXES):
            old = (ROOT / rel).read_text()
            new = gen_proto.fix_imports(old, f"{NS}.")
            if new != old:
                changes[rel] = (old, new)
    return changes


SUSPECT = re.compile(rf"(?<![\w./-])(?:from {R}[. ]|(?<!from quiltsolve )import {R}\b|-m {R}\b|[\"']{R}(?:\.\w+)*[\"'])")


def leftovers() -> list[str]:
    out = []
    for rel in tracked_files():
        if not wanted(rel) or not (ROOT / rel).is_file():
            continue
        for n, line in enumerate((ROOT / rel).read_text().splitlines(), 1):
            if SUSPECT.search(line):
                out.append(f"{rel}:{n}: {line.strip()[:110]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a rewrite is due")
    parser.add_argument("--leftovers", action="store_true", help="also list lines that still look like old names")
    args = parser.parse_args(argv)
    changes = plan()
    for rel, (old, new) in sorted(changes.items()):
        if old is None:
            print(f"new      {rel}")
        else:
            a, b = old.splitlines(), new.splitlines()
            n = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
            print(f"rewrite  {rel} (~{n} lines)")
        if not args.check:
            path = ROOT / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new)
    print(f"{len(changes)} files {'to change' if args.check else 'changed'}")
    if args.leftovers:
        for line in leftovers():
            print(f"  left: {line}")
    return 1 if args.check and changes else 0


if __name__ == "__main__":
    sys.exit(main())
