"""The HTTP face's guards: bearer tokens, a per-client rate limit, who the client is behind a proxy, CORS.

The policy (docs/web.md, "Security"):

* open without a token: ``GET /api/v1/healthz``, ``GET /api/openapi.json`` and
  the static files of the browser app (:data:`OPEN_PATHS`; nothing else under ``/api/``);
* every other ``/api/`` request needs ``Authorization: Bearer <token>`` when
  the server has tokens (the same tokens and the same constant-time check as
  gRPC: :class:`server.auth.BearerTokens`), else 401 ``UNAUTHENTICATED``
  with ``WWW-Authenticate: Bearer``;
* with a rate limit, each client (:func:`client_key`) gets a token bucket
  of ``rate`` requests a second and ``burst`` at once over ``/api/``;
  beyond it, 429 ``RESOURCE_EXHAUSTED`` with ``Retry-After``. The table
  of clients is bounded (:class:`RateLimiter`).

>>> nets = parse_networks(["10.0.0.0/8"], "--trusted-proxy")
>>> client_key("10.1.2.3", ["203.0.113.9, 10.0.0.7"], nets)  # a trusted proxy: its X-Forwarded-For
'203.0.113.9'
>>> client_key("198.51.100.4", ["203.0.113.9"], nets)  # anyone else: their own address
'198.51.100.4'
>>> client_key("2001:db8::1:2", [], ())  # IPv6 clients by their /64
'2001:db8::/64'
>>> limiter = RateLimiter(rate=1.0, burst=2, clock=lambda: 0.0)
>>> [limiter.take("a"), limiter.take("a"), limiter.take("a")]
[0.0, 0.0, 1.0]
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import urlsplit

from starlette.requests import Request

from quiltsolve.server.auth import BearerTokens

from .calls import JSON, error_body

OPEN_PATHS = frozenset({"/api/v1/healthz", "/api/openapi.json"})
CORS_HEADERS = ("Authorization", "Content-Type", "X-Deadline-Ms", "X-Request-Id")
CORS_EXPOSED = ("Retry-After", "X-Retry-After-Ms", "WWW-Authenticate")
MAX_CLIENTS = 10_000          # rate-limit buckets kept; the least recently seen client is forgotten first
MAX_FORWARDED_HOPS = 32       # X-Forwarded-For entries looked at, from the right
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _flag_items(values: Iterable[str] | str) -> Iterator[str]:
    """The items of a repeatable flag (or its environment variable): each value may list several, comma-separated."""
    for value in [values] if isinstance(values, str) else values:
        for part in value.split(","):
            if part.strip():
                yield part.strip()


def parse_networks(values: Iterable[str], flag: str) -> tuple[Network, ...]:
    """IP addresses or CIDR networks (``10.0.0.0/8``, ``::1``); ValueError naming ``flag`` and the bad one."""
    out = []
    for part in _flag_items(values):
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"{flag} {part!r}: not an IP address or network such as 10.0.0.0/8 or "
                             f"::1") from None
    return tuple(out)


def parse_origins(values: Iterable[str], flag: str = "--cors-origin") -> tuple[str, ...]:
    """Exact origins (``https://app.example.com``, ``http://localhost:3000``); ValueError naming the bad one."""
    out: list[str] = []
    for part in _flag_items(values):
        try:
            u = urlsplit(part)
            _ = u.port  # a bad port raises ValueError
        except ValueError:
            u = None
        if (u is None or u.scheme not in ("http", "https") or not u.hostname or u.username or u.password
                or u.path not in ("", "/") or u.query or u.fragment):
            raise ValueError(f"{flag} {part!r}: expected an origin, scheme://host[:port] such as "
                             f"https://app.example.com (no path; '*' is not allowed)")
        origin = f"{u.scheme}://{u.netloc.lower()}"
        if origin not in out:
            out.append(origin)
    return tuple(out)


def _address(text: str | None) -> Address | None:
    """An IP address from a peer or an X-Forwarded-For entry (``1.2.3.4``, ``1.2.3.4:5678``, ``[::1]:80``)."""
    if not text:
        return None
    t = text.strip()
    if t.startswith("["):
        t = t[1:].partition("]")[0]
    elif t.count(":") == 1:  # IPv4 with a port
        t = t.partition(":")[0]
    try:
        ip = ipaddress.ip_address(t)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _in(ip: Address, nets: tuple[Network, ...]) -> bool:
    return any(ip.version == n.version and ip in n for n in nets)


def _key_of(ip: Address) -> str:
    if isinstance(ip, ipaddress.IPv6Address):  # one IPv6 client usually holds a whole /64
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_key(peer: str | None, forwarded_for: list[str], trusted: tuple[Network, ...]) -> str:
    """Who a request comes from, for the rate limit and the log.

    The direct peer's address, unless that peer is a trusted proxy: then the
    right-most ``X-Forwarded-For`` entry that is not itself a trusted proxy
    (each proxy appends the address it saw, so entries to the left of the
    first untrusted one, read from the right, are whatever the client chose to
    send and are never believed). An entry that is not an address ends the
    walk at the last trusted hop.
    """
    ip = _address(peer)
    if ip is None:
        return peer or "unknown"
    if trusted and _in(ip, trusted) and forwarded_for:
        joined = ",".join(forwarded_for)
        for raw in reversed(joined.rsplit(",", MAX_FORWARDED_HOPS)[-MAX_FORWARDED_HOPS:]):
            hop = _address(raw)
            if hop is None:
                break
            ip = hop
            if not _in(hop, trusted):
                break
    return _key_of(ip)


class RateLimiter:
    """Token buckets per client: ``rate`` tokens a second, at most ``burst``; one request takes one.

    At most ``max_clients`` buckets are kept (least recently seen forgotten
    first; a forgotten client starts again with a full bucket), so no
    number of clients or addresses grows memory beyond that.
    """

    def __init__(self, rate: float, burst: int, max_clients: int = MAX_CLIENTS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be > 0, got {rate}")
        if burst < 1:
            raise ValueError(f"burst must be >= 1, got {burst}")
        self.rate = float(rate)
        self.burst = int(burst)
        self.max_clients = max(1, int(max_clients))
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """0.0 when ``key`` may go ahead (one token taken), else the seconds until it may."""
        now = self.clock()
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + max(0.0, now - last) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait


@dataclass(frozen=True)
class HttpSecurity:
    """The HTTP face's web-only security settings (TLS and tokens come from the ServerConfig, as for gRPC)."""

    rate_limit: float | None = None            # requests a second per client over /api/ (None: no limit)
    rate_burst: int | None = None              # requests at once (None: twice the rate, at least 1)
    trusted_proxies: tuple[str, ...] = ()      # IPs / CIDRs whose X-Forwarded-For is believed
    cors_origins: tuple[str, ...] = ()         # origins allowed cross-origin (empty: CORS off)
    max_clients: int = MAX_CLIENTS
    clock: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.rate_limit is not None and not (self.rate_limit > 0 and self.rate_limit < float("inf")):
            raise ValueError(f"--http-rate-limit must be a number of requests a second > 0, got {self.rate_limit}")
        if self.rate_burst is not None and self.rate_burst < 1:
            raise ValueError(f"--http-rate-burst must be >= 1, got {self.rate_burst}")
        if self.rate_burst is not None and self.rate_limit is None:
            raise ValueError("--http-rate-burst needs --http-rate-limit")
        if self.max_clients < 1:
            raise ValueError(f"max_clients must be >= 1, got {self.max_clients}")
        object.__setattr__(self, "trusted_proxies", tuple(str(n) for n in parse_networks(self.trusted_proxies,
                                                                                         "--trusted-proxy")))
        object.__setattr__(self, "cors_origins", parse_origins(self.cors_origins))

    @property
    def burst(self) -> int:
        if self.rate_burst is not None:
            return self.rate_burst
        return max(1, round(2 * (self.rate_limit or 0)))

    def limiter(self) -> RateLimiter | None:
        if self.rate_limit is None:
            return None
        return RateLimiter(self.rate_limit, self.burst, self.max_clients, self.clock)


def _header(scope: Any, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]


class Guard:
    """ASGI middleware over ``/api/``: the rate limit first (so guessing tokens is limited too), then tokens.

    ``names`` maps an API path to the (service, method, kind) its calls are
    logged and counted as; refusals of unknown paths are counted as ``Unknown``.
    """

    def __init__(self, app: Any, tokens: BearerTokens, limiter: RateLimiter | None, trusted: tuple[Network, ...],
                 calls: Any, names: dict[str, tuple[str, str, str]]) -> None:
        self.app = app
        self.tokens = tokens
        self.limiter = limiter
        self.trusted = trusted
        self.calls = calls
        self.names = names

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            return await self.app(scope, receive, send)
        path = scope["path"]
        service, method, kind = self.names.get(path, ("quiltsolve.web.v1.Http", "Unknown", "unary"))
        if self.limiter is not None or self.trusted:
            client = scope.get("client")
            peer = client[0] if client else None
            key = client_key(peer, _header(scope, b"x-forwarded-for") if self.trusted else [], self.trusted)
            if self.trusted and key != peer:
                scope.setdefault("state", {})["forwarded_for"] = key
            if self.limiter is not None:
                wait = self.limiter.take(key)
                if wait > 0:
                    self.calls.metrics.refused.labels(method=method, reason="rate_limit").inc()
                    seconds = max(1, math.ceil(wait))
                    response = JSON(error_body("RESOURCE_EXHAUSTED", f"too many requests from {key}; at most "
                                               f"{self.limiter.rate:g} a second ({self.limiter.burst} at once)"),
                                    status_code=429, headers={"Retry-After": str(seconds),
                                                              "X-Retry-After-Ms": str(max(1, round(wait * 1000)))})
                    return await response(scope, receive, send)
        if self.tokens and path not in OPEN_PATHS:
            given = _header(scope, b"authorization")
            if not self.tokens.accepts(given[0] if given else None):
                return await self._deny(scope, receive, send, (service, method, kind), bool(given))
        await self.app(scope, receive, send)

    async def _deny(self, scope: Any, receive: Any, send: Any, name: tuple[str, str, str], had_header: bool) -> None:
        message = ("the bearer token was not accepted" if had_header
                   else "a valid 'Authorization: Bearer <token>' header is required")
        challenge = 'Bearer realm="quiltsolve"' + (', error="invalid_token"' if had_header else "")
        request = Request(scope, receive)
        rec = self.calls._record(request, *name)
        self.calls.metrics.observe_start(rec)
        t0 = time.perf_counter()
        response = JSON(error_body("UNAUTHENTICATED", message), status_code=401,
                        headers={"WWW-Authenticate": challenge})
        self.calls._finish(rec, "UNAUTHENTICATED", t0, message)  # before sending: counted once it is seen
        await response(scope, receive, send)
