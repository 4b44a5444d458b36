#!/usr/bin/env python3
"""Regenerate the committed protobuf / gRPC Python stubs from ``proto/``.

    python scripts/gen_proto.py           # write src/quiltsolve/patchwork/**/*_pb2*.py(i)
    python scripts/gen_proto.py --check   # exit 1 if the committed stubs differ

Every ``.proto`` under ``proto/`` is compiled with ``grpc_tools.protoc``
(``-Iproto --python_out --pyi_out --grpc_python_out``) into the ``patchwork``
package, ``src/quiltsolve/patchwork/``. The output only depends on the ``.proto``
files and the pinned grpcio-tools version, so ``--check`` can compare it byte
for byte: it generates into a temporary directory and diffs.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import sys
import tempfile
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
OUT = ROOT / "src" / "quiltsolve"   # the stubs package is OUT / "patchwork"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")
# The import path of the stubs package is IMPORT_PREFIX + "patchwork" (the
# proto package, ``patchwork.v1`` on the wire, never changes). protoc derives
# the generated imports from the .proto paths, so they are rewritten after
# generation (see fix_imports): the stubs live in the installed package quiltsolve.
IMPORT_PREFIX = "quiltsolve."


def proto_files() -> list[Path]:
    return sorted(PROTO.rglob("*.proto"))


def generate(out: Path) -> None:
    """Compile every proto into ``out`` and add the package ``__init__.py`` files."""
    from grpc_tools import protoc

    include = str(resources.files("grpc_tools") / "_proto")  # google/protobuf/*.proto
    files = [str(p.relative_to(PROTO)) for p in proto_files()]
    if not files:
        raise SystemExit("no .proto files under proto/")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *files,
    ]
    rc = protoc.main(args)
    if rc != 0:
        raise SystemExit(f"protoc failed with exit code {rc}")
    for path in sorted(p for p in out.rglob("*") if p.name.endswith(GENERATED_SUFFIXES)):
        text = path.read_text()
        fixed = fix_imports(text)
        if fixed != text:
            path.write_text(fixed)
    # Every directory that holds generated modules becomes a regular package
    # (only those: ``out`` is the package folder, which has its own).
    for path in sorted(p for p in out.rglob("*") if p.name.endswith(GENERATED_SUFFIXES)):
        for parent in path.relative_to(out).parents:
            if parent == Path("."):
                continue
            init = out / parent / "__init__.py"
            if not init.exists():
                init.write_text('"""Generated protobuf / gRPC stubs (scripts/gen_proto.py); do not edit."""\n')


def fix_imports(text: str, prefix: str | None = None) -> str:
    """``text`` (a generated stub) with its imports of the stubs package under ``prefix``.

    ``from quiltsolve.patchwork.v1 import placement_pb2 as ...`` (what grpc_tools writes in
    ``_pb2_grpc.py``) and the module name given to the descriptor builder
    (``'quiltsolve.patchwork.v1.placement_pb2'``, the messages' ``__module__``) become
    ``from quiltsolve.patchwork.v1 import ...`` / ``'quiltsolve.patchwork.v1.placement_pb2'``;
    the descriptors' full names (``patchwork.v1.X``) are left alone. Idempotent.
    """
    prefix = IMPORT_PREFIX if prefix is None else prefix
    if not prefix:
        return text
    text = re.sub(r"^(\s*)(from|import) patchwork((?:\.\w+)*)\b", rf"\1\2 {prefix}patchwork\3", text,
                  flags=re.MULTILINE)
    return re.sub(r"(['\"])patchwork((?:\.\w+)*\.\w+_pb2(?:_grpc)?)\1", rf"\1{prefix}patchwork\2\1", text)


def generated_files(root: Path) -> set[Path]:
    """Paths (relative to ``root``) of generated stubs and package inits under patchwork/."""
    base = root / "patchwork"
    if not base.exists():
        return set()
    return {
        p.relative_to(root)
        for p in base.rglob("*")
        if p.is_file() and (p.name.endswith(GENERATED_SUFFIXES) or p.name == "__init__.py")
    }


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        generate(tmp_path)
        want = generated_files(tmp_path)
        have = generated_files(OUT)
        problems = []
        for rel in sorted(want - have):
            problems.append(f"missing: {rel}")
        for rel in sorted(have - want):
            problems.append(f"stale (no .proto generates it): {rel}")
        for rel in sorted(want & have):
            if not filecmp.cmp(tmp_path / rel, OUT / rel, shallow=False):
                problems.append(f"differs: {rel}")
    if problems:
        print("generated stubs are out of date; run `make proto`:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"generated stubs are up to date ({len(want)} files)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="generate into a temp dir and exit 1 if the committed stubs differ")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    generate(OUT)
    for rel in sorted(generated_files(OUT)):
        print(rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
