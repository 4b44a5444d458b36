"""deploy/build-image.sh with a stand-in container CLI (no podman needed): the arguments it passes,
and the relative paths a user gives it (CONTAINERS_CONF=deploy/containers-sandbox.conf, as
docs/deploy.md says) made absolute before it moves to the repository, since buildah's copier
refuses a relative CONTAINERS_CONF."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from deploy_helpers import REPO

SCRIPT = REPO / "deploy" / "build-image.sh"

# records each call (its arguments, cwd and the variables buildah would read) as a JSON line;
# `image inspect` finds no base image, and prints a size when asked for one
STUB = """#!/usr/bin/env python3
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(),
                        "CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF")}) + "\\n")
if sys.argv[1:3] == ["image", "inspect"]:
    if "--format" in sys.argv:
        print(123456789)
        sys.exit(0)
    sys.exit(1)
"""


def _run(tmp_path: Path, cwd: Path, **env: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    (tmp_path / "bin").mkdir(exist_ok=True)
    stub = tmp_path / "bin" / "podman"  # by that name: the script adds podman's own options
    stub.write_text(STUB)
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "calls.jsonl"
    full = {k: v for k, v in os.environ.items() if k not in ("CONTAINERS_CONF", "PIP_CA", "PIP_CERT", "BASE",
                                                           "BUILD_BASE", "EXTRA_BUILD_ARGS")}
    full.update(ENGINE="podman", PATH=f"{stub.parent}:{os.environ['PATH']}", STUB_LOG=str(log), **env)
    res = subprocess.run(["bash", str(SCRIPT.relative_to(cwd) if cwd == REPO else SCRIPT), "localhost/q:test"],
                         cwd=cwd, env=full, capture_output=True, text=True, timeout=60)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return res, calls


def test_a_relative_containers_conf_and_ca_are_made_absolute(tmp_path):
    # as a new user types it, from the repository's root
    res, calls = _run(tmp_path, REPO, CONTAINERS_CONF="deploy/containers-sandbox.conf",
                      PIP_CA="deploy/containers-sandbox.conf")
    assert res.returncode == 0, res.stderr
    (build,) = [c for c in calls if c["argv"][0] == "build"]
    assert build["CONTAINERS_CONF"] == str(REPO / "deploy" / "containers-sandbox.conf")
    assert f"id=pip-ca,src={REPO / 'deploy' / 'containers-sandbox.conf'}" in build["argv"]
    assert build["cwd"] == str(REPO) and build["argv"][-1] == "."
    assert build["argv"][:5] == ["build", "-f", "deploy/Dockerfile", "-t", "localhost/q:test"]
    assert "--format" in build["argv"] and "docker" in build["argv"]  # HEALTHCHECK kept
    assert "image size: 123 MB" in res.stdout


def test_relative_paths_are_taken_from_where_the_script_is_run(tmp_path):
    # from another directory: the path is the caller's, not the repository's
    work = tmp_path / "work"
    work.mkdir()
    (work / "my.conf").write_text("[engine]\n")
    res, calls = _run(tmp_path, work, CONTAINERS_CONF="my.conf")
    assert res.returncode == 0, res.stderr
    (build,) = [c for c in calls if c["argv"][0] == "build"]
    assert build["CONTAINERS_CONF"] == str(work / "my.conf")


def test_a_missing_file_is_named_before_anything_runs(tmp_path):
    res, calls = _run(tmp_path, REPO, CONTAINERS_CONF="deploy/no-such.conf")
    assert res.returncode == 2
    assert "CONTAINERS_CONF=deploy/no-such.conf: no such file" in res.stderr
    assert calls == []
