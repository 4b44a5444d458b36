"""TLS for both faces, from the config's PEM files: gRPC server credentials and an HTTP ``ssl.SSLContext``.

Both follow one policy: the certificate chain and key of ``tls_cert`` /
``tls_key``; with ``tls_client_ca``, clients must present a certificate that
CA signed (mutual TLS). No certificate configured: plain text (None).
"""

from __future__ import annotations

import ssl

import grpc

from .config import ServerConfig


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20)
    except OSError as e:
        raise OSError(f"cannot read {what} {path!r}: {e.strerror}") from None


def server_credentials(config: ServerConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from the config's PEM files (None: plain text)."""
    if config.tls_cert is None:
        return None
    cert, key = _read(config.tls_cert, "--tls-cert"), _read(config.tls_key or "", "--tls-key")
    ca = _read(config.tls_client_ca, "--tls-client-ca") if config.tls_client_ca else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca, require_client_auth=ca is not None)


def server_ssl_context(config: ServerConfig) -> ssl.SSLContext | None:
    """The same TLS policy for the HTTP face (None: plain text): the config's certificate and key,
    TLS 1.2 or later, and with ``tls_client_ca`` a client certificate signed by it is required."""
    if config.tls_cert is None:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(config.tls_cert, config.tls_key)
    except (OSError, ssl.SSLError) as e:
        raise OSError(f"cannot load --tls-cert {config.tls_cert!r} / --tls-key {config.tls_key!r}: "
                      f"{getattr(e, 'strerror', None) or e}") from None
    if config.tls_client_ca:
        try:
            ctx.load_verify_locations(cafile=config.tls_client_ca)
        except (OSError, ssl.SSLError) as e:
            raise OSError(f"cannot load --tls-client-ca {config.tls_client_ca!r}: "
                          f"{getattr(e, 'strerror', None) or e}") from None
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx
