"""PlacementService methods as gRPC handlers: a :class:`Call` for the core, errors as status codes.

gRPC answers a deserializer's exception with INTERNAL and refuses an oversize
message before any handler sees it; :func:`tolerant_deserializer` turns both into values
(:class:`Undecodable`, :class:`Oversize`) that :class:`Method` answers,
logs and counts like any other refused call.
"""

from __future__ import annotations

import time
import traceback
from typing import Any, Callable

import grpc

from quiltsolve.patchwork.v1 import placement_pb2 as pb

from .core import Call, Refusal, ServiceCore
from .errors import BadRequest, ServiceError, cut
from .interceptors import CURRENT_RECORD
from .observe import SERVICE, CallRecord


class Undecodable:
    """Stands in for a request whose bytes did not parse (answered INVALID_ARGUMENT)."""


class Oversize:
    """Stands in for a request larger than the limit (answered RESOURCE_EXHAUSTED)."""

    def __init__(self, size: int) -> None:
        self.size = size


def tolerant_deserializer(parse: Callable[[bytes], Any], max_bytes: int) -> Callable[[bytes], Any]:
    """``parse`` that never raises: an oversize or unparsable request becomes an :class:`Oversize` or
    :class:`Undecodable` value (gRPC would answer INTERNAL, or refuse it uncounted, itself)."""
    def deserialize(data: bytes) -> Any:
        if len(data) > max_bytes:
            return Oversize(len(data))
        try:
            return parse(data)
        except Exception:  # noqa: BLE001 - any parse failure is the client's
            return Undecodable()
    return deserialize


class Method:
    """One PlacementService method: a Call for the core, error mapping, the answer."""

    def __init__(self, name: str, fn: Callable[[Any, Call], Any], core: ServiceCore) -> None:
        self.name = name
        self.fn = fn
        self.core = core

    def _call(self, context: grpc.ServicerContext) -> Call:
        rec = CURRENT_RECORD.get(None) or CallRecord(SERVICE, self.name)
        remaining = context.time_remaining()
        return Call(peer=context.peer() or "", record=rec,
                    deadline=None if remaining is None else time.monotonic() + remaining)

    def _open(self, request: Any, context: grpc.ServicerContext, call: Call) -> None:
        """Count the call in flight and check what the deserializer saw (raises ServiceError)."""
        self.core.enter(call)
        if not context.add_callback(call.stop.set):  # already terminated
            call.stop.set()
        if isinstance(request, Undecodable):
            raise BadRequest("request", f"cannot parse the bytes as a {pb.DESCRIPTOR.package}."
                                        f"{self.name}Request message")
        if isinstance(request, Oversize):
            self.core.metrics.refused.labels(method=self.name, reason="oversize").inc()
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"request is {request.size} bytes; at most {self.core.max_receive_bytes}")

    @staticmethod
    def _failure(e: Exception, call: Call) -> tuple[grpc.StatusCode, str, tuple]:
        if isinstance(e, Refusal):
            return e.code, e.details, (("grpc-retry-pushback-ms", str(max(1, round(e.retry_after * 1000)))),)
        if isinstance(e, ServiceError):
            return e.code, e.details, ()
        # a bug must never surface as UNKNOWN
        call.record.extra["error"] = cut(f"{type(e).__name__}: {e}", 2000)
        call.record.extra["traceback"] = traceback.format_exc(limit=8)
        return (grpc.StatusCode.INTERNAL,
                f"internal error ({type(e).__name__}; request id {call.record.ensure_request_id()})", ())

    def _close(self, context: grpc.ServicerContext, call: Call, code: grpc.StatusCode, details: str | None,
               trailers: tuple) -> None:
        """Report the outcome; a non-OK one aborts the call (raises)."""
        if code is grpc.StatusCode.OK and not context.is_active():
            code = call.ended_code()  # the client went away (cancel or deadline) while we worked
        call.record.code = code.name
        if code is not grpc.StatusCode.OK:
            details = cut(details or code.name)
            call.record.details = details
            if trailers:
                context.set_trailing_metadata(trailers)
            context.abort(code, details)  # raises; gRPC sends this code

    def __call__(self, request: Any, context: grpc.ServicerContext) -> Any:
        call = self._call(context)
        code, details, response, trailers = grpc.StatusCode.OK, None, None, ()
        try:
            self._open(request, context, call)
            response = self.fn(request, call)
        except Exception as e:  # noqa: BLE001 - mapped to a status code
            code, details, trailers = self._failure(e, call)
        finally:
            self.core.exit(call)
        self._close(context, call, code, details, trailers)
        return response


class StreamMethod(Method):
    """A server-streaming PlacementService method: ``fn`` yields the responses."""

    def __call__(self, request: Any, context: grpc.ServicerContext) -> Any:
        call = self._call(context)
        code, details, trailers = grpc.StatusCode.OK, None, ()
        try:
            self._open(request, context, call)
            for response in self.fn(request, call):
                yield response
        except Exception as e:  # noqa: BLE001 - mapped to a status code
            code, details, trailers = self._failure(e, call)
        finally:
            self.core.exit(call)
        self._close(context, call, code, details, trailers)
