"""A real server with the HTTP face on ephemeral ports, shared by the web tests; the browser.

The browser tests need Debian's Chromium (``apt-get install chromium``; ``.ci/run``
installs it) and Playwright for Python (a dev dependency; never ``playwright
install``). Without them they are skipped and the run ends with one line
saying so.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest

from quiltsolve.server import ServerConfig, build_server
from quiltsolve.web import HttpFace

_BROWSER_SKIPS: list[str] = []


@pytest.fixture(scope="session")
def web_server():
    """(QuiltServer, HttpFace) for the whole session: 1 main worker and the fast lane."""
    yield from serving(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=1, grace=1.0))


def serving(config, **face):
    """Generator body of the fixtures: a started server and its HTTP face (``HttpFace(port=0, **face)``),
    stopped afterwards."""
    server, _ = build_server(config)
    server.start()
    face = HttpFace(port=0, **face)
    face.start(server)
    yield server, face
    face.stop()
    face.join(5)
    server.stop(0).wait(5)


@pytest.fixture(scope="session")
def base_url(web_server) -> str:
    return web_server[1].url.rstrip("/")


@pytest.fixture(scope="session")
def http(base_url):
    with httpx.Client(base_url=base_url, timeout=60) as client:
        yield client


# ---------------------------------------------------------------- the browser

def chromium_path() -> str | None:
    """``QUILTSOLVE_CHROMIUM`` (a path, or ``none`` to skip the browser tests), else Debian's chromium."""
    forced = os.environ.get("QUILTSOLVE_CHROMIUM")
    if forced:
        return None if forced.lower() == "none" else forced
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    reason = None
    if path is None:
        reason = "no Chromium on this machine (apt-get install chromium; .ci/run does)"
    else:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            reason = "Playwright for Python is not installed (pip install playwright)"
    if reason:
        if reason not in _BROWSER_SKIPS:
            _BROWSER_SKIPS.append(reason)
        pytest.skip(f"browser tests did not run: {reason}")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory) -> Path:
    """Where the tests' screenshots go: ``QUILTSOLVE_SCREENSHOTS`` (e.g. docs/img), else a temporary folder."""
    target = os.environ.get("QUILTSOLVE_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    for reason in _BROWSER_SKIPS:
        terminalreporter.write_line(f"browser tests did not run: {reason}")
