"""Which code a benchmark's server runs: this checkout, or another one (``--against``), side by side.

``python -m bench service --against PATH`` (and ``bench spine``) measure this checkout and the one at
``PATH`` (a worktree or checkout of an older commit) in the same run, alternately, and print both.
``--against REV`` (a commit, a tag, a branch) makes that checkout here: a temporary ``git worktree``
with its C extensions built in place (``setup.py build_ext --inplace``), removed afterwards.

The other checkout runs with this interpreter and this virtual environment's packages; only the
``quiltsolve`` package comes from it: a process started for it (:meth:`Code.env`, :meth:`Code.cwd`)
finds that checkout's package first on ``sys.path``, and so do its worker processes. A checkout
without its C extensions (``*.so`` beside its C sources) runs their pure-Python twins, slower:
:meth:`Code.missing_extensions` says which, and the benchmarks print it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(root: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def package_root(root: Path) -> Path:
    """The folder that holds a checkout's ``quiltsolve`` package: ``src/`` or the checkout itself."""
    for candidate in (root / "src", root):
        if (candidate / "quiltsolve" / "__init__.py").is_file():
            return candidate
    raise SystemExit(f"--against: no quiltsolve package in {root} (looked in src/quiltsolve and quiltsolve)")


def _extensions(pkg: Path) -> dict[str, bool]:
    """Each C source of a checkout's package (by its path under the package) and whether it is built."""
    roots = [pkg / "quiltsolve"] if (pkg / "quiltsolve" / "solver").is_dir() else [pkg]
    found = {}
    for base in roots:
        for c_dir in ("solver", "engine"):
            folder = base / c_dir
            if not folder.is_dir():
                continue
            built = {p.name.split(".")[0] for p in folder.glob("*.so")}
            for src in sorted(folder.glob("_*.c")):
                found[f"{c_dir}/{src.stem}"] = src.stem in built
            if (folder / "_core" / "module.c").is_file():
                found[f"{c_dir}/_core"] = "_core" in built
            if (folder / "_core" / "endgame.c").is_file():
                found[f"{c_dir}/_endgame"] = "_endgame" in built
    return found


@dataclass
class Code:
    """One checkout a benchmark runs: its label (``new``, ``old``), folder, package folder and commit."""

    label: str
    root: Path
    pkg_root: Path
    rev: str
    temporary: bool = False

    @classmethod
    def here(cls, label: str = "new") -> "Code":
        import quiltsolve

        pkg = Path(quiltsolve.__file__).resolve().parent.parent
        rev = _git(ROOT, "rev-parse", "--short", "HEAD") or "?"
        if _git(ROOT, "status", "--porcelain", "--untracked-files=no"):
            rev += "+changes"
        return cls(label, ROOT, pkg, rev)

    @classmethod
    def against(cls, where: str, label: str = "old") -> "Code":
        """The checkout at ``where`` (a folder), or one made here of the commit ``where`` names."""
        path = Path(where).expanduser()
        if path.is_dir():
            root = path.resolve()
            rev = _git(root, "rev-parse", "--short", "HEAD") or "?"
            return cls(label, root, package_root(root), rev)
        rev = _git(ROOT, "rev-parse", "--short", "--verify", f"{where}^{{commit}}")
        if not rev:
            raise SystemExit(f"--against {where!r}: neither a folder nor a commit of {ROOT}")
        root = Path(tempfile.mkdtemp(prefix=f"quiltsolve-{rev}-"))
        out = subprocess.run(["git", "worktree", "add", "--detach", str(root), rev], cwd=ROOT,
                             capture_output=True, text=True)
        if out.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            raise SystemExit(f"--against {where!r}: git worktree add failed: {out.stderr.strip()}")
        code = cls(label, root, package_root(root), rev, temporary=True)
        print(f"(--against {where}: a worktree of {rev} in {root}; building its C extensions)", flush=True)
        built = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=root,
                               capture_output=True, text=True)
        if built.returncode != 0:
            print(f"(building them failed; it runs pure Python: {built.stderr.strip()[-300:]})", flush=True)
        return code

    def cwd(self) -> Path:
        """Where a process for this code starts: ``python -m`` puts this folder first on ``sys.path``."""
        return self.pkg_root

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: this process's environment) with this code's package first on the path."""
        env = dict(os.environ if base is None else base)
        env["PYTHONPATH"] = os.pathsep.join([str(self.pkg_root)] + [p for p in env.get("PYTHONPATH", "").split(
            os.pathsep) if p])
        return env

    def missing_extensions(self) -> list[str]:
        return [name for name, built in _extensions(self.pkg_root).items() if not built]

    def describe(self) -> str:
        missing = self.missing_extensions()
        note = f"; NOT BUILT, pure Python instead: {', '.join(missing)}" if missing else ""
        return f"{self.label} = {self.rev} ({self.root}{note})"

    def close(self) -> None:
        """Remove a temporary worktree made for ``--against REV``."""
        if self.temporary:
            subprocess.run(["git", "worktree", "remove", "--force", str(self.root)], cwd=ROOT,
                           capture_output=True, text=True)
            shutil.rmtree(self.root, ignore_errors=True)
            self.temporary = False


def median(values: list[float]) -> float:
    values = sorted(v for v in values if v == v)
    if not values:
        return float("nan")
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
