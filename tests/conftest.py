"""Shared fixtures. Area-specific fixtures live in each tests/<area>/conftest.py."""

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
