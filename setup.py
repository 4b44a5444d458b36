"""Builds the optional C search used by ``solver.puzzle`` (metadata lives in pyproject.toml).

``optional=True``: if the compiler is missing the install still succeeds and
``solver.puzzle`` falls back to its pure-Python search (same answers, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "solver._exactcover",
            ["solver/_exactcover.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
