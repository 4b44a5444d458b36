"""The optional C extensions (metadata and the package list live in pyproject.toml).

One top-level name is installed, ``quiltsolve``, from ``src/quiltsolve/``
(every subpackage with an ``__init__.py`` is found, so a new one needs no
change here).

``optional=True``: if the compiler is missing the install still succeeds and
``quiltsolve.solver.puzzle`` falls back to its pure-Python search and frontier counter (same answers,
slower), and
``quiltsolve.engine.core`` to its pure-Python twin (``engine/_core_py.py``), and
``quiltsolve.engine.endgame`` to its pure-Python search (same values, moves and nodes).
"""

import platform

from setuptools import Extension, setup

# popcnt is in every x86-64 CPU of the last 15 years (x86-64-v2); elsewhere the builtin's fallback.
CORE_ARCH = ["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []

SRC = "src/quiltsolve"

setup(
    ext_modules=[
        Extension(
            "quiltsolve.solver._exactcover",
            [f"{SRC}/solver/_exactcover.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "quiltsolve.solver._frontier",
            [f"{SRC}/solver/_frontier.c"],
            optional=True,
            extra_compile_args=["-O3"] + CORE_ARCH,
        ),
        Extension(
            "quiltsolve.engine._core",
            [f"{SRC}/engine/_core/module.c"],
            depends=[f"{SRC}/engine/_core/{name}" for name in ("state.h", "policy.h", "search.h", "module_search.inc")],
            optional=True,
            # No FMA contraction: the core's floating point must equal the pure-Python twin's bit for bit.
            extra_compile_args=["-O3", "-ffp-contract=off"] + CORE_ARCH,
        ),
        Extension(
            "quiltsolve.engine._endgame",
            [f"{SRC}/engine/_core/endgame.c"],
            depends=[f"{SRC}/engine/_core/{name}" for name in ("state.h", "policy.h")],
            optional=True,
            extra_compile_args=["-O3"] + CORE_ARCH,
        ),
    ],
)
