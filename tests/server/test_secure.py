"""Secure serving: TLS, client certificates, bearer tokens, reflection off."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import ServerConfig, build_server


@pytest.fixture(scope="module")
def pki(tmp_path_factory, make_certs) -> Path:
    """A CA, a server certificate for 127.0.0.1 / localhost and a client certificate, made here."""
    return make_certs(tmp_path_factory.mktemp("pki"), "IP:127.0.0.1,DNS:localhost", ("server", "client"))


def _lists(channel, **kw) -> int:
    return len(pbg.PlacementServiceStub(channel).ListPatches(pb.ListPatchesRequest(), timeout=10, **kw).patches)


def _tls_channel(port: int, pki: Path, client_cert: bool = False) -> grpc.Channel:
    creds = grpc.ssl_channel_credentials(
        root_certificates=(pki / "ca.pem").read_bytes(),
        private_key=(pki / "client.key").read_bytes() if client_cert else None,
        certificate_chain=(pki / "client.pem").read_bytes() if client_cert else None)
    return grpc.secure_channel(f"127.0.0.1:{port}", creds)


def test_tls_serves_and_plain_text_fails_cleanly(serve, pki):
    _, port = serve(tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"))
    with _tls_channel(port, pki) as ch:
        assert _lists(ch) == 33
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        with pytest.raises(grpc.RpcError) as err:
            _lists(ch)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE


def test_client_certificates_are_required_with_a_client_ca(serve, pki):
    _, port = serve(tls_cert=str(pki / "server.pem"), tls_key=str(pki / "server.key"),
                    tls_client_ca=str(pki / "ca.pem"))
    with _tls_channel(port, pki, client_cert=True) as ch:
        assert _lists(ch) == 33
    with _tls_channel(port, pki, client_cert=False) as ch:
        with pytest.raises(grpc.RpcError) as err:
            _lists(ch)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE


def test_bearer_token_is_required_except_for_health(serve):
    _, port = serve(auth_tokens=("s3cret", "next-one"))
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        for metadata in ((), (("authorization", "Bearer wrong"),), (("authorization", "s3cret"),)):
            with pytest.raises(grpc.RpcError) as err:
                _lists(ch, metadata=metadata)
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "Bearer" in err.value.details()
        assert _lists(ch, metadata=(("authorization", "Bearer s3cret"),)) == 33
        assert _lists(ch, metadata=(("authorization", "bearer next-one"),)) == 33
        health = health_pb2_grpc.HealthStub(ch)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == \
            health_pb2.HealthCheckResponse.SERVING
        refl = reflection_pb2_grpc.ServerReflectionStub(ch)
        with pytest.raises(grpc.RpcError) as err:
            list(refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                           timeout=5))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_reflection_can_be_turned_off(serve):
    _, port = serve(reflection=False)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        refl = reflection_pb2_grpc.ServerReflectionStub(ch)
        with pytest.raises(grpc.RpcError) as err:
            list(refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                           timeout=5))
        assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
        assert _lists(ch) == 33


def test_bad_security_flags_are_start_up_errors(tmp_path):
    with pytest.raises(ValueError, match="go together"):
        ServerConfig(tls_cert="x.pem")
    with pytest.raises(ValueError, match="needs tls_cert"):
        ServerConfig(tls_client_ca="ca.pem")
    with pytest.raises(OSError, match="cannot read --tls-cert"):
        build_server(ServerConfig(port=0, workers=1, tls_cert=str(tmp_path / "no.pem"),
                                  tls_key=str(tmp_path / "no.key"), warm_up=False))
    from quiltsolve.server.__main__ import parse_args
    empty = tmp_path / "tokens"
    empty.write_text("\n\n")
    with pytest.raises(SystemExit):
        parse_args(["--auth-token-file", str(empty)])
