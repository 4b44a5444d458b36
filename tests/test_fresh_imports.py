"""Each module of the package imports alone, in a fresh interpreter, without an import cycle.

``tests/test_imports.py`` reads the import graph from the source; this
test runs it. Every module gets its own interpreter (a few at a time), so
an import that only works because another module happened to be loaded
first fails here. While the module loads, a wrapper around
``builtins.__import__`` notes every import statement that asks for a
project module that is still *half run* (its ``__spec__._initializing`` is
set: its code started and has not finished), other than the importer's own
packages, which are always running while it does. Such a request is a
cycle at run time: it works only as long as the half-run module has already
defined what is taken from it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .test_imports import FILES, short_name

ROOT = Path(__file__).resolve().parent.parent
ALONE = ("solver", "engine", "server", "clients", "web", "patchwork")    # every package: each module is 0.3-0.5 s of start-up
WORKERS = min(4, os.cpu_count() or 1)

# Run as ``python -c RUNNER PREFIX MODULE``: import MODULE with the wrapper in
# place and print what it saw as JSON on the last line.
RUNNER = r'''
import builtins, importlib, importlib.util, json, sys
prefix, module = sys.argv[1], sys.argv[2]
real_import = builtins.__import__
seen = {"requests": 0, "half_run": []}

def half_run(name):
    spec = getattr(sys.modules.get(name), "__spec__", None)
    return bool(getattr(spec, "_initializing", False))

def wrapper(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__") or ""
    if importer.startswith(prefix):
        target = importlib.util.resolve_name("." * level + name, globals["__package__"]) if level else name
        wanted = [target] + [f"{target}.{f}" for f in fromlist or () if f != "*"]
        for want in wanted:
            parts = want.split(".")
            for k in range(1, len(parts) + 1):
                asked = ".".join(parts[:k])
                if not asked.startswith(prefix):
                    continue
                seen["requests"] += 1
                own = importer == asked or importer.startswith(asked + ".")
                if not own and half_run(asked) and [importer, asked] not in seen["half_run"]:
                    seen["half_run"].append([importer, asked])
    return real_import(name, globals, locals, fromlist, level)

builtins.__import__ = wrapper
importlib.import_module(module)
builtins.__import__ = real_import
print(json.dumps(seen))
'''


def import_alone(module: str, prefix: str = "quiltsolve.", cwd: Path = ROOT,
                 extra_path: str | None = None) -> dict:
    """Import ``module`` in a fresh interpreter: {"rc", "stderr", "requests", "half_run": [[importer, module]]}."""
    env = dict(os.environ, PYTHONWARNINGS="ignore::DeprecationWarning")
    if extra_path is not None:
        env["PYTHONPATH"] = extra_path
    proc = subprocess.run([sys.executable, "-c", RUNNER, prefix, module], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    out = {"rc": proc.returncode, "stderr": proc.stderr[-2000:], "requests": 0, "half_run": []}
    if proc.returncode == 0:
        out.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def _modules() -> list[str]:
    return sorted("quiltsolve." + name for name in FILES if name.split(".")[0] in ALONE)


def test_each_module_imports_alone_without_a_half_run_module():
    modules = _modules()
    assert "quiltsolve.engine.core" in modules and "quiltsolve.engine.policy" in modules
    with ThreadPoolExecutor(WORKERS) as pool:
        results = dict(zip(modules, pool.map(import_alone, modules)))
    failed = {m: r["stderr"] for m, r in results.items() if r["rc"] != 0}
    assert failed == {}, "\n\n".join(f"{m}:\n{err}" for m, err in failed.items())
    # (a leaf such as solver.limits imports no project module: the wrapper has nothing to see there)
    assert results["quiltsolve.engine.core"]["requests"] > 0 and results["quiltsolve.web.app"]["requests"] > 0, \
        "the wrapper saw no import: is it still installed?"
    cycles = {short_name(m): r["half_run"] for m, r in results.items() if r["half_run"]}
    assert cycles == {}, f"imports of a half-run module (importer, module), per module imported: {cycles}"


def test_the_wrapper_sees_a_half_run_package(tmp_path):
    """The issue's shape: ``core`` imports ``players.greedy`` while ``players/__init__`` (which imports
    ``players.search``, which imports ``core``) is half run. It imports fine; the wrapper must say so."""
    files = {
        "demo/__init__.py": "",
        "demo/core.py": "from .players.greedy import RATE\n",
        "demo/players/__init__.py": "from .greedy import RATE\nfrom .search import SEARCH\n",
        "demo/players/greedy.py": "RATE = 1.0\n",
        "demo/players/search.py": "from .. import core\nSEARCH = core.RATE\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    seen = import_alone("demo.players", prefix="demo.", cwd=tmp_path, extra_path=str(tmp_path))
    assert seen["rc"] == 0, seen["stderr"]
    assert seen["half_run"] == [["demo.core", "demo.players"]]
    # Without the cycle (core takes RATE from a module below the players) it sees none.
    (tmp_path / "demo/rates.py").write_text("RATE = 1.0\n")
    (tmp_path / "demo/core.py").write_text("from .rates import RATE\n")
    seen = import_alone("demo.players", prefix="demo.", cwd=tmp_path, extra_path=str(tmp_path))
    assert seen["rc"] == 0 and seen["requests"] > 0 and seen["half_run"] == []


def loading_under(importtime: str, module: str) -> list[str]:
    """The modules that were running when ``module`` was imported, innermost first, from ``-X importtime``'s
    report (one line per import as it finishes, indented two spaces a level: a line's importer is the next
    line with less indentation)."""
    rows = []
    for line in importtime.splitlines():
        m = re.match(r"import time:\s*\d+ \|\s*\d+ \| ( *)(\S+)$", line)
        if m:
            rows.append((len(m.group(1)), m.group(2)))
    at = next(i for i, (_, name) in enumerate(rows) if name == module)
    depth, out = rows[at][0], []
    for d, name in rows[at + 1:]:
        if d < depth:
            out.append(name)
            depth = d
    return out


def test_the_core_loads_before_the_players_start():
    """``import quiltsolve.engine`` loads the rooms below the players (the policy, the core) before
    ``engine/players/__init__`` starts, not from inside it."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import quiltsolve.engine"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for module in ("quiltsolve.engine.core", "quiltsolve.engine.policy", "quiltsolve.engine._core_py"):
        above = loading_under(proc.stderr, module)
        assert above[-1:] == ["quiltsolve.engine"], (module, above)
        assert "quiltsolve.engine.players" not in above, (module, above)
