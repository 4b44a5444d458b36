"""Opt-in (QUILTSOLVE_SANITIZE=1): scripts/sanitize_core.sh builds the C code with ASan and UBSan and runs the
core's tests against that build (about a minute)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(os.environ.get("QUILTSOLVE_SANITIZE") != "1", reason="opt-in: QUILTSOLVE_SANITIZE=1")
def test_core_tests_pass_under_asan_and_ubsan():
    if shutil.which(os.environ.get("CC", "gcc")) is None:
        pytest.skip("no C compiler")
    env = dict(os.environ, PYTHON=sys.executable)
    res = subprocess.run(["sh", str(ROOT / "scripts" / "sanitize_core.sh")], env=env, capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "sanitize_core: clean" in res.stdout
