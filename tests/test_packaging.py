"""Packaging: ranges in pyproject.toml, exact pins in constraints.txt that fit
them, supported Pythons, console scripts and ``python -m`` entry points,
py.typed markers in the wheel, and the Makefile's interpreter stamp."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
BIN = Path(sys.executable).parent


def _constraints() -> dict[str, list[Requirement]]:
    out: dict[str, list[Requirement]] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            out.setdefault(canonicalize_name(req.name), []).append(req)
    return out


CONSTRAINTS = _constraints()
DIRECT = [Requirement(r) for r in PROJECT["dependencies"]]
DEV = [Requirement(r) for r in PROJECT["optional-dependencies"]["dev"]]


def _pin(req: Requirement, env: dict[str, str] | None = None) -> Version:
    """The exact version constraints.txt gives ``req`` (for this environment)."""
    pins = [c for c in CONSTRAINTS.get(canonicalize_name(req.name), [])
            if c.marker is None or c.marker.evaluate(env)]
    assert len(pins) == 1, f"{req.name}: {len(pins)} pins in constraints.txt for this environment"
    (spec,) = pins[0].specifier
    assert spec.operator == "==", f"{req.name}: constraints.txt must pin an exact version, not {spec}"
    return Version(spec.version)


def test_every_constraint_is_an_exact_pin():
    for name, reqs in CONSTRAINTS.items():
        for req in reqs:
            specs = list(req.specifier)
            assert len(specs) == 1 and specs[0].operator == "==", f"{req}: not an exact pin"


@pytest.mark.parametrize("python", ["3.11", "3.12", "3.13"])
@pytest.mark.parametrize("req", DIRECT + DEV, ids=str)
def test_direct_dependency_pinned_inside_its_range(req, python):
    assert req.specifier, f"{req.name}: pyproject.toml needs a range, e.g. >=X,<Y"
    assert any(s.operator in ("<", "<=", "~=", "==") for s in req.specifier), f"{req}: no upper bound"
    env = dict(default_environment(), python_version=python, python_full_version=f"{python}.0")
    pin = _pin(req, env)
    assert pin in req.specifier, f"{req.name}=={pin} in constraints.txt is outside {req.specifier}"


def test_grpcio_pins_are_one_version():
    versions = {name: _pin(Requirement(name)) for name in CONSTRAINTS if name.startswith("grpcio")}
    assert {"grpcio", "grpcio-tools", "grpcio-health-checking", "grpcio-reflection"} <= set(versions)
    assert len(set(versions.values())) == 1, versions


def test_ortools_protobuf_pins():
    # ortools refuses protobuf 7, and newer grpcio-tools need it.
    assert _pin(Requirement("protobuf")) in SpecifierSet(">=6.33.5,<6.34")
    assert _pin(Requirement("ortools")).major == 9


def _installed_closure() -> dict[str, str]:
    """Every distribution ``quiltsolve[dev]`` needs here, with its installed version."""
    found: dict[str, str] = {}
    todo: list[tuple[str, frozenset[str]]] = [("quiltsolve", frozenset({"dev"}))]
    while todo:
        name, extras = todo.pop()
        for text in metadata.distribution(name).requires or []:
            req = Requirement(text)
            if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
                continue
            key = canonicalize_name(req.name)
            if key not in found:
                found[key] = metadata.version(req.name)
                todo.append((req.name, frozenset(req.extras)))
    return found


def test_everything_installed_is_pinned():
    # Direct and transitive: constraints.txt pins the whole environment.
    for name, version in _installed_closure().items():
        assert name in CONSTRAINTS, f"{name} ({version}) is installed but not pinned in constraints.txt"
        assert Version(version) == _pin(Requirement(name)), name


def test_installed_versions_are_the_pins():
    for req in DIRECT + DEV:
        assert Version(metadata.version(req.name)) == _pin(req), req.name


def test_supported_pythons():
    spec = SpecifierSet(PROJECT["requires-python"])
    assert spec == SpecifierSet(">=3.11,<3.14")
    assert all(v in spec for v in ("3.11.0", "3.12.0", "3.13.9")) and "3.10.9" not in spec and "3.14.0" not in spec
    assert f"{sys.version_info.major}.{sys.version_info.minor}.0" in spec
    listed = {c.rsplit(" ", 1)[1] for c in PROJECT["classifiers"] if re.fullmatch(r".*:: 3\.\d+", c)}
    assert listed == {"3.11", "3.12", "3.13"}


# ------------------------------------------------------------ entry points
SCRIPTS = {"suggest": "quiltsolve.clients.cli:main", "quiltsolve-server": "quiltsolve.server.__main__:main",
           "quiltsolve-engine": "quiltsolve.engine.__main__:main", "quiltsolve-web": "quiltsolve.web.__main__:main"}


def test_console_scripts_declared_and_installed():
    assert PROJECT["scripts"] == SCRIPTS
    installed = {e.name: e.value for e in metadata.entry_points(group="console_scripts")
                 if e.dist is not None and e.dist.name == "quiltsolve"}
    assert installed == SCRIPTS


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_console_script_help(script):
    exe = BIN / script
    if not exe.exists():
        pytest.skip(f"{script} is not installed next to {sys.executable}")
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout


def test_suggest_version_is_the_package_version():
    r = subprocess.run([sys.executable, "-m", "quiltsolve.clients.cli", "--version"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == f"suggest (quiltsolve) {metadata.version('quiltsolve')}"


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_bench_help_lists_every_benchmark():
    r = _bench("--help")
    assert r.returncode == 0, r.stderr
    names = sorted(p.stem.removeprefix("bench_") for p in (ROOT / "bench").glob("bench_*.py"))
    listed = [line.split()[0] for line in r.stdout.split("benchmarks:")[1].strip().splitlines()]
    assert listed == names


@pytest.mark.parametrize("name", sorted(p.stem.removeprefix("bench_") for p in (ROOT / "bench").glob("bench_*.py")))
def test_bench_name_help_does_not_run_it(name):
    r = _bench(name, "--help")
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout and "===" not in r.stdout     # the runner's banner: it did not run


def test_bench_unknown_name_and_options_for_a_bench_without_any():
    assert _bench("nope").returncode == 2
    r = _bench("puzzle", "--quick")
    assert r.returncode == 2 and "takes no options" in r.stderr


# ------------------------------------------------------------------ typing
def test_py_typed_markers_are_package_data():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for pkg in ("clients", "solver", "engine"):
        assert "py.typed" in data[f"quiltsolve.{pkg}"], pkg
        assert (ROOT / "src" / "quiltsolve" / pkg / "py.typed").is_file(), pkg


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The project's wheel, built from a copy of the files git tracks (a ``build/`` folder left in the
    working tree by an older layout would otherwise leak stale files into it)."""
    pytest.importorskip("setuptools", reason="building without isolation needs setuptools in this venv")
    src = tmp_path_factory.mktemp("src")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (built,) = out.glob("quiltsolve-*.whl")
    (out / "build-output.txt").write_text(r.stdout + r.stderr)
    return built


def test_the_wheel_builds_without_a_warning(wheel):
    """Every data folder is declared (a first-time ``make test`` printed six setuptools blocks,
    "Package 'quiltsolve.engine._core' is absent from the `packages` configuration")."""
    output = (wheel.parent / "build-output.txt").read_text()
    assert "Warning" not in output and "absent from the `packages`" not in output, output[-2000:]


def test_the_wheel_carries_the_c_sources_beside_their_extensions(wheel):
    """Package data comes from the package-data table alone (include-package-data is off): the C
    sources the sdist scan used to add are named there."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("quiltsolve/solver/_exactcover.c", "quiltsolve/solver/_frontier.c",
                 "quiltsolve/engine/_core/module.c", "quiltsolve/engine/_core/state.h",
                 "quiltsolve/web/static/js/review.js", "quiltsolve/web/static/css/app.css"):
        assert name in names, name


def test_the_editable_build_warns_of_nothing(tmp_path):
    """``make venv``'s editable install prints no setuptools warning: with the src layout no folder
    beside pyproject.toml looks like a package that shadows the installed one, so nothing is quieted."""
    pytest.importorskip("setuptools", reason="calling the backend needs setuptools in this venv")
    src = tmp_path / "src"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    code = ("import json, sys, warnings\n"
            "from setuptools import build_meta\n"
            "with warnings.catch_warnings(record=True) as seen:\n"
            "    warnings.simplefilter('always')\n"
            "    build_meta.build_editable(sys.argv[1])\n"
            "print(json.dumps([str(w.message).split(chr(10))[0] for w in seen]))\n")
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == []
    assert "PYTHONWARNINGS" not in (ROOT / "Makefile").read_text()


def test_wheel_carries_py_typed_and_entry_points(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for pkg in ("clients", "solver", "engine"):
        assert f"quiltsolve/{pkg}/py.typed" in names
    assert "quiltsolve/solver/limits.py" in names and "quiltsolve/clients/aio_client.py" in names
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry).decode()
    assert "quiltsolve-engine = quiltsolve.engine.__main__:main" in text


def test_wheel_installs_one_top_level_name(wheel):
    """The wheel puts exactly one name into site-packages: ``quiltsolve`` (and its .dist-info)."""
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


OLD_ROOTS = {"server", "solver", "engine", "clients", "web", "patchwork", "src"}


def test_no_import_uses_an_old_top_level_name():
    """Every absolute import names ``quiltsolve.server`` ..., never a folder's own name (the layout
    before src/quiltsolve/) nor ``src``."""
    import ast

    bad = []
    for folder in ("src", "tests", "bench", "scripts", "deploy"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                         else [])
                bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                        if n.split(".")[0] in OLD_ROOTS]
    assert bad == []


# ---------------------------------------------------------------- Makefile
def _py_id() -> str:
    v = ".".join(map(str, sys.version_info[:3]))
    return f"{sys.implementation.name}-{v}-{hashlib.sha1(sys.base_prefix.encode()).hexdigest()[:8]}"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_makefile_stamp_names_the_interpreter(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()

    def up_to_date() -> bool:
        r = subprocess.run(["make", "-q", "venv", f"VENV={venv}", f"PYTHON={sys.executable}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode in (0, 1), r.stderr
        return r.returncode == 0

    assert not up_to_date()                                   # nothing installed yet
    (venv / ".installed-cpython-3.10.0-0badc0de").touch()    # made by another python
    assert not up_to_date()
    stamp = venv / f".installed-{_py_id()}"
    stamp.touch()
    inputs = [ROOT / "pyproject.toml", ROOT / "constraints.txt", ROOT / "setup.py",
              *ROOT.glob("src/quiltsolve/solver/*.c"), *ROOT.glob("src/quiltsolve/engine/_core/*")]
    newest = max(f.stat().st_mtime for f in inputs)
    os.utime(stamp, (newest + 1, newest + 1))
    assert up_to_date()                                       # made by this python: nothing to do
    dry = subprocess.run(["make", "-n", "venv", f"VENV={venv}", "PYTHON=python3.99-missing"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode != 0 and "not a working Python interpreter" in dry.stderr


def test_makefile_rebuilds_a_venv_of_another_python():
    text = (ROOT / "Makefile").read_text()
    recipe = text.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "rm -rf $(VENV)" in recipe and "$(PY_ID)" in recipe and "-c constraints.txt" in recipe
