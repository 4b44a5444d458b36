"""The root conftest.py: the package folders' doctests run once each, on the installed modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("server", "solver", "engine", "clients", "web", "patchwork")

# Runs pytest on package files named on the command line (a folder, a module, an __init__.py), then
# lists the modules imported under a folder's own top-level name: there must be none.
PROBE = f"""
import sys, pytest
rc = pytest.main(["-q", "-p", "no:cacheprovider", "server/errors.py", "server/__init__.py", "solver/geometry.py",
                  "engine/state_json.py"])
print("RC", int(rc))
print("TOP", sorted(m for m in sys.modules if m.split(".")[0] in {FOLDERS!r}))
"""


def test_named_package_files_run_their_doctests_on_the_installed_modules_only():
    r = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    assert "RC 0" in lines, r.stdout[-3000:] + r.stderr[-3000:]
    assert "TOP []" in lines, r.stdout[-3000:]


def test_each_doctest_is_collected_once_under_its_installed_name():
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "server", "engine/state_json.py"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    items = [line for line in r.stdout.splitlines() if "::" in line]
    assert r.returncode == 0 and items, r.stdout[-3000:] + r.stderr[-3000:]
    assert len(items) == len(set(items))
    assert "server/errors.py::quiltsolve.server.errors.cut" in items
    assert "engine/state_json.py::quiltsolve.engine.state_json.check_state" in items
    assert all(line.split("::")[1].startswith("quiltsolve.") for line in items), items
