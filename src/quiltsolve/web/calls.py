"""One HTTP call over the service core: body, deadline, thread, cancellation, status, log line.

Every API endpoint goes through :meth:`Calls.unary` or :meth:`Calls.stream`,
so each call is admitted, limited, logged and counted exactly like a gRPC
call (``server.core.Call``, ``core.enter`` / ``core.exit``,
``server.metrics``, one ``rpc`` log line with ``"face": "http"``):

* the body is read up to ``core.max_receive_bytes`` (64 KiB; more → 413);
* ``X-Deadline-Ms`` sets ``call.deadline``; when it passes, or the client
  disconnects, ``call.stop`` is set and the solve stops at once;
* handlers block on worker processes, so they run in threads
  (``anyio.to_thread``) bounded by a capacity limiter, never on the loop;
* a :class:`server.errors.ServiceError` becomes the HTTP status of
  :data:`HTTP_STATUS` and ``{"error": {"code", "field", "message"}}``
  (a :class:`server.errors.TooLarge` RESOURCE_EXHAUSTED, which no retry
  cures, is 507 without ``Retry-After``: :data:`TOO_LARGE_STATUS`).

>>> error_body("INVALID_ARGUMENT", "board.rows[3]: row has 8 cells; expected 9")
{'error': {'code': 'INVALID_ARGUMENT', 'field': 'board.rows[3]', 'message': 'board.rows[3]: row has 8 cells; expected 9'}}
>>> HTTP_STATUS["RESOURCE_EXHAUSTED"], HTTP_STATUS["CANCELLED"]
(429, 499)
"""

from __future__ import annotations

import json
import math
import time
import traceback
from typing import Any, Callable, Iterator

import anyio
import anyio.to_thread
import grpc
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from quiltsolve.server.core import Call, Refusal
from quiltsolve.server.errors import BadRequest, ServiceError, TooLarge, cut, field_of
from quiltsolve.server.observe import CallRecord

SERVICE = "patchwork.v1.PlacementService"
MAX_DEADLINE_MS = 3_600_000
DEADLINE_HEADER = "x-deadline-ms"

HTTP_STATUS = {
    "OK": 200,
    "INVALID_ARGUMENT": 400,
    "OUT_OF_RANGE": 400,
    "FAILED_PRECONDITION": 409,
    "ALREADY_EXISTS": 409,
    "ABORTED": 409,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "RESOURCE_EXHAUSTED": 429,
    "CANCELLED": 499,
    "INTERNAL": 500,
    "UNKNOWN": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}
TOO_LARGE_STATUS = 507  # RESOURCE_EXHAUSTED that no retry cures (server.errors.TooLarge)


class HttpError(ServiceError):
    """A ServiceError answered with a specific HTTP status (413 for an oversize body, 404, 405)."""

    def __init__(self, http_status: int, code: grpc.StatusCode, details: str, field: str | None = None) -> None:
        super().__init__(code, details)
        self.http_status = http_status
        self.field = field


def error_body(code: str, message: str, field: str | None = None) -> dict:
    """The JSON error object; ``field`` defaults to the path the message starts with, if any."""
    if field is None and code in ("INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE"):
        field = field_of(message)
    return {"error": {"code": code, "field": field, "message": message}}


def json_bytes(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


class JSON(JSONResponse):
    def render(self, content: Any) -> bytes:
        return json_bytes(content)


def error_response(e: ServiceError) -> Response:
    code = e.code.name
    status = getattr(e, "http_status", None) or HTTP_STATUS.get(code, 500)
    if isinstance(e, TooLarge):
        # Not 429: nothing is busy, and waiting will not help. 507 Insufficient Storage says what
        # happened (the server cannot hold what the answer needs, under its --table-bytes bound) and
        # that another server or request (a smaller region, method search) may; no Retry-After.
        status = TOO_LARGE_STATUS
    field = getattr(e, "field", None)
    headers = {}
    if isinstance(e, Refusal):
        headers["Retry-After"] = str(max(1, math.ceil(e.retry_after)))
        headers["X-Retry-After-Ms"] = str(max(1, round(e.retry_after * 1000)))
    return JSON(error_body(code, cut(e.details or code), field), status_code=status, headers=headers)


def decode_json(raw: bytes) -> Any:
    """The body as JSON; BadRequest("body", ...) naming the problem."""
    if not raw.strip():
        raise BadRequest("body", "empty; send a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadRequest("body", f"not UTF-8 (byte {e.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadRequest("body", f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise BadRequest("body", "not valid JSON: nested too deeply") from None
    except ValueError:   # int() of a number longer than sys.get_int_max_str_digits()
        raise BadRequest("body", "not valid JSON: a number has too many digits") from None


def deadline_of(request: Request) -> float | None:
    """``time.monotonic()`` instant from the ``X-Deadline-Ms`` header (milliseconds from now), or None."""
    raw = request.headers.get(DEADLINE_HEADER)
    if raw is None:
        return None
    try:
        ms = float(raw.strip())
    except ValueError:
        ms = math.nan
    if not (math.isfinite(ms) and 0 < ms <= MAX_DEADLINE_MS):
        raise BadRequest("X-Deadline-Ms", f"{cut(raw, 40)!r}; expected milliseconds, more than 0 and at most "
                                            f"{MAX_DEADLINE_MS}")
    return time.monotonic() + ms / 1000.0


def peer_of(request: Request) -> str:
    client = request.client
    if client is None:
        return "http:unknown"
    return f"http:{client.host}:{client.port}"


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, refused with 413 beyond ``limit`` bytes (checked before reading when announced)."""
    announced = request.headers.get("content-length")
    if announced is not None:
        try:
            size = int(announced)
        except ValueError:
            raise BadRequest("Content-Length", f"{cut(announced, 40)!r} is not a number") from None
        if size > limit:
            raise HttpError(413, grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"request body is {size} bytes; at most {limit}", "body")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HttpError(413, grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"request body is more than {limit} bytes", "body")
        chunks.append(chunk)
    return b"".join(chunks)


Work = Callable[[Any, Call], Any]
_DONE = object()


class Calls:
    """Runs API calls over one :class:`server.core.ServiceCore`."""

    def __init__(self, core: Any, metrics: Any, log: Any, threads: int) -> None:
        self.core = core
        self.metrics = metrics
        self.log = log
        # Every call that may wait for a worker holds a thread, as in the gRPC face.
        self.limiter = anyio.CapacityLimiter(max(4, threads))
        # Cheap calls (views, moves by the fast players) never wait behind expensive ones.
        self.cheap = anyio.CapacityLimiter(4)

    # ------------------------------------------------------------ helpers
    def _record(self, request: Request, service: str, method: str, kind: str) -> CallRecord:
        rid = request.headers.get("x-request-id")
        rec = CallRecord(service, method, kind, cut(rid, 80) if rid else None, peer_of(request))
        rec.extra["face"] = "http"
        forwarded = request.scope.get("state", {}).get("forwarded_for")
        if forwarded:  # the client behind a trusted proxy (web.security.client_key)
            rec.extra["client"] = forwarded
        return rec

    def _finish(self, rec: CallRecord, code: str, t0: float, details: str | None = None) -> None:
        seconds = time.perf_counter() - t0
        rec.code = code
        if details is not None and code != "OK":
            rec.details = cut(details)
        self.metrics.observe_call(rec, code, seconds)
        level = "error" if code in ("INTERNAL", "UNKNOWN") else "info"
        getattr(self.log, level)("rpc", **rec.log_fields(code, seconds))

    @staticmethod
    def _internal(rec: CallRecord, e: BaseException) -> ServiceError:
        rec.extra["error"] = cut(f"{type(e).__name__}: {e}", 2000)
        rec.extra["traceback"] = traceback.format_exc(limit=8)
        return ServiceError(grpc.StatusCode.INTERNAL,
                            f"internal error ({type(e).__name__}; request id {rec.ensure_request_id()})")

    async def _in_thread(self, request: Request, call: Call, fn: Callable[[], Any], heavy: bool,
                         gone: dict) -> Any:
        """``fn()`` in a worker thread while watching for a disconnect and the deadline."""

        async def watch_disconnect() -> None:
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    gone["yes"] = True
                    call.stop.set()
                    return

        async def expire() -> None:
            await anyio.sleep(max(0.0, call.time_remaining() or 0.0))
            call.stop.set()

        outcome: dict = {}
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch_disconnect)
            if call.deadline is not None:
                tg.start_soon(expire)
            try:
                outcome["value"] = await anyio.to_thread.run_sync(fn, limiter=self.limiter if heavy else self.cheap)
            except Exception as e:  # noqa: BLE001 - raised below, outside the task group (no ExceptionGroup)
                outcome["error"] = e
            finally:
                tg.cancel_scope.cancel()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    async def _open(self, request: Request, rec: CallRecord, body: bool) -> tuple[Call, Any]:
        call = Call(peer=rec.peer or "", deadline=None, record=rec)
        self.core.enter(call)
        try:
            call.deadline = deadline_of(request)
            data = None
            if body:
                try:
                    raw = await read_body(request, self.core.max_receive_bytes)
                except HttpError as e:
                    if e.http_status == 413:
                        self.metrics.refused.labels(method=rec.method, reason="oversize").inc()
                    raise
                data = decode_json(raw)
        except BaseException:
            self.core.exit(call)
            raise
        return call, data

    # ------------------------------------------------------------ unary
    async def unary(self, request: Request, method: str, work: Work, *, service: str = SERVICE,
                    body: bool = True, heavy: bool = True) -> Response:
        """Answer one call: ``work(json_body, call)`` returns the JSON answer (runs in a thread)."""
        rec = self._record(request, service, method, "unary")
        self.metrics.observe_start(rec)
        t0 = time.perf_counter()
        code, details = "OK", None
        call = None
        try:
            call, data = await self._open(request, rec, body)
            gone: dict = {}
            try:
                result = await self._in_thread(request, call, lambda: work(data, call), heavy, gone)
            finally:
                self.core.exit(call)
            if gone:
                raise ServiceError(grpc.StatusCode.CANCELLED, "the client disconnected")
            remaining = call.time_remaining()
            if remaining is not None and remaining <= 0:
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed before the answer "
                                                                      "was ready")
            return JSON(result)
        except ServiceError as e:
            code, details = e.code.name, e.details
            return error_response(e)
        except Exception as e:  # noqa: BLE001 - a bug is INTERNAL, never a traceback to the client
            err = self._internal(rec, e)
            code, details = "INTERNAL", err.details
            return error_response(err)
        finally:
            self._finish(rec, code, t0, details)

    # ------------------------------------------------------------ streaming
    async def stream(self, request: Request, method: str, make: Callable[[Any, Call], Iterator[Any]],
                     *, as_list: bool = False, service: str = SERVICE) -> Response:
        """A server-streaming call: ``make(json_body, call)`` is a generator of JSON items.

        The answer is NDJSON (one item per line, sent as each is ready); an
        error before the first item is an ordinary error response, a later
        one ends the stream with an ``{"error": ...}`` line. With
        ``as_list`` the items are collected into ``{"items": [...]}``.
        """
        rec = self._record(request, service, method, "server_stream")
        self.metrics.observe_start(rec)
        t0 = time.perf_counter()
        code, details = "OK", None
        call = None
        gen: Any = None  # the generator make() returned
        handed_over = False
        try:
            call, data = await self._open(request, rec, True)
            gone: dict = {}
            try:
                gen = make(data, call)
                first = await self._in_thread(request, call, lambda: next(gen, _DONE), True, gone)
                if as_list:
                    items = []
                    item = first
                    while item is not _DONE and not gone:
                        items.append(item)
                        item = await self._in_thread(request, call, lambda: next(gen, _DONE), True, gone)
                    if gone:
                        raise ServiceError(grpc.StatusCode.CANCELLED, "the client disconnected")
                    return JSON({"items": items})
                handed_over = True
                return _NDJSONStream(self, request, rec, call, gen, first, t0)
            finally:
                if not handed_over:
                    if gen is not None:
                        gen.close()
                    self.core.exit(call)
        except ServiceError as e:
            code, details = e.code.name, e.details
            return error_response(e)
        except Exception as e:  # noqa: BLE001
            err = self._internal(rec, e)
            code, details = "INTERNAL", err.details
            return error_response(err)
        finally:
            if not handed_over:
                self._finish(rec, code, t0, details)


class _NDJSONStream(Response):
    """Sends the items of a started generator as NDJSON lines; finishes the call's bookkeeping."""

    media_type = "application/x-ndjson"

    def __init__(self, calls: Calls, request: Request, rec: CallRecord, call: Call, gen: Any, first: Any,
                 t0: float) -> None:
        self.status_code = 200
        self.background = None
        self.body = b""
        self.raw_headers = [(b"content-type", b"application/x-ndjson"), (b"cache-control", b"no-store")]
        self.calls, self.request, self.rec, self.call = calls, request, rec, call
        self.gen, self.first, self.t0 = gen, first, t0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        calls, call = self.calls, self.call
        code, details = "OK", None
        gone: dict = {}
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            item = self.first
            while item is not _DONE:
                await send({"type": "http.response.body", "body": json_bytes(item) + b"\n", "more_body": True})
                try:
                    item = await calls._in_thread(self.request, call, lambda: next(self.gen, _DONE), True, gone)
                except ServiceError as e:
                    code, details = e.code.name, e.details
                    await send({"type": "http.response.body", "more_body": True,
                                "body": json_bytes(error_body(code, cut(e.details or code),
                                                              getattr(e, "field", None))) + b"\n"})
                    break
                except Exception as e:  # noqa: BLE001
                    err = calls._internal(self.rec, e)
                    code, details = "INTERNAL", err.details
                    await send({"type": "http.response.body", "more_body": True,
                                "body": json_bytes(error_body("INTERNAL", err.details)) + b"\n"})
                    break
                if gone:
                    code, details = "CANCELLED", "the client disconnected"
                    break
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            code, details = "CANCELLED", "the client disconnected"
        finally:
            self.gen.close()
            calls.core.exit(call)
            calls._finish(self.rec, code, self.t0, details)
