"""Package mapping and the optional C search (metadata lives in pyproject.toml).

One top-level name is installed, ``quiltsolve``; its subpackages are the
repository's folders: ``quiltsolve.server`` is server/, and so on
(``package_dir``; every subpackage with an ``__init__.py`` is found, so a new
one needs no change here).

``optional=True``: if the compiler is missing the install still succeeds and
``quiltsolve.solver.puzzle`` falls back to its pure-Python search and frontier counter (same answers,
slower), and
``quiltsolve.engine.core`` to its pure-Python twin (``engine/_core_py.py``), and
``quiltsolve.engine.endgame`` to its pure-Python search (same values, moves and nodes).
"""

import platform

from setuptools import Extension, find_packages, setup

# popcnt is in every x86-64 CPU of the last 15 years (x86-64-v2); elsewhere the builtin's fallback.
CORE_ARCH = ["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []

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
        ),
        Extension(
            "quiltsolve.solver._frontier",
            ["solver/_frontier.c"],
            optional=True,
            extra_compile_args=["-O3"] + CORE_ARCH,
        ),
        Extension(
            "quiltsolve.engine._core",
            ["engine/_core/module.c"],
            depends=["engine/_core/state.h", "engine/_core/policy.h", "engine/_core/search.h",
                     "engine/_core/module_search.inc"],
            optional=True,
            # No FMA contraction: the core's floating point must equal the pure-Python twin's bit for bit.
            extra_compile_args=["-O3", "-ffp-contract=off"] + CORE_ARCH,
        ),
        Extension(
            "quiltsolve.engine._endgame",
            ["engine/_core/endgame.c"],
            depends=["engine/_core/state.h", "engine/_core/policy.h"],
            optional=True,
            extra_compile_args=["-O3"] + CORE_ARCH,
        ),
    ],
)
