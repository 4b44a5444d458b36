"""PlacementService and GameService methods as ``grpc.aio`` handlers: a :class:`Call` for the core,
the work where it belongs (the event loop or a thread), errors as status codes.

The gRPC face serves every call on one asyncio event loop (:mod:`server.app`). A method's work
goes one of two ways:

* **in the front**: a method with a ``front`` step (:meth:`server.service.PlacementServicer.front`:
  SolvePlacement, ListPatches) runs it on the loop itself: it validates the request, and a tiny
  job whose bounded try proves its answer (:meth:`server.core.ServiceCore.try_inline`) is answered
  there and then, with no thread and no trip to a worker process;
* **in a thread**: everything else, and a front step that hands back the rest of its work
  (``FrontStep.rest``), runs in the face's thread pool, where it may block (validation of large
  positions and records, waiting for a worker, a job, a stream of jobs) without holding up the
  loop; the loop awaits it. Cancellation and deadlines reach it through the call's stop token.

gRPC answers a deserializer's exception with INTERNAL and refuses an oversize
message before any handler sees it; :func:`tolerant_deserializer` turns both into values
(:class:`Undecodable`, :class:`Oversize`) that :class:`Method` answers,
logs and counts like any other refused call.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import traceback
from concurrent import futures
from typing import Any, Callable, Iterator

import grpc

from quiltsolve.patchwork.v1 import placement_pb2 as pb

from .core import Call, Refusal, ServiceCore
from .errors import BadRequest, ServiceError, cut
from .interceptors import CURRENT_RECORD
from .observe import SERVICE, CallRecord

_END = object()  # a stream's generator is exhausted


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
    """One unary method: a Call for the core, its front step on the loop, the rest in a thread, the
    error mapping and the answer.

    ``fn(request, call)`` is the whole blocking handler (run in ``executor``); ``front``, when given,
    is the method's front step (``front(request, call) -> FrontStep``), run on the event loop.
    """

    def __init__(self, name: str, fn: Callable[[Any, Call], Any], core: ServiceCore,
                 executor: futures.Executor, front: Callable[[Any, Call], Any] | None = None) -> None:
        self.name = name
        self.fn = fn
        self.core = core
        self.executor = executor
        self.front = front

    def _call(self, context: grpc.aio.ServicerContext) -> Call:
        rec = CURRENT_RECORD.get(None) or CallRecord(SERVICE, self.name)
        remaining = context.time_remaining()
        return Call(peer=rec.peer or context.peer() or "", record=rec,
                    deadline=None if remaining is None else time.monotonic() + remaining)

    def _open(self, request: Any, context: grpc.aio.ServicerContext, call: Call) -> None:
        """Count the call in flight and check what the deserializer saw (raises ServiceError)."""
        self.core.enter(call)
        context.add_done_callback(lambda _: call.stop.set())
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
        call.record.extra["traceback"] = "".join(traceback.format_exception(e, limit=8))
        return (grpc.StatusCode.INTERNAL,
                f"internal error ({type(e).__name__}; request id {call.record.ensure_request_id()})", ())

    @staticmethod
    def _close(context: grpc.aio.ServicerContext, call: Call, code: grpc.StatusCode,
               details: str | None, trailers: tuple) -> None:
        """Report the outcome: a non-OK one is set on the context, and gRPC sends it once the handler
        (and the interceptors' log line and metrics) are done, as for an answer."""
        if context.done():  # the client went away (cancel or deadline) while we worked: nobody to answer
            call.record.code = (code if code is not grpc.StatusCode.OK else call.ended_code()).name
            return
        call.record.code = code.name
        if code is not grpc.StatusCode.OK:
            details = cut(details or code.name)
            call.record.details = details
            if trailers:
                context.set_trailing_metadata(trailers)
            context.set_code(code)
            context.set_details(details)

    async def _in_thread(self, call: Call, work: Callable[[], Any]) -> Any:
        """``work()`` in the thread pool; the call is counted out when it ends there. Cancelled (the
        client went away, or its deadline passed), the call's stop token stops the work, which is
        awaited (a stopped solve answers within milliseconds) so that its log line is complete."""
        def run() -> Any:
            try:
                return work()
            finally:
                self.core.exit(call)

        job = self.executor.submit(run)
        try:
            return await asyncio.wrap_future(job)
        except asyncio.CancelledError:
            call.stop.set()
            call.record.code = call.ended_code().name
            if not job.cancel():  # running: let it see its stop token and end
                try:
                    await asyncio.wrap_future(job)
                except BaseException:  # noqa: BLE001 - the call is over; its outcome is the cancellation
                    pass
            else:
                self.core.exit(call)
            raise

    async def __call__(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        call = self._call(context)
        code, details, response, trailers = grpc.StatusCode.OK, None, None, ()
        threaded = False
        try:
            self._open(request, context, call)
            if self.front is not None:
                step = self.front(request, call)
                if step.rest is None:
                    response = step.response
                else:
                    threaded = True
                    response = await self._in_thread(call, step.rest)
            else:
                threaded = True
                response = await self._in_thread(call, lambda: self.fn(request, call))
        except asyncio.CancelledError:
            call.record.code = call.ended_code().name
            raise
        except Exception as e:  # noqa: BLE001 - mapped to a status code
            code, details, trailers = self._failure(e, call)
        finally:
            if not threaded:
                self.core.exit(call)
        self._close(context, call, code, details, trailers)
        return response if code is grpc.StatusCode.OK else None


class StreamMethod(Method):
    """A server-streaming method: ``fn(request, call)`` yields the responses; every step of it runs in
    a thread (a step may validate a record, wait for a worker, run a job, wait for a streaming job's
    next update) and each response is written to the stream from the loop. The generator holds one
    worker at a time (a unary job's, or a streaming job's for its whole run)."""

    async def __call__(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        call = self._call(context)
        code, details, trailers = grpc.StatusCode.OK, None, ()
        responses: Iterator[Any] | None = None
        try:
            self._open(request, context, call)
            responses = await self._step(call, lambda: iter(self.fn(request, call)))
            while (response := await self._step(call, lambda: next(responses, _END))) is not _END:
                await context.write(response)
        except asyncio.CancelledError:
            call.stop.set()
            call.record.code = call.ended_code().name
            raise
        except Exception as e:  # noqa: BLE001 - mapped to a status code
            code, details, trailers = self._failure(e, call)
        finally:
            await self._finish_stream(call, responses)
        self._close(context, call, code, details, trailers)

    async def _step(self, call: Call, work: Callable[[], Any]) -> Any:
        step = self.executor.submit(work)
        try:
            return await asyncio.wrap_future(step)
        except asyncio.CancelledError:
            call.stop.set()
            if not step.cancel():   # a step under way ends soon on the stop token
                await asyncio.wait([asyncio.wrap_future(step)])
            raise

    async def _finish_stream(self, call: Call, responses: Iterator[Any] | None) -> None:
        """Close the generator (its ``finally`` blocks run: a streaming job's frees its worker and logs
        the cancel) and count the call out, before the call's outcome is logged. A generator stopped
        half-way closes in a thread (its worker answers first), one that has ended at once."""
        close = getattr(responses, "close", None)
        ended = not inspect.isgenerator(responses) or inspect.getgeneratorstate(responses) == inspect.GEN_CLOSED

        def finish() -> None:
            try:
                if close is not None:
                    close()
            finally:
                self.core.exit(call)

        if ended:
            finish()
            return
        try:
            done = self.executor.submit(finish)
        except RuntimeError:  # the pool is shut down: close here
            finish()
            return
        try:
            await asyncio.wait([asyncio.wrap_future(done)])
        except asyncio.CancelledError:  # cancelled again (the server stops): the close goes on in its thread
            pass
