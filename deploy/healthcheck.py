"""Health check of a quiltsolve server through the standard gRPC health service.

The image's ``HEALTHCHECK`` and the TLS overlay's Kubernetes exec probes run
it (there is no ``grpc_health_probe`` binary in the image):

    python healthcheck.py                                  # 127.0.0.1:$QUILTSOLVE_PORT, service ""
    python healthcheck.py --service patchwork.v1.PlacementService
    python healthcheck.py --tls --ca ca.crt --server-name quiltsolve.prod.svc.cluster.local

Exit status: 0 when the server answers SERVING; 1 when it answers anything
else, cannot be reached or does not answer within ``--timeout``; 2 for bad
arguments. One line on stdout (healthy) or stderr (not). Defaults come from
the environment so that a fixed ``HEALTHCHECK CMD`` follows ``podman run -e``:
``QUILTSOLVE_HOST`` / ``QUILTSOLVE_PORT`` (the server's own variables),
``QUILTSOLVE_HEALTH_SERVICE``, ``QUILTSOLVE_HEALTH_TLS=1``,
``QUILTSOLVE_HEALTH_CA``, ``QUILTSOLVE_HEALTH_CERT``, ``QUILTSOLVE_HEALTH_KEY``,
``QUILTSOLVE_HEALTH_SERVER_NAME``. The health service needs no bearer token
(the server leaves it open), so ``--auth-token-file`` needs nothing here.
"""

from __future__ import annotations

import argparse
import os
import sys

PLACEMENT_SERVICE = "patchwork.v1.PlacementService"


def default_address(env: dict[str, str] | None = None) -> str:
    """Where the server in this container listens, seen from inside it."""
    env = os.environ if env is None else env
    host = (env.get("QUILTSOLVE_HOST") or "").strip()
    port = (env.get("QUILTSOLVE_PORT") or "").strip() or "50051"
    if host in ("", "0.0.0.0", "::", "[::]", "localhost"):  # every address: loopback reaches it
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def build_parser() -> argparse.ArgumentParser:
    env = os.environ
    p = argparse.ArgumentParser(prog="healthcheck.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--address", default=None,
                   help="HOST:PORT of the server (default: 127.0.0.1 and QUILTSOLVE_PORT, else 50051)")
    p.add_argument("--service", default=env.get("QUILTSOLVE_HEALTH_SERVICE", ""),
                   help=f"health service name: '' (the whole server, default) or {PLACEMENT_SERVICE}")
    p.add_argument("--timeout", type=float, default=3.0, help="seconds for connecting and answering (default 3)")
    p.add_argument("--tls", action="store_true", default=_flag(env.get("QUILTSOLVE_HEALTH_TLS")),
                   help="the server speaks TLS (--tls-cert); env QUILTSOLVE_HEALTH_TLS=1")
    p.add_argument("--ca", default=env.get("QUILTSOLVE_HEALTH_CA"),
                   help="PEM file of the CA that signed the server's certificate (default: system roots)")
    p.add_argument("--cert", default=env.get("QUILTSOLVE_HEALTH_CERT"),
                   help="client certificate PEM, when the server requires one (--tls-client-ca)")
    p.add_argument("--key", default=env.get("QUILTSOLVE_HEALTH_KEY"), help="the private key of --cert")
    p.add_argument("--server-name", default=env.get("QUILTSOLVE_HEALTH_SERVER_NAME"),
                   help="name to check the server's certificate against (default: the address's host)")
    return p


def check(address: str, service: str = "", timeout: float = 3.0, *, tls: bool = False,
          ca: str | None = None, cert: str | None = None, key: str | None = None,
          server_name: str | None = None) -> tuple[bool, str]:
    """(healthy, message) from one ``grpc.health.v1.Health/Check`` call."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    if tls:
        def read(path: str | None) -> bytes | None:
            if not path:
                return None
            with open(path, "rb") as f:
                return f.read()

        creds = grpc.ssl_channel_credentials(root_certificates=read(ca), private_key=read(key),
                                             certificate_chain=read(cert))
        options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
        channel = grpc.secure_channel(address, creds, options=options)
    else:
        channel = grpc.insecure_channel(address)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            resp = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as e:
            return False, f"{address} service {service!r}: {e.code().name}: {e.details()}"
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)
        return resp.status == health_pb2.HealthCheckResponse.SERVING, f"{address} service {service!r}: {status}"
    finally:
        channel.close()


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    if (a.cert is None) != (a.key is None):
        p.error("--cert and --key go together")
    if not a.tls and (a.ca or a.cert or a.server_name):
        p.error("--ca, --cert and --server-name need --tls")
    try:
        healthy, message = check(a.address or default_address(), a.service, a.timeout, tls=a.tls, ca=a.ca,
                                 cert=a.cert, key=a.key, server_name=a.server_name)
    except OSError as e:  # an unreadable PEM file
        print(f"unhealthy: {e}", file=sys.stderr)
        return 1
    print(("healthy: " if healthy else "unhealthy: ") + message, file=sys.stdout if healthy else sys.stderr)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
