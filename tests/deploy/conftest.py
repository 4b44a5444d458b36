"""Fixtures of the deployment tests: the repository's deploy/ files, parsed."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
# kustomize_lite.py and deploy_helpers.py are imported by name from these tests
sys.path.insert(0, str(HERE))

from deploy_helpers import REPO, Dockerfile  # noqa: E402


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def dockerfile() -> Dockerfile:
    return Dockerfile.parse(REPO / "deploy" / "Dockerfile")
