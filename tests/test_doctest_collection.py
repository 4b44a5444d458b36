"""The package's doctests run once each, on the installed modules, with no conftest of ours.

The src layout (src/quiltsolve/) makes this plain pytest: ``--doctest-modules`` names a file by its
package path, ``quiltsolve.server.errors``, the module the editable install imports, so no module is
ever imported a second time under a folder's own name.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("server", "solver", "engine", "clients", "web", "patchwork", "src")

# Runs pytest on package files named on the command line (a folder, a module, an __init__.py), then
# lists the modules imported under a top-level name other than quiltsolve's: there must be none.
PROBE = f"""
import sys, pytest
rc = pytest.main(["-q", "-p", "no:cacheprovider", "src/quiltsolve/server/errors.py",
                  "src/quiltsolve/server/__init__.py", "src/quiltsolve/solver/geometry.py",
                  "src/quiltsolve/engine/state_json.py"])
import quiltsolve.server.errors
print("RC", int(rc))
print("TOP", sorted(m for m in sys.modules if m.split(".")[0] in {FOLDERS!r}))
print("FILE", quiltsolve.server.errors.__file__)
"""


def test_named_package_files_run_their_doctests_on_the_installed_modules_only():
    r = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    assert "RC 0" in lines, r.stdout[-3000:] + r.stderr[-3000:]
    assert "TOP []" in lines, r.stdout[-3000:]
    assert f"FILE {ROOT / 'src' / 'quiltsolve' / 'server' / 'errors.py'}" in lines, r.stdout[-3000:]


def test_each_doctest_is_collected_once_under_its_installed_name():
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "src/quiltsolve/server", "src/quiltsolve/engine/state_json.py"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    items = [line for line in r.stdout.splitlines() if "::" in line]
    assert r.returncode == 0 and items, r.stdout[-3000:] + r.stderr[-3000:]
    assert len(items) == len(set(items))
    assert "src/quiltsolve/server/errors.py::quiltsolve.server.errors.cut" in items
    assert "src/quiltsolve/engine/state_json.py::quiltsolve.engine.state_json.check_state" in items
    assert all(line.split("::")[1].startswith("quiltsolve.") for line in items), items


def test_no_conftest_at_the_root():
    """What the root conftest.py did for the old layout (collect the folders' doctests under their
    installed names) pytest now does itself."""
    assert not (ROOT / "conftest.py").exists()
