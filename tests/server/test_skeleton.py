"""Walking skeleton: generated stubs are current; a real server answers
ListPatches, the health service and reflection."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from quiltsolve import solver
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import SERVICE_NAME
from quiltsolve.server.game_service import GAME_SERVICE

ROOT = Path(__file__).resolve().parents[2]


def test_generated_stubs_are_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--check"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr


def test_list_patches_end_to_end(stub):
    resp = stub.ListPatches(pb.ListPatchesRequest(), timeout=10)
    assert [p.id for p in resp.patches] == list(range(33))
    assert sum(p.area for p in resp.patches) == 166
    assert sum(p.income for p in resp.patches) == 38
    first = resp.patches[0]
    assert (first.shape, list(first.rows), first.buttons, first.time) == ("##", ["##"], 2, 1)
    for p, want in zip(resp.patches, solver.PATCHES):
        assert solver.Shape.parse(p.shape) == want.shape
        assert (p.buttons, p.time, p.income) == (want.buttons, want.time, want.income)


def test_health_serving(channel):
    h = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE_NAME, GAME_SERVICE):
        resp = h.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert resp.status == health_pb2.HealthCheckResponse.SERVING
    try:
        h.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.NOT_FOUND
    else:
        raise AssertionError("unknown service must be NOT_FOUND")


def test_reflection_lists_and_describes_the_service(channel):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    reqs = [reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME)]
    answers = list(stub.ServerReflectionInfo(iter(reqs), timeout=10))
    names = {s.name for s in answers[0].list_services_response.service}
    assert {SERVICE_NAME, GAME_SERVICE, "grpc.health.v1.Health"} <= names
    files = answers[1].file_descriptor_response.file_descriptor_proto
    assert files, "reflection must return the file defining the service"
    from google.protobuf import descriptor_pb2
    fd = descriptor_pb2.FileDescriptorProto.FromString(files[0])
    assert fd.package == "patchwork.v1"
    assert {m.name for m in fd.service[0].method} >= {
        "SolvePlacement", "SuggestPlacement", "SuggestMove", "SolvePuzzle", "ListPatches"}
    assert {m.name for m in fd.service[1].method} == {
        "NewGame", "ViewPosition", "LegalMoves", "ApplyMove", "EngineMove", "ReplayGame", "LoadPosition",
        "PositionNotation"}


def test_call_is_logged_and_counted(stub, metrics, capfd):
    before = metrics.value("quiltsolve_calls_total", method="ListPatches", code="OK")
    stub.ListPatches(pb.ListPatchesRequest(), metadata=[("x-request-id", "req-42")], timeout=10)
    assert metrics.value("quiltsolve_calls_total", method="ListPatches", code="OK") == before + 1
    import json
    lines = [json.loads(l) for l in capfd.readouterr().err.splitlines() if l.startswith("{")]
    mine = [l for l in lines if l.get("request_id") == "req-42"]
    assert mine and mine[0]["method"] == "ListPatches" and mine[0]["code"] == "OK" and "ms" in mine[0]
