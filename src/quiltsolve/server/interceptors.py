"""What runs around every gRPC call of every service: metrics and one log line, bearer-token checks.

:class:`ObserveCalls` counts (``grpc_server_*``) and logs each call and sets
:data:`CURRENT_RECORD` for the handler, which takes its request id from it;
:class:`BearerAuth` answers UNAUTHENTICATED to calls without an accepted
token (health checks stay open).
"""

from __future__ import annotations

import contextvars
import time
from typing import Any

import grpc

from .auth import BearerTokens
from .errors import cut
from .observe import CallRecord, Metrics

# The record of the call being served, set for the handler's (first) step: the method adapters
# (server/adapters.py) read it to share the interceptor's request id, peer and outcome.
CURRENT_RECORD: contextvars.ContextVar[CallRecord] = contextvars.ContextVar("quiltsolve_call")
_DONE = object()  # a stream that ended before its first response


def _metadata_value(metadata: Any, key: str) -> str | None:
    for k, v in metadata or ():
        if k == key:
            return cut(v if isinstance(v, str) else v.decode("utf-8", "replace"), 80)
    return None


# ---------------------------------------------------------------- every call: metrics and one log line

def _code_name(context: grpc.ServicerContext, rec: CallRecord, raised: bool) -> str:
    if rec.code is not None:
        return rec.code
    code = context.code() if hasattr(context, "code") else None
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "UNKNOWN" if raised else "OK"


class ObserveCalls(grpc.ServerInterceptor):
    """Counts (``grpc_server_*``) and logs every call of every service, health and reflection included."""

    def __init__(self, metrics: Metrics, log: Any) -> None:
        self.metrics = metrics
        self.log = log

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = continuation(details)
        if handler is None:
            return None
        service, _, method = details.method.lstrip("/").partition("/")
        request_id = _metadata_value(details.invocation_metadata, "x-request-id")
        kind = {(False, False): "unary", (False, True): "server_stream",
                (True, False): "client_stream", (True, True): "bidi_stream"}[
            (handler.request_streaming, handler.response_streaming)]
        attr = {"unary": "unary_unary", "server_stream": "unary_stream",
                "client_stream": "stream_unary", "bidi_stream": "stream_stream"}[kind]
        inner = getattr(handler, attr)
        new_record = lambda context: CallRecord(service, method, kind, request_id, context.peer())  # noqa: E731
        if handler.response_streaming:
            def run_stream(request: Any, context: Any) -> Any:
                rec = new_record(context)
                self.metrics.observe_start(rec)
                t0, raised = time.perf_counter(), False
                responses = inner(request, context)
                try:
                    # The method takes this record (its request id) in its first step; the
                    # context variable is set for that step only, never across a yield.
                    token = CURRENT_RECORD.set(rec)
                    try:
                        first = next(responses, _DONE)
                    finally:
                        CURRENT_RECORD.reset(token)
                    if first is not _DONE:
                        yield first
                        yield from responses
                except GeneratorExit:  # the client stopped reading: cancelled or past its deadline
                    rec.code = rec.code or "CANCELLED"
                    raise
                except BaseException:
                    raised = True
                    raise
                finally:
                    responses.close()
                    self._finish(rec, _code_name(context, rec, raised), t0)
            return handler._replace(**{attr: run_stream})

        def run(request: Any, context: Any) -> Any:
            rec = new_record(context)
            token = CURRENT_RECORD.set(rec)
            self.metrics.observe_start(rec)
            t0, raised = time.perf_counter(), False
            try:
                return inner(request, context)
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


class BearerAuth(grpc.ServerInterceptor):
    """UNAUTHENTICATED for calls without ``authorization: Bearer <token>`` (health stays open)."""

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self._tokens = BearerTokens(tokens)

    def _ok(self, metadata: Any) -> bool:
        return self._tokens.accepts(_metadata_value(metadata, "authorization"))

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        service = details.method.lstrip("/").partition("/")[0]
        if service in OPEN_SERVICES or self._ok(details.invocation_metadata):
            return continuation(details)
        handler = continuation(details)
        if handler is None:
            return None

        def deny(request: Any, context: Any) -> Any:
            context.abort(grpc.StatusCode.UNAUTHENTICATED,
                          "a valid 'authorization: Bearer <token>' call credential is required")

        def deny_stream(request: Any, context: Any) -> Any:
            deny(request, context)
            yield  # pragma: no cover - deny raises

        kind = (handler.request_streaming, handler.response_streaming)
        make = {(False, False): grpc.unary_unary_rpc_method_handler,
                (False, True): grpc.unary_stream_rpc_method_handler,
                (True, False): grpc.stream_unary_rpc_method_handler,
                (True, True): grpc.stream_stream_rpc_method_handler}[kind]
        return make(deny_stream if handler.response_streaming else deny,
                    request_deserializer=handler.request_deserializer,
                    response_serializer=handler.response_serializer)
