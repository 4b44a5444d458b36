"""Shared fixtures. Area-specific fixtures live in each tests/<area>/conftest.py."""

import os
import subprocess
from pathlib import Path

import pytest

# The suite checks English output (the README's examples, the doctests, the web app's English pages): whatever
# the developer's locale, gettext (quiltsolve.clients.i18n) and the browsers it starts speak English here,
# unless a test asks for a language in the environment it passes on. (Collected first, tests/ sets it for the
# package's doctests too.)
os.environ["LANGUAGE"] = "en"

DATA = Path(__file__).parent / "data"

# Files whose tests time a call against its limit, stop a search on a deadline or kill workers under load:
# `make test` runs them alone after the parallel pass (marker `serial`), so that the other process's load cannot
# make a limit look missed. Paths relative to tests/.
SERIAL_FILES = frozenset({
    "engine/test_analysis.py",
    "puzzle/test_limits.py",
    "search/test_search_report.py",
    "server/test_analyze_position.py",
    "server/test_capacity.py",
    "server/test_load.py",
    "server/test_solve_position.py",
    "server/test_worker_loss.py",
    "solver/test_limits.py",
    "web/test_browser_live.py",
})


def pytest_collection_modifyitems(config, items):
    root = Path(__file__).parent
    for item in items:
        try:
            rel = item.path.relative_to(root).as_posix()
        except ValueError:
            continue
        if rel in SERIAL_FILES:
            item.add_marker(pytest.mark.serial)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def golden_record():
    """``golden_record(line=0, moves=None)``: a golden game's record (tests/data), without its result,
    cut to its first ``moves`` moves when given."""
    import json

    lines = (DATA / "golden-games.jsonl").read_text().splitlines()

    def make(line: int = 0, moves: int | None = None) -> dict:
        rec = json.loads(lines[line])
        rec.pop("result")
        if moves is not None:
            rec["actions"] = rec["actions"][:moves]
        return rec

    return make


@pytest.fixture
def serve():
    """``serve(**ServerConfig fields) -> (server, port)``: small started servers, stopped afterwards."""
    from quiltsolve.server import ServerConfig, build_server

    made = []

    def start(**kw):
        server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, **kw))
        server.start()
        made.append(server)
        return server, port

    yield start
    for server in made:
        server.stop(0).wait(5)


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def make_certs():
    """``make_certs(dir, san, names=("server",))``: a CA (``ca.pem``/``ca.key``) and, per name,
    ``NAME.pem``/``NAME.key`` signed by it for the subjectAltName ``san``, made with openssl."""
    def make(d: Path, san: str, names=("server",), ca_name: str = "quiltsolve test CA") -> Path:
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                 "-days", "2", "-subj", f"/CN={ca_name}", cwd=d)
        (d / "san.ext").write_text(f"subjectAltName={san}\n")
        for name in names:
            _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                     "-subj", f"/CN={name}", cwd=d)
            _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                     "-out", f"{name}.pem", "-days", "2", "-extfile", "san.ext", cwd=d)
        return d
    return make
