"""What runs around every gRPC call of every service: metrics and one log line, bearer-token checks.

Both are ``grpc.aio`` interceptors: they run on the gRPC face's event loop (:mod:`server.app`).

:class:`ObserveCalls` counts (``grpc_server_*``) and logs each call and sets
:data:`CURRENT_RECORD` for the handler, which takes its request id from it;
:class:`BearerAuth` answers UNAUTHENTICATED to calls without an accepted
token (health checks stay open).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
from typing import Any

import grpc

from .auth import BearerTokens
from .errors import cut
from .observe import CallRecord, Metrics

# The record of the call being served, set while its handler runs (the asyncio task's context):
# the method adapters (server/adapters.py) read it to share the interceptor's request id, peer and outcome.
CURRENT_RECORD: contextvars.ContextVar[CallRecord] = contextvars.ContextVar("quiltsolve_call")


def _metadata_value(metadata: Any, key: str) -> str | None:
    for k, v in metadata or ():
        if k == key:
            return cut(v if isinstance(v, str) else v.decode("utf-8", "replace"), 80)
    return None


# ---------------------------------------------------------------- every call: metrics and one log line

def _code_name(context: grpc.aio.ServicerContext, rec: CallRecord, raised: bool) -> str:
    if rec.code is not None:
        return rec.code
    code = context.code() if hasattr(context, "code") else None
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "UNKNOWN" if raised else "OK"


def _ended(context: grpc.aio.ServicerContext) -> str:
    """Why a call whose handler was cancelled ended: its deadline passed, or the client cancelled."""
    remaining = context.time_remaining()
    return "DEADLINE_EXCEEDED" if remaining is not None and remaining <= 0 else "CANCELLED"


_KINDS = {(False, False): ("unary", "unary_unary"), (False, True): ("server_stream", "unary_stream"),
          (True, False): ("client_stream", "stream_unary"), (True, True): ("bidi_stream", "stream_stream")}


class ObserveCalls(grpc.aio.ServerInterceptor):
    """Counts (``grpc_server_*``) and logs every call of every service, health and reflection included."""

    def __init__(self, metrics: Metrics, log: Any) -> None:
        self.metrics = metrics
        self.log = log

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = await continuation(details)
        if handler is None:
            return None
        service, _, method = details.method.lstrip("/").partition("/")
        request_id = _metadata_value(details.invocation_metadata, "x-request-id")
        kind, attr = _KINDS[(handler.request_streaming, handler.response_streaming)]
        inner = getattr(handler, attr)
        new_record = lambda context: CallRecord(service, method, kind, request_id, context.peer())  # noqa: E731

        if inspect.isasyncgenfunction(inner):  # a handler that yields its responses (reflection)
            async def run_yielding(request: Any, context: Any) -> Any:
                rec = new_record(context)
                self.metrics.observe_start(rec)
                t0, raised = time.perf_counter(), False
                responses = inner(request, context)
                try:
                    async for response in responses:
                        yield response
                except (asyncio.CancelledError, GeneratorExit):  # the client went away, or its deadline passed
                    rec.code = rec.code or _ended(context)
                    raise
                except grpc.aio.AbortError:
                    raise
                except BaseException:
                    raised = True
                    raise
                finally:
                    await responses.aclose()
                    self._finish(rec, _code_name(context, rec, raised), t0)
            return handler._replace(**{attr: run_yielding})

        async def run(request: Any, context: Any) -> Any:
            rec = new_record(context)
            # The handler takes this record (its request id, peer and outcome) from the context variable.
            token = CURRENT_RECORD.set(rec)
            self.metrics.observe_start(rec)
            t0, raised = time.perf_counter(), False
            try:
                return await inner(request, context)
            except asyncio.CancelledError:  # the client went away, or its deadline passed
                rec.code = rec.code or _ended(context)
                raise
            except grpc.aio.AbortError:  # the status is the handler's: context.code()
                raise
            except BaseException:
                raised = True
                raise
            finally:
                CURRENT_RECORD.reset(token)
                self._finish(rec, _code_name(context, rec, raised), t0)
        return handler._replace(**{attr: run})

    def _finish(self, rec: CallRecord, code: str, t0: float) -> None:
        seconds = time.perf_counter() - t0
        self.metrics.observe_call(rec, code, seconds)
        level = "error" if code in ("INTERNAL", "UNKNOWN") else "info"
        getattr(self.log, level)("rpc", **rec.log_fields(code, seconds))


# ---------------------------------------------------------------- authentication

OPEN_SERVICES = frozenset({"grpc.health.v1.Health"})  # probes need no token


class BearerAuth(grpc.aio.ServerInterceptor):
    """UNAUTHENTICATED for calls without ``authorization: Bearer <token>`` (health stays open)."""

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self._tokens = BearerTokens(tokens)

    def _ok(self, metadata: Any) -> bool:
        return self._tokens.accepts(_metadata_value(metadata, "authorization"))

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        service = details.method.lstrip("/").partition("/")[0]
        if service in OPEN_SERVICES or self._ok(details.invocation_metadata):
            return await continuation(details)
        handler = await continuation(details)
        if handler is None:
            return None

        async def deny(request: Any, context: Any) -> None:
            # Set, not aborted: gRPC sends the status once the handler returns, after the log line.
            context.set_code(grpc.StatusCode.UNAUTHENTICATED)
            context.set_details("a valid 'authorization: Bearer <token>' call credential is required")

        kind = (handler.request_streaming, handler.response_streaming)
        make = {(False, False): grpc.unary_unary_rpc_method_handler,
                (False, True): grpc.unary_stream_rpc_method_handler,
                (True, False): grpc.stream_unary_rpc_method_handler,
                (True, True): grpc.stream_stream_rpc_method_handler}[kind]
        # A coroutine answers a streaming call too (grpc.aio's write style): here, only its status.
        return make(deny, request_deserializer=handler.request_deserializer,
                    response_serializer=handler.response_serializer)
