"""The HTTP face secured like the gRPC face: HTTPS, client certificates, bearer tokens, rate limit, proxies, CORS."""

from __future__ import annotations

import json
import signal
import ssl
import threading
from pathlib import Path

import anyio
import httpx
import pytest

from quiltsolve import engine
from quiltsolve.server import ServerConfig
from quiltsolve.server import positions as web_positions
from quiltsolve.web.__main__ import build_web_parser, security_from_args
from quiltsolve.web.app import ENDPOINTS, create_app
from quiltsolve.web.security import OPEN_PATHS, HttpSecurity, RateLimiter, client_key, parse_networks

from .conftest import serving
from .test_api import MIDGAME, SOLVE
from .test_serve import start_web, stop_web

TOKENS = ("s3cret", "next-one")
GOOD = {"Authorization": "Bearer s3cret"}


@pytest.fixture(scope="module")
def pki(tmp_path_factory, make_certs) -> Path:
    """A CA, a server certificate for 127.0.0.1 / localhost and a client certificate."""
    return make_certs(tmp_path_factory.mktemp("webpki"), "IP:127.0.0.1,DNS:localhost", ("server", "client"))


def tls_context(pki: Path, client_cert: bool = False) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    if client_cert:
        ctx.load_cert_chain(str(pki / "client.pem"), str(pki / "client.key"))
    return ctx


@pytest.fixture(scope="module")
def secure(pki):
    """A server with TLS and tokens on both faces."""
    yield from serving(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, grace=0.5,
                                    tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"),
                                    auth_tokens=TOKENS))


@pytest.fixture(scope="module")
def https(secure, pki):
    with httpx.Client(base_url=secure[1].url.rstrip("/"), verify=tls_context(pki), timeout=60) as client:
        yield client


def minimal_bodies(https) -> dict[str, dict | None]:
    """A valid small body for every endpoint (None: a GET), keyed by path."""
    state = web_positions.to_mapping(engine.new_game(1))
    record = https.post("/api/v1/game/new", json={"seed": 1}, headers=GOOD).json()["record"]
    v1 = "/api/v1"
    return {
        f"{v1}/patches": None,
        f"{v1}/solve-placement": SOLVE,
        f"{v1}/suggest-placement": {"board": {"rows": MIDGAME}, "patch": {"id": 5}, "objective": "OBJECTIVE_COVER",
                                    "top": 1, "time_limit": "0.1s", "seed": 0},
        f"{v1}/suggest-move": {"state": state, "iterations": 10, "top": 1, "seed": 0},
        f"{v1}/analyze-position": {"state": state, "iterations": 10, "top": 1, "seed": 0},
        f"{v1}/solve-position": {"state": state, "time_limit": "0.1s"},
        f"{v1}/solve-puzzle": {"region": {"rows": ["."]}, "pieces": ["#"], "mode": "PUZZLE_MODE_FIND"},
        f"{v1}/generate-puzzle": {"height": 5, "width": 5, "family": "PIECE_FAMILY_TETROMINOES", "seed": 0},
        f"{v1}/analyze-game": {"record": {"edition": "EDITION_REVISED", "circle": record["circle"],
                                          "actions": ["advance"]}, "iterations": 5, "seed": 0},
        f"{v1}/game/new": {"seed": 2},
        f"{v1}/game/load": {"text": json.dumps(engine.new_game(3).to_json())},
        f"{v1}/game/view": {"state": state},
        f"{v1}/game/legal": {"state": state},
        f"{v1}/game/apply": {"state": state, "move": "advance"},
        f"{v1}/game/engine-move": {"state": state, "strength": "greedy"},
        f"{v1}/game/replay": {"record": {**record, "actions": ["advance"]}},
        f"{v1}/game/notation": {"state": state},
    }


def _send(client: httpx.Client, method: str, path: str, body, headers=None) -> httpx.Response:
    return client.request(method, path, json=body, headers=headers) if body is not None else \
        client.request(method, path, headers=headers)


def unauthenticated(r: httpx.Response) -> dict:
    assert r.status_code == 401, (r.request.url, r.status_code, r.text)
    assert r.headers["www-authenticate"].startswith("Bearer ")
    assert r.headers["x-content-type-options"] == "nosniff"
    err = r.json()["error"]
    assert err["code"] == "UNAUTHENTICATED" and "token" in err["message"]
    return err


# ---------------------------------------------------------------- tokens

def test_every_api_endpoint_needs_a_token_and_works_with_one(https, secure):
    bodies = minimal_bodies(https)
    metrics = secure[0].metrics
    checked = []
    for e in ENDPOINTS:
        if e.path in OPEN_PATHS:
            continue
        assert e.path in bodies, f"no test body for {e.method} {e.path}: add one to minimal_bodies"
        body = bodies[e.path]
        labels = {"grpc_type": "server_stream" if e.streaming else "unary", "grpc_method": e.name,
                  "grpc_service": "patchwork.v1.GameService" if "game" in e.tags else "patchwork.v1.PlacementService",
                  "grpc_code": "UNAUTHENTICATED"}
        before = metrics.value("grpc_server_handled_total", **labels)
        unauthenticated(_send(https, e.method, e.path, body))
        wrong = _send(https, e.method, e.path, body, {"Authorization": "Bearer s3cret-not"})
        unauthenticated(wrong)
        assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
        unauthenticated(_send(https, e.method, e.path, body, {"Authorization": "s3cret"}))  # no scheme
        after = metrics.value("grpc_server_handled_total", **labels)
        assert after == before + 3, e.path  # counted (and logged) like any refused call
        r = _send(https, e.method, e.path, body, GOOD)
        assert r.status_code == 200, (e.path, r.text)
        r = _send(https, e.method, e.path, body, {"Authorization": "bearer next-one"})  # every token, any case
        assert r.status_code == 200, (e.path, r.text)
        checked.append(e.path)
    assert len(checked) == len(ENDPOINTS) - 1  # all but healthz
    # Unknown paths and wrong methods under /api/ say nothing without a token.
    unauthenticated(https.post("/api/v1/solve-everything", json={}))
    unauthenticated(https.get("/api/v1/solve-placement"))
    assert https.post("/api/v1/solve-everything", json={}, headers=GOOD).status_code == 404


def test_health_openapi_and_the_app_stay_open(https):
    r = https.get("/api/v1/healthz")
    assert r.status_code == 200 and r.json() == {"status": "SERVING", "auth_required": True}
    doc = https.get("/api/openapi.json")
    assert doc.status_code == 200 and doc.json()["openapi"].startswith("3.")
    assert doc.json()["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert doc.json()["paths"]["/api/v1/healthz"]["get"]["security"] == []
    assert "401" in doc.json()["paths"]["/api/v1/solve-placement"]["post"]["responses"]
    for path in ("/", "/js/api.js", "/css/app.css", "/favicon.svg"):
        r = https.get(path)
        assert r.status_code == 200, path
    assert "content-security-policy" in https.get("/").headers


def test_grpc_takes_the_same_tokens_over_the_same_tls(secure, pki):
    import grpc

    from quiltsolve.patchwork.v1 import placement_pb2 as pb
    from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg

    creds = grpc.ssl_channel_credentials(root_certificates=(pki / "ca.pem").read_bytes())
    with grpc.secure_channel(f"127.0.0.1:{secure[0].port}", creds) as ch:
        stub = pbg.PlacementServiceStub(ch)
        assert len(stub.ListPatches(pb.ListPatchesRequest(), timeout=10,
                                    metadata=(("authorization", "Bearer next-one"),)).patches) == 33
        with pytest.raises(grpc.RpcError) as err:
            stub.ListPatches(pb.ListPatchesRequest(), timeout=10)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


# ---------------------------------------------------------------- TLS

def test_https_serves_and_plain_http_fails_cleanly(secure, https):
    url = secure[1].url
    assert url.startswith("https://127.0.0.1:")
    assert https.get("/api/v1/healthz").status_code == 200
    plain = "http://" + url.removeprefix("https://") + "api/v1/healthz"
    for _ in range(3):
        try:
            r = httpx.get(plain, timeout=5)
        except httpx.TransportError:
            pass  # the TLS layer closed the connection
        else:
            assert r.status_code == 400
    # An unverified certificate is refused by the client; the server keeps serving.
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "api/v1/healthz", timeout=5)
    assert https.get("/api/v1/healthz").json()["status"] == "SERVING"
    assert https.get("/api/v1/patches", headers=GOOD).status_code == 200


@pytest.fixture(scope="module")
def mutual(pki):
    yield from serving(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, grace=0.5,
                                    tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"),
                                    tls_client_ca=str(pki / "ca.pem")))


def test_client_certificates_are_required_with_a_client_ca(mutual, pki):
    url = mutual[1].url + "api/v1/healthz"
    with httpx.Client(verify=tls_context(pki, client_cert=True), timeout=10) as c:
        assert c.get(url).json()["status"] == "SERVING"
        assert c.get(mutual[1].url + "api/v1/patches").status_code == 200  # no tokens on this server
    with httpx.Client(verify=tls_context(pki), timeout=10) as c:
        with pytest.raises(httpx.TransportError):
            c.get(url)
    with httpx.Client(verify=tls_context(pki, client_cert=True), timeout=10) as c:
        assert c.get(url).status_code == 200  # still serving


# ---------------------------------------------------------------- the rate limit and proxies (in-process)

def asgi_calls(app, script):
    """Run ``await script(request)``, where ``request(peer, method, path, **kw)`` calls ``app`` from ``peer``."""
    async def main():
        clients = {}

        async def request(peer: str, method: str, path: str, **kw) -> httpx.Response:
            if peer not in clients:
                transport = httpx.ASGITransport(app=app, client=(peer, 40000))
                clients[peer] = httpx.AsyncClient(transport=transport, base_url="http://testserver")
            return await clients[peer].request(method, path, **kw)

        try:
            return await script(request)
        finally:
            for c in clients.values():
                await c.aclose()

    # In a thread of its own: the browser tests' Playwright keeps an event loop running in this one.
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = anyio.run(main)
        except BaseException as e:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = e

    thread = threading.Thread(target=run, name="asgi-calls")
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the in-process calls did not finish"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_rate_limit_answers_429_then_recovers(web_server):
    server, _ = web_server
    now = [100.0]
    app = create_app(server.core, server.metrics, server.log,
                     security=HttpSecurity(rate_limit=2, rate_burst=3, clock=lambda: now[0]))
    refused = server.metrics.value("quiltsolve_refused_total", method="Healthz", reason="rate_limit")

    async def script(request):
        codes = [(await request("192.0.2.1", "GET", "/api/v1/healthz")).status_code for _ in range(3)]
        assert codes == [200, 200, 200]
        r = await request("192.0.2.1", "GET", "/api/v1/healthz")
        assert r.status_code == 429
        assert r.json()["error"]["code"] == "RESOURCE_EXHAUSTED" and "192.0.2.1" in r.json()["error"]["message"]
        assert r.headers["retry-after"] == "1" and r.headers["x-retry-after-ms"] == "500"
        assert r.headers["x-content-type-options"] == "nosniff"
        # Another client has its own bucket; the app's files are not limited.
        assert (await request("192.0.2.2", "GET", "/api/v1/patches")).status_code == 200
        assert (await request("192.0.2.1", "GET", "/")).status_code == 200
        now[0] += 0.5  # one token back
        assert (await request("192.0.2.1", "GET", "/api/v1/healthz")).status_code == 200
        assert (await request("192.0.2.1", "GET", "/api/v1/healthz")).status_code == 429
        now[0] += 60  # a full bucket again, never more than the burst
        codes = [(await request("192.0.2.1", "GET", "/api/v1/healthz")).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]

    asgi_calls(app, script)
    assert server.metrics.value("quiltsolve_refused_total", method="Healthz", reason="rate_limit") == refused + 3


def test_forwarded_for_is_believed_from_trusted_proxies_only(web_server):
    server, _ = web_server
    app = create_app(server.core, server.metrics, server.log, static=False,
                     security=HttpSecurity(rate_limit=1, rate_burst=1, trusted_proxies=("10.0.0.0/8", "::1"),
                                           clock=lambda: 0.0))

    async def script(request):
        async def status(peer, xff=None):
            headers = {"X-Forwarded-For": xff} if xff is not None else {}
            return (await request(peer, "GET", "/api/v1/healthz", headers=headers)).status_code

        # Not a trusted proxy: its header is ignored, whatever it says.
        assert await status("198.51.100.7", "203.0.113.1") == 200
        assert await status("198.51.100.7", "203.0.113.2") == 429
        # Trusted proxies: the client they name is the one limited.
        assert await status("10.0.0.5", "203.0.113.1") == 200
        assert await status("10.0.0.6", "203.0.113.1") == 429        # same client through another proxy
        assert await status("10.0.0.5", "203.0.113.9") == 200        # another client through the same proxy
        assert await status("10.0.0.5", "1.1.1.1, 203.0.113.1") == 429  # what the client prepended is ignored
        assert await status("10.0.0.5", "203.0.113.1, 10.0.0.9") == 429  # trusted hops are skipped
        assert await status("10.0.0.5") == 200                       # no header: the proxy itself
        assert await status("10.0.0.5", "not-an-address") == 429     # garbage: the proxy itself again

    asgi_calls(app, script)


@pytest.mark.parametrize("peer,xff,want", [
    ("10.0.0.5", ["203.0.113.1:5555"], "203.0.113.1"),
    ("10.0.0.5", ["[2001:db8::7]:443"], "2001:db8::/64"),
    ("10.0.0.5", ["203.0.113.1", "10.0.0.7"], "203.0.113.1"),        # several headers: one list
    ("::ffff:10.0.0.5", ["203.0.113.1"], "203.0.113.1"),            # IPv4-mapped peer on a dual-stack socket
    ("::ffff:198.51.100.7", [], "198.51.100.7"),
    ("10.0.0.5", ["10.0.0.8, 10.0.0.9"], "10.0.0.8"),                # only proxies: the farthest one
    ("10.0.0.5", [" , "], "10.0.0.5"),
    ("198.51.100.7", ["203.0.113.1"], "198.51.100.7"),
    ("testclient", ["203.0.113.1"], "testclient"),                  # not an address: itself
])
def test_client_key(peer, xff, want):
    assert client_key(peer, xff, parse_networks(["10.0.0.0/8"], "--trusted-proxy")) == want


def test_the_table_of_clients_is_bounded(web_server):
    limiter = RateLimiter(rate=1, burst=1, max_clients=100, clock=lambda: 0.0)
    for i in range(5000):
        limiter.take(f"client-{i}")
    assert len(limiter) == 100
    assert limiter.take("client-4999") > 0 and limiter.take("client-0") == 0  # the oldest were forgotten
    server, _ = web_server
    app = create_app(server.core, server.metrics, server.log, static=False,
                     security=HttpSecurity(rate_limit=5, trusted_proxies=("10.0.0.1",), max_clients=50))

    async def script(request):
        for i in range(300):  # a proxy forwarding many (or forged) clients
            forged = f"203.0.{i // 250}.{i % 250}"
            await request("10.0.0.1", "GET", "/api/v1/healthz", headers={"X-Forwarded-For": forged})

    asgi_calls(app, script)
    assert len(app.state.limiter) == 50


# ---------------------------------------------------------------- CORS

PREFLIGHT = {"Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization, content-type, x-deadline-ms, x-request-id"}


def test_cors_is_off_by_default(http):
    r = http.get("/api/v1/patches", headers={"Origin": "https://elsewhere.example"})
    assert r.status_code == 200
    assert not [h for h in r.headers if h.lower().startswith("access-control-")]
    r = http.options("/api/v1/solve-placement", headers={"Origin": "https://elsewhere.example", **PREFLIGHT})
    assert r.status_code >= 400
    assert not [h for h in r.headers if h.lower().startswith("access-control-")]


def test_cors_allows_exactly_the_named_origins(web_server):
    server, _ = web_server
    app = create_app(server.core, server.metrics, server.log, static=False, tokens=("t0k",),
                     security=HttpSecurity(cors_origins=("https://app.example.com",)))

    async def script(request):
        ok = "https://app.example.com"
        r = await request("192.0.2.1", "OPTIONS", "/api/v1/solve-placement", headers={"Origin": ok, **PREFLIGHT})
        assert r.status_code == 200  # preflights carry no token
        assert r.headers["access-control-allow-origin"] == ok
        allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
        assert {"authorization", "content-type", "x-deadline-ms", "x-request-id"} <= allowed
        assert "POST" in r.headers["access-control-allow-methods"]
        assert "access-control-allow-credentials" not in r.headers
        r = await request("192.0.2.1", "OPTIONS", "/api/v1/solve-placement",
                          headers={"Origin": "https://evil.example.com", **PREFLIGHT})
        assert r.status_code == 400 and "access-control-allow-origin" not in r.headers
        r = await request("192.0.2.1", "GET", "/api/v1/patches", headers={"Origin": ok, "Authorization": "Bearer t0k"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == ok
        assert "retry-after" in r.headers["access-control-expose-headers"].lower()
        r = await request("192.0.2.1", "GET", "/api/v1/patches", headers={"Origin": ok})
        assert r.status_code == 401 and r.headers["access-control-allow-origin"] == ok  # the page can read why
        r = await request("192.0.2.1", "GET", "/api/v1/patches",
                          headers={"Origin": "https://evil.example.com", "Authorization": "Bearer t0k"})
        assert "access-control-allow-origin" not in r.headers

    asgi_calls(app, script)


# ---------------------------------------------------------------- flags and python -m quiltsolve.web

def test_web_security_flags_and_their_environment(monkeypatch):
    for name in ("QUILTSOLVE_HTTP_RATE_LIMIT", "QUILTSOLVE_HTTP_RATE_BURST", "QUILTSOLVE_TRUSTED_PROXIES",
                 "QUILTSOLVE_CORS_ORIGINS"):
        monkeypatch.delenv(name, raising=False)
    p = build_web_parser()
    s = security_from_args(p, p.parse_args([]))
    assert (s.rate_limit, s.trusted_proxies, s.cors_origins) == (None, (), ())
    s = security_from_args(p, p.parse_args(["--http-rate-limit", "5", "--trusted-proxy", "10.0.0.0/8",
                                            "--trusted-proxy", "192.168.1.1,::1", "--cors-origin",
                                            "https://App.example.com", "--cors-origin", "http://localhost:3000"]))
    assert (s.rate_limit, s.burst) == (5.0, 10)
    assert s.trusted_proxies == ("10.0.0.0/8", "192.168.1.1/32", "::1/128")
    assert s.cors_origins == ("https://app.example.com", "http://localhost:3000")
    monkeypatch.setenv("QUILTSOLVE_HTTP_RATE_LIMIT", "2.5")
    monkeypatch.setenv("QUILTSOLVE_HTTP_RATE_BURST", "4")
    monkeypatch.setenv("QUILTSOLVE_TRUSTED_PROXIES", "172.16.0.0/12, 10.1.1.1")
    monkeypatch.setenv("QUILTSOLVE_CORS_ORIGINS", "https://a.example")
    p = build_web_parser()
    s = security_from_args(p, p.parse_args([]))
    assert (s.rate_limit, s.burst, s.trusted_proxies, s.cors_origins) == (
        2.5, 4, ("172.16.0.0/12", "10.1.1.1/32"), ("https://a.example",))
    s = security_from_args(p, p.parse_args(["--cors-origin", "https://b.example"]))  # a flag wins
    assert s.cors_origins == ("https://b.example",)


@pytest.mark.parametrize("args,needle", [
    (["--http-rate-limit", "0"], "--http-rate-limit"),
    (["--http-rate-limit", "nan"], "--http-rate-limit"),
    (["--http-rate-limit", "3", "--http-rate-burst", "0"], "--http-rate-burst"),
    (["--http-rate-burst", "3"], "--http-rate-burst needs --http-rate-limit"),
    (["--trusted-proxy", "proxy.example"], "--trusted-proxy 'proxy.example'"),
    (["--cors-origin", "*"], "--cors-origin '*'"),
    (["--cors-origin", "https://app.example.com/path"], "--cors-origin"),
    (["--cors-origin", "app.example.com"], "--cors-origin"),
])
def test_bad_security_flags_are_usage_errors(monkeypatch, capsys, args, needle):
    for name in ("QUILTSOLVE_HTTP_RATE_LIMIT", "QUILTSOLVE_HTTP_RATE_BURST", "QUILTSOLVE_TRUSTED_PROXIES",
                 "QUILTSOLVE_CORS_ORIGINS"):
        monkeypatch.delenv(name, raising=False)
    p = build_web_parser()
    with pytest.raises(SystemExit) as exit_:
        security_from_args(p, p.parse_args(args))
    assert exit_.value.code == 2
    assert needle in capsys.readouterr().err


def test_python_m_web_with_tls_and_tokens(pki, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("s3cret\n")
    proc = start_web("--http-port", "0", "--tls-cert", str(pki / "server.pem"), "--tls-key", str(pki / "server.key"),
                  "--auth-token-file", str(tokens), "--http-rate-limit", "50")
    try:
        line = proc.stdout.readline()
        assert line.startswith("quiltsolve serving on 127.0.0.1:") and " (TLS)" in line, line
        assert "; web app on https://127.0.0.1:" in line
        url = line.rsplit(" ", 1)[1].strip()
        with httpx.Client(verify=tls_context(pki), timeout=10) as c:
            assert c.get(url + "api/v1/healthz").json() == {"status": "SERVING", "auth_required": True}
            assert c.get(url + "api/v1/patches").status_code == 401
            assert c.get(url + "api/v1/patches", headers=GOOD).status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        stop_web(proc)


def test_the_https_context_follows_the_server_config(pki, tmp_path):
    from quiltsolve.server.tls import server_ssl_context

    assert server_ssl_context(ServerConfig()) is None
    plain = server_ssl_context(ServerConfig(tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key")))
    assert plain.verify_mode == ssl.CERT_NONE and plain.minimum_version >= ssl.TLSVersion.TLSv1_2
    mutual = server_ssl_context(ServerConfig(tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"),
                                             tls_client_ca=str(pki / "ca.pem")))
    assert mutual.verify_mode == ssl.CERT_REQUIRED
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(OSError, match="--tls-cert"):
        server_ssl_context(ServerConfig(tls_cert=str(junk), tls_key=str(junk)))
    with pytest.raises(OSError, match="--tls-client-ca"):
        server_ssl_context(ServerConfig(tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"),
                                        tls_client_ca=str(junk)))
