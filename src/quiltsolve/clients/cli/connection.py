"""The service options (``--server``, ``--tls``, ``--ca``, ``--cert``, ``--key``, ``--token-file``)
as the arguments of :func:`clients.connect`: the files read, the combinations that make no sense refused."""

from __future__ import annotations

import argparse
from typing import Any

from .. import errors
from ..inputs import decode_text, read_bytes


def remote_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``PlacementClient`` arguments of the service options (TLS, token)."""
    tls_files = [(name, value) for name, value in (("--ca", args.ca), ("--cert", args.cert), ("--key", args.key))
                 if value is not None]
    if not args.server:
        used = [name for name, value in [("--tls", args.tls), *tls_files, ("--token-file", args.token_file)]
                if value]
        if used:
            raise errors.InvalidArgument(f"{used[0]} needs --server (the embedded solver makes no connection)")
        return {}
    if tls_files and not args.tls:
        raise errors.InvalidArgument(f"{tls_files[0][0]} needs --tls")
    kw: dict[str, Any] = {}
    if args.tls:
        kw.update(tls=True, ca=args.ca and read_bytes(args.ca), cert=args.cert and read_bytes(args.cert),
                  key=args.key and read_bytes(args.key))
    if args.token_file:
        token = decode_text(read_bytes(args.token_file, limit=64 * 1024), args.token_file).strip()
        if not token:
            raise errors.InvalidArgument(f"the token file {args.token_file} is empty")
        kw["token"] = token
    return kw
