"""The gRPC clients' channel: gRPC's own retry policy (service config),
round-robin set once, TLS and mutual TLS, the bearer token, and the asyncio
client against a real server."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from quiltsolve.clients import (
    AsyncPlacementClient, EmbeddedClient, InvalidArgument, PlacementClient, ServiceUnavailable, Unauthenticated,
    wire,
)
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pb_grpc
from quiltsolve.solver import SolveStatus

from .conftest import CORNER, EMPTY, run_cli
from ..aio import run_coroutine


# ----------------------------------------------------------- service config
def _config(client) -> dict:
    opts = dict(client._settings.options)
    assert list(dict(client._settings.options)) == [k for k, _ in client._settings.options]  # each set once
    return json.loads(opts["grpc.service_config"])


def test_service_config_retries_unavailable_and_balances_round_robin():
    c = PlacementClient("127.0.0.1:1", retries=3, backoff=0.2)
    cfg = _config(c)
    c.close()
    assert cfg["loadBalancingConfig"] == [{"round_robin": {}}]
    (method,) = cfg["methodConfig"]
    assert method["name"] == [{"service": "patchwork.v1.PlacementService"}]
    policy = method["retryPolicy"]
    assert policy["maxAttempts"] == 4 and policy["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert policy["initialBackoff"] == "0.2s" and policy["backoffMultiplier"] == 2
    # The hand-written loop's switches are gone: gRPC retries by itself.
    names = [k for k, _ in c._settings.options]
    assert "grpc.enable_retries" not in names and "grpc.lb_policy_name" not in names


def test_no_retry_policy_with_zero_retries_and_bad_retries_refused():
    c = PlacementClient("127.0.0.1:1", retries=0)
    assert "methodConfig" not in _config(c)
    c.close()
    for bad in (-1, 5, True, 1.5):
        with pytest.raises(InvalidArgument):
            PlacementClient("127.0.0.1:1", retries=bad)


class _Flaky(pb_grpc.PlacementServiceServicer):
    """ListPatches fails with UNAVAILABLE ``failures`` times, then answers."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0
        self.lock = threading.Lock()

    def ListPatches(self, request, context):
        with self.lock:
            self.calls += 1
            failing = self.calls <= self.failures
        if failing:
            context.abort(grpc.StatusCode.UNAVAILABLE, "warming up")
        return pb.ListPatchesResponse(patches=[pb.Patch(id=0, shape="##", rows=["##"], buttons=2, time=1,
                                                        income=0, area=2)])


def _serve(servicer, credentials=None):
    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_PlacementServiceServicer_to_server(servicer, srv)
    if credentials is None:
        port = srv.add_insecure_port("127.0.0.1:0")
    else:
        port = srv.add_secure_port("127.0.0.1:0", credentials)
    srv.start()
    return srv, port


@pytest.mark.parametrize("failures, retries, ok, calls", [
    (1, 3, True, 2),      # the first call fails UNAVAILABLE, gRPC retries it
    (3, 3, True, 4),
    (4, 3, False, 4),     # one failure more than the retries
    (1, 0, False, 1),     # no retry policy
])
def test_unavailable_is_retried_by_grpc(failures, retries, ok, calls):
    servicer = _Flaky(failures)
    srv, port = _serve(servicer)
    try:
        with PlacementClient(f"127.0.0.1:{port}", deadline=10, retries=retries, backoff=0.01) as c:
            if ok:
                assert [p.id for p in c.list_patches()] == [0]
            else:
                with pytest.raises(ServiceUnavailable, match="warming up"):
                    c.list_patches()
        assert servicer.calls == calls
    finally:
        srv.stop(0)


def test_client_started_before_the_server(closed_port):
    # The first attempts find nothing listening; the server comes up while
    # gRPC is still retrying, and the call succeeds.
    from quiltsolve.server import ServerConfig, build_server

    fast_reconnect = [("grpc.initial_reconnect_backoff_ms", 50), ("grpc.min_reconnect_backoff_ms", 50),
                      ("grpc.max_reconnect_backoff_ms", 100)]
    c = PlacementClient(f"127.0.0.1:{closed_port}", deadline=10, retries=4, backoff=0.3, options=fast_reconnect)
    failed = threading.Event()
    c._channel.subscribe(lambda s: s is grpc.ChannelConnectivity.TRANSIENT_FAILURE and failed.set())
    result: list = []
    t = threading.Thread(target=lambda: result.append(_try(c.list_patches)))
    t.start()
    assert failed.wait(5)  # the first attempt found no server
    srv, port = build_server(ServerConfig(host="127.0.0.1", port=closed_port, warm_up=False, grace=0.0))
    srv.start()
    try:
        t.join(15)
        assert port == closed_port
        assert result and not isinstance(result[0], Exception), result
        assert len(result[0]) == 33
    finally:
        c.close()
        srv.stop(0).wait(5)


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - handed to the asserting thread
        return e


# ---------------------------------------------------------------------- TLS
@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> dict[str, Path]:
    """A CA, a server certificate for 127.0.0.1/localhost and a client
    certificate it signed, plus an unrelated CA; PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    d = tmp_path_factory.mktemp("pki")
    now = datetime.datetime.now(datetime.timezone.utc)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def key() -> ec.EllipticCurvePrivateKey:
        return ec.generate_private_key(ec.SECP256R1())

    def cert(subject: str, k, issuer: str, issuer_key, ca: bool, san=None) -> x509.Certificate:
        b = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
             .public_key(k.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if san:
            b = b.add_extension(x509.SubjectAlternativeName(san), critical=False)
        return b.sign(issuer_key, hashes.SHA256())

    def write(stem: str, k, c) -> None:
        (d / f"{stem}.key").write_bytes(k.private_bytes(serialization.Encoding.PEM,
                                                        serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()))
        (d / f"{stem}.pem").write_bytes(c.public_bytes(serialization.Encoding.PEM))

    ca_key, other_key = key(), key()
    write("ca", ca_key, cert("test ca", ca_key, "test ca", ca_key, True))
    write("other-ca", other_key, cert("other ca", other_key, "other ca", other_key, True))
    sk, ck = key(), key()
    write("server", sk, cert("server", sk, "test ca", ca_key, False,
                             [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]))
    write("client", ck, cert("client", ck, "test ca", ca_key, False, [x509.DNSName("client")]))
    files = {p.stem: p for p in d.glob("*.pem")}
    files.update({p.name: p for p in d.glob("*.key")})
    return files


class _Guarded(pb_grpc.PlacementServiceServicer):
    """ListPatches answers only calls carrying ``authorization: Bearer s3cret``
    (when a token is required); records the peer's client certificate."""

    def __init__(self, token: str | None) -> None:
        self.token = token
        self.seen: list[str | None] = []

    def ListPatches(self, request, context):
        md = dict(context.invocation_metadata())
        self.seen.append(md.get("authorization"))
        if self.token is not None and md.get("authorization") != f"Bearer {self.token}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad or missing bearer token")
        return pb.ListPatchesResponse(patches=[pb.Patch(id=7, shape="#", rows=["#"], buttons=1, time=1, income=0,
                                                        area=1)])


@pytest.fixture()
def tls_server(pki):
    """A TLS server that requires a client certificate signed by the test CA."""
    creds = grpc.ssl_server_credentials([(pki["server.key"].read_bytes(), pki["server"].read_bytes())],
                                        root_certificates=pki["ca"].read_bytes(), require_client_auth=True)
    servicer = _Guarded(token="s3cret")
    srv, port = _serve(servicer, creds)
    yield servicer, port
    srv.stop(0)


def test_mutual_tls_with_token(pki, tls_server):
    servicer, port = tls_server
    with PlacementClient(f"127.0.0.1:{port}", tls=True, ca=pki["ca"], cert=pki["client"], key=pki["client.key"],
                         token="s3cret", deadline=10) as c:
        assert [p.id for p in c.list_patches()] == [7]
    # PEM given as bytes works the same.
    with PlacementClient(f"127.0.0.1:{port}", tls=True, ca=pki["ca"].read_bytes(),
                         cert=pki["client"].read_bytes(), key=pki["client.key"].read_bytes(), token="s3cret",
                         deadline=10) as c:
        assert [p.id for p in c.list_patches()] == [7]
    assert servicer.seen == ["Bearer s3cret", "Bearer s3cret"]


def test_tls_failures(pki, tls_server):
    _, port = tls_server
    target = f"127.0.0.1:{port}"
    common = dict(deadline=3, retries=0)
    # Without a token: the server refuses the call.
    with PlacementClient(target, tls=True, ca=pki["ca"], cert=pki["client"], key=pki["client.key"], **common) as c:
        with pytest.raises(Unauthenticated, match="refused the credentials"):
            c.list_patches()
    # No client certificate, or a server certificate the CA did not sign: no connection.
    for kw in (dict(ca=pki["ca"]), dict(ca=pki["other-ca"], cert=pki["client"], key=pki["client.key"])):
        with PlacementClient(target, tls=True, token="s3cret", **kw, **common) as c:
            with pytest.raises(ServiceUnavailable):
                c.list_patches()
    # Plaintext against a TLS port.
    with PlacementClient(target, token="s3cret", **common) as c:
        with pytest.raises(ServiceUnavailable):
            c.list_patches()


@pytest.mark.parametrize("kw, needle", [
    (dict(ca="ca.pem"), "tls=True"),
    (dict(tls=True, cert="client.pem"), "both cert and key"),
    (dict(tls=True, ca=b"not a certificate"), "not PEM"),
    (dict(tls=True, ca="/nonexistent/ca.pem"), "cannot read"),
    (dict(token="two words"), "bad token"),
    (dict(token=""), "bad token"),
    (dict(options=[("grpc.service_config", "{}")]), "sets grpc.service_config itself"),
])
def test_bad_tls_and_token_arguments(kw, needle):
    with pytest.raises(InvalidArgument, match=needle):
        PlacementClient("127.0.0.1:1", **kw)


def test_cli_tls_and_token_file(pki, tls_server, tmp_path):
    _, port = tls_server
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    base = ["patches", "--json", "--server", f"127.0.0.1:{port}", "--tls", "--ca", str(pki["ca"])]
    client_cert = ["--cert", str(pki["client"]), "--key", str(pki["client.key"])]
    r = run_cli(*base, *client_cert, "--token-file", str(token))
    assert r.code == 0, r.err
    assert [p["id"] for p in r.json()["patches"]] == [7]
    r = run_cli(*base, *client_cert, "--deadline", "3")
    assert r.code == 3 and "refused the credentials" in r.err
    for argv, needle in [(["patches", "--ca", str(pki["ca"])], "--ca needs --server"),
                         (["patches", "--server", "127.0.0.1:1", "--cert", "x"], "--cert needs --tls"),
                         (["patches", "--server", "127.0.0.1:1", "--tls", "--cert", str(pki["client"])],
                          "both cert and key"),
                         (["patches", "--server", "127.0.0.1:1", "--token-file", str(tmp_path)], "directory")]:
        r = run_cli(*argv)
        assert r.code == 2 and needle in r.err and len(r.err.splitlines()) == 1, (argv, r.err)


# ------------------------------------------------------------ asyncio client
def test_async_client_same_methods_as_the_blocking_one():
    import inspect

    for name in ("solve_placement", "suggest_placement", "suggest_move", "solve_puzzle", "list_patches", "close"):
        a, s = getattr(AsyncPlacementClient, name), getattr(PlacementClient, name)
        assert inspect.iscoroutinefunction(a) and not inspect.iscoroutinefunction(s), name
        assert inspect.signature(a) == inspect.signature(s), name
    assert inspect.signature(AsyncPlacementClient.__init__) == inspect.signature(PlacementClient.__init__)


def test_async_client_against_a_real_server(port):
    from quiltsolve import engine

    embedded = EmbeddedClient()
    state = engine.new_game(5).to_json()

    async def calls():
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=20) as c:
            placed, ranked, moves, puzzle, patches = await asyncio.gather(
                c.solve_placement(CORNER, [12, 5, "##./.##"]),
                c.suggest_placement(CORNER, 5, [7, 9], time_limit=2, top=3),
                c.suggest_move(state, iterations=300),
                c.solve_puzzle(["...", "..."], ["##", "##", "##"], count=True),
                c.list_patches())
            with pytest.raises(InvalidArgument):  # checked before sending
                await c.solve_placement(EMPTY, [1], time_limit=100)
            with pytest.raises(InvalidArgument):  # refused by the server
                await c.suggest_move(json.dumps({"edition": "revised"}))
            return placed, ranked, moves, puzzle, patches

    placed, ranked, moves, puzzle, patches = run_coroutine(calls())
    local = embedded.solve_placement(CORNER, [12, 5, "##./.##"])
    assert (placed.status, placed.empty_after) == (SolveStatus.OPTIMAL, local.empty_after) == (local.status, 27)
    assert 1 <= len(ranked.ranked) <= 3 and ranked.ranked[0].placement.key == 5
    assert [m.action for m in moves] == [m.action for m in embedded.suggest_move(state, iterations=300)]
    local_puzzle = embedded.solve_puzzle(["...", "..."], ["##"] * 3, count=True)
    assert (puzzle.count, puzzle.distinct) == (local_puzzle.count, local_puzzle.distinct) == (3, 2)
    assert [p.id for p in patches] == list(range(33))


def test_async_client_unavailable(closed_port):
    async def call():
        c = AsyncPlacementClient(f"127.0.0.1:{closed_port}", deadline=5, retries=1)
        try:
            await c.list_patches()
        finally:
            await c.close()

    with pytest.raises(ServiceUnavailable):
        run_coroutine(call())


def test_one_conversion_module():
    # Both gRPC clients build requests and read answers with clients.wire.
    import quiltsolve.clients.aio_client as aio
    import quiltsolve.clients.grpc_client as sync

    for mod in (aio, sync):
        src = Path(mod.__file__).read_text()
        assert "pb.SolvePlacementRequest" not in src and "RankedPlacement(" not in src
    assert wire.solve_placement_call(EMPTY, [1, 1], "cover", None, 0).request.patches[0].count == 2
