"""The Starlette app: the HTTP JSON API over the service core, and the browser app's static files.

``create_app(core, metrics, log)`` builds it for any :class:`server.core.ServiceCore`
(``HttpFace`` passes the running server's). Routes: :data:`ENDPOINTS`.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Awaitable, Callable, Iterator

import grpc
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server.auth import BearerTokens
from quiltsolve.server.core import Call
from quiltsolve.server.errors import ServiceError
from quiltsolve.server.service import PlacementServicer

from quiltsolve.server import protojson, records
from quiltsolve.server.game_service import GAME_SERVICE, GameServicer

from .calls import JSON, SERVICE as SERVICE_NAME, Calls, error_body
from .openapi import Endpoint, document
from .security import CORS_EXPOSED, CORS_HEADERS, Guard, HttpSecurity, parse_networks

API = "/api/v1"

# The RPCs: path → (method name, request message, response message, streaming).
RPCS = {
    "solve-placement": ("SolvePlacement", "Chooses placements of candidate patches (cover or 7x7)."),
    "suggest-placement": ("SuggestPlacement", "Ranks the placements of one patch by lookahead."),
    "suggest-move": ("SuggestMove", "Ranks the legal moves of a game position (win chances)."),
    "solve-puzzle": ("SolvePuzzle", "Tiles a region with pieces, or counts the tilings."),
    "generate-puzzle": ("GeneratePuzzle", "Makes a puzzle with exactly one solution (seeded)."),
    "analyze-game": ("AnalyzeGame", "Reviews a game move by move (NDJSON stream; ?format=json for a list)."),
    "analyze-position": ("AnalyzePosition", "Analyses a position while the search runs: an update every report "
                                            "interval, the last one final (NDJSON stream; closing it cancels)."),
    "solve-position": ("SolvePosition", "Solves a position exactly: the proven interval of its value as it "
                                        "narrows, the last update exact or the interval at the time limit "
                                        "(NDJSON stream; closing it cancels)."),
}
# The server-streaming RPCs: answered as NDJSON, one line per response message.
STREAMING = frozenset({"AnalyzeGame", "AnalyzePosition", "SolvePosition"})
# The response message of the RPCs whose responses are not named after them.
RESPONSES = {"AnalyzePosition": "AnalyzePositionUpdate", "SolvePosition": "SolvePositionUpdate"}
# The GameService RPCs (the browser app's game paths): path → (method name, summary).
GAME_RPCS = {
    "game/new": ("NewGame", "A new game, dealt from a seed or set up from a given circle: state, view, record."),
    "game/load": ("LoadPosition", "A position from notation, state JSON or a game record."),
    "game/view": ("ViewPosition", "The view of a position (what the page draws)."),
    "game/legal": ("LegalMoves", "Every legal move of a position, as text."),
    "game/apply": ("ApplyMove", "Plays a move (its text form) in a position."),
    "game/engine-move": ("EngineMove", "The engine's move for the player to move, played."),
    "game/replay": ("ReplayGame", "Every position of a game record, for stepping through it."),
    "game/notation": ("PositionNotation", "A position's one-line notation (when the engine has it)."),
}
# The engine's levels' ratings (``engine.players.level_ratings`` reads the same file), served as /levels.json.
LEVELS_FILE = resources.files("quiltsolve.engine") / "data" / "levels.json"
# What the game paths read beside the JSON mapping: a record in the engine's form (server/records.py).
GAME_READERS: dict[str, protojson.Reader] = {"patchwork.v1.GameRecord": records.read_mapping}


def endpoints() -> list[Endpoint]:
    out = [Endpoint("GET", f"{API}/healthz", "Healthz", "SERVING, or 503 NOT_SERVING while shutting down.",
                    None, None, tags=("service",)),
           Endpoint("GET", f"{API}/patches", "ListPatches", "The 33 standard patches.", None,
                    "ListPatchesResponse")]
    for path, (name, summary) in RPCS.items():
        response = RESPONSES.get(name, f"{name}Response")
        out.append(Endpoint("POST", f"{API}/{path}", name, summary, f"{name}Request", response,
                            streaming=name in STREAMING))
    for path, (name, summary) in GAME_RPCS.items():
        out.append(Endpoint("POST", f"{API}/{path}", name, summary, f"{name}Request", f"{name}Response",
                            tags=("game",)))
    return out


ENDPOINTS = endpoints()


class _SecurityHeaders:
    """Same-origin everything: the app fetches nothing from anywhere else."""

    CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
           "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        static = not scope["path"].startswith("/api/")

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"no-referrer"))
                if static:
                    headers.append((b"content-security-policy", self.CSP.encode()))
                    headers.append((b"cache-control", b"no-cache"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(core: Any, metrics: Any, log: Any, threads: int = 16, static: bool = True, tokens: tuple[str, ...] = (),
               security: HttpSecurity | None = None) -> Starlette:
    """The web app over ``core`` (a :class:`server.core.ServiceCore`).

    ``tokens``: bearer tokens every ``/api/`` call but the open ones needs
    (empty: none); ``security``: rate limit, trusted proxies, CORS origins
    (see :mod:`web.security`).
    """
    security = security or HttpSecurity()
    bearer = BearerTokens(tokens)
    calls = Calls(core, metrics, log, threads)
    servicer = PlacementServicer(core)
    game_servicer = GameServicer(core)

    def rpc(name: str, game: bool = False) -> Callable[[Request], Awaitable[Response]]:
        """The endpoint of a unary RPC: its request message from the body, the servicer's answer as JSON."""
        handler = (game_servicer if game else servicer).handler(name)
        cls = getattr(pb, f"{name}Request")
        readers = GAME_READERS if game else None
        service = GAME_SERVICE if game else SERVICE_NAME
        # Only the search occupies a worker; the game's other RPCs answer in the front at once.
        heavy = not game or name == "EngineMove"

        def work(data: Any, call: Call) -> dict:
            return protojson.to_dict(handler(protojson.parse(data, cls, readers=readers), call))

        async def endpoint(request: Request) -> Response:
            return await calls.unary(request, name, work, service=service, heavy=heavy)

        return endpoint

    def streamed(name: str) -> Callable[[Request], Awaitable[Response]]:
        """The endpoint of a server-streaming RPC: NDJSON, one line per response message as it comes
        (``?format=json``: all of them in one ``{"items": [...]}`` at the end); a disconnect cancels it."""
        handler = servicer.handler(name)
        cls = getattr(pb, f"{name}Request")

        def make(data: Any, call: Call) -> Iterator[dict]:
            return (protojson.to_dict(item) for item in handler(protojson.parse(data, cls), call))

        async def endpoint(request: Request) -> Response:
            as_list = request.query_params.get("format") == "json"
            return await calls.stream(request, name, make, as_list=as_list)

        return endpoint

    async def list_patches(request: Request) -> Response:
        return await calls.unary(request, "ListPatches",
                                 lambda data, call: protojson.to_dict(servicer.list_patches(pb.ListPatchesRequest(),
                                                                                            call)),
                                 body=False, heavy=False)

    async def healthz(request: Request) -> Response:
        probe = Call(peer="http:healthz", deadline=None, record=None)  # type: ignore[arg-type]
        try:
            core.enter(probe)
        except ServiceError:
            return JSON({"status": "NOT_SERVING"}, status_code=503)
        core.exit(probe)
        return JSON({"status": "SERVING", "auth_required": bool(bearer)})

    doc = document(ENDPOINTS, max_body=core.max_receive_bytes)

    async def levels(request: Request) -> Response:
        return Response(LEVELS_FILE.read_bytes(), media_type="application/json")

    async def openapi(request: Request) -> Response:
        return JSON(doc)

    routes: list[Route] = [
        Route(f"{API}/healthz", healthz, methods=["GET"]),
        Route(f"{API}/patches", list_patches, methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
    ]
    for path, (name, _) in RPCS.items():
        routes.append(Route(f"{API}/{path}", streamed(name) if name in STREAMING else rpc(name), methods=["POST"]))
    for path, (name, _) in GAME_RPCS.items():
        routes.append(Route(f"{API}/{path}", rpc(name, game=True), methods=["POST"]))
    known = {r.path: r.methods for r in routes}

    async def no_endpoint(request: Request) -> Response:
        allowed = known.get(request.url.path)
        if allowed:
            return JSON(error_body("UNIMPLEMENTED", f"{request.method} is not allowed on {request.url.path}; "
                                                    f"use {', '.join(sorted(allowed - {'HEAD'}))}"),
                        status_code=405, headers={"Allow": ", ".join(sorted(allowed))})
        return JSON(error_body("NOT_FOUND", f"no endpoint {request.method} {request.url.path}; "
                                            "see /api/openapi.json"), status_code=404)

    routes.append(Route("/api/{rest:path}", no_endpoint,
                        methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]))
    app_routes: list[BaseRoute] = list(routes)
    if static:
        # The levels' measured ratings, as bench levels wrote them (the Play page lists them): the file itself.
        app_routes.append(Route("/levels.json", levels, methods=["GET"]))
        files = StaticFiles(directory=str(resources.files("quiltsolve.web") / "static"), html=True)
        app_routes.append(Mount("/", app=GZipMiddleware(files, minimum_size=512), name="static"))

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            code = {404: grpc.StatusCode.NOT_FOUND, 405: grpc.StatusCode.UNIMPLEMENTED}.get(
                exc.status_code, grpc.StatusCode.INVALID_ARGUMENT)
            message = (f"no endpoint {request.method} {request.url.path}; see /api/openapi.json"
                       if exc.status_code in (404, 405) else str(exc.detail))
            return JSON(error_body(code.name, message, None), status_code=exc.status_code,
                        headers=getattr(exc, "headers", None))
        return Response(f"{exc.status_code} {exc.detail}\n", status_code=exc.status_code,
                        media_type="text/plain")

    names = {e.path: (GAME_SERVICE if "game" in e.tags else SERVICE_NAME, e.name,
                      "server_stream" if e.streaming else "unary") for e in ENDPOINTS}
    limiter = security.limiter()
    middleware = [Middleware(_SecurityHeaders)]  # outermost first: every answer gets the headers
    if security.cors_origins:
        # Preflights are answered here, before the guard: a browser never sends a token with one.
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(security.cors_origins),
                                     allow_methods=["GET", "POST"], allow_headers=list(CORS_HEADERS),
                                     expose_headers=list(CORS_EXPOSED), allow_credentials=False, max_age=600))
    middleware.append(Middleware(Guard, tokens=bearer, limiter=limiter, calls=calls, names=names,
                                 trusted=parse_networks(security.trusted_proxies, "--trusted-proxy")))
    handlers: dict[Any, Callable[[Request, Any], Awaitable[Response]]] = {HTTPException: http_error}
    app = Starlette(routes=app_routes, middleware=middleware, exception_handlers=handlers)
    app.state.calls = calls
    app.state.limiter = limiter
    return app
