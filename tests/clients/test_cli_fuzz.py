"""Seeded fuzz test of ``suggest``: random files (text, binary, huge, with a
byte-order mark), random grids, nested and odd JSON states, random patch
and option values. Every run ends with exit code 0, 1 or 2, never a
traceback; exit 2 is exactly one line on stderr; ``--json`` output parses."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CORNER, run_cli

CASES_PER_SEED = 40


def _grid(rng: random.Random, height: int, width: int, fill: float) -> list[str]:
    return ["".join("#" if rng.random() < fill else "." for _ in range(width)) for _ in range(height)]


def _state(rng: random.Random) -> str:
    from quiltsolve import engine

    base = engine.new_game(rng.randrange(1000)).to_json()
    kind = rng.randrange(9)
    if kind == 0:
        return "[" * rng.choice([10, 1000, 100_000]) + "]" * rng.randrange(3)
    if kind == 1:
        return '{"a": ' * rng.choice([50, 5000]) + "1" + "}" * rng.randrange(5)
    if kind == 2:
        base["players"][rng.randrange(2)]["buttons"] = 10 ** rng.choice([30, 300, 3000])
        return json.dumps(base)
    if kind == 3:  # one field replaced by something of another type
        key = rng.choice(sorted(base))
        base[key] = rng.choice([None, -1, 2**70, "x", [], {}, [[[]]], 1.5, True])
        return json.dumps(base)
    if kind == 4:
        player = base["players"][rng.randrange(2)]
        player[rng.choice(sorted(player))] = rng.choice([None, -5, 10**40, "board", [1, 2], {"a": 1}, 3.25])
        return json.dumps(base)
    if kind == 5:
        text = json.dumps(base)
        cut = rng.randrange(len(text))
        return text[:cut]
    if kind == 6:
        return json.dumps(rng.choice([[], 1, "state", None, {"edition": "revised"}]))
    if kind == 7:
        base["circle"] = [rng.randrange(-5, 40) for _ in range(rng.randrange(40))]
        return json.dumps(base)
    return json.dumps(base)


def _file_bytes(rng: random.Random, command: str) -> bytes:
    kind = rng.randrange(16)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
    if kind == 1:
        return b"." * ((1 << 20) + rng.randrange(1, 100))         # just over the 1 MiB bound
    if kind == 2:
        return "".join(rng.choice(".#/\n \t;x\u00e9\u2192") for _ in range(rng.randrange(200))).encode()
    if kind == 3:
        return b"\xef\xbb\xbf" + ("\n".join(CORNER) + "\n").encode()
    if kind == 4:
        return "\n".join(CORNER).encode("utf-16")
    if command == "move":
        text = _state(rng)
        return (b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + text.encode()
    if command == "puzzle":
        h, w = rng.randrange(1, 23), rng.randrange(1, 23)
        return "\n".join(_grid(rng, h, w, rng.random() * 0.5)).encode()
    rows = _grid(rng, rng.choice([9, 9, 9, 8, 10]), rng.choice([9, 9, 9, 7, 12]), rng.random())
    return ("\r\n" if rng.random() < 0.2 else "\n").join(rows).encode()


def _patch(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return str(rng.randrange(-3, 40))
    if kind == 1:
        return ",".join(str(rng.randrange(33)) for _ in range(rng.randrange(1, 4)))
    if kind == 2:
        h, w = rng.randrange(1, 5), rng.randrange(1, 5)
        return "/".join(_grid(rng, h, w, 0.7))
    if kind == 3:
        return rng.choice(["", ",", "#" * 600, "1" * 50, "٣", "-", "#.#", "##/##/##/##/##/##/##/##/##/##", "x"])
    return str(rng.randrange(33))


def _argv(rng: random.Random, tmp: Path, n: int) -> list[str]:
    command = rng.choice(["place", "place", "next", "move", "move", "puzzle", "puzzle", "patches"])
    argv = [command]
    if command != "patches":
        source = rng.randrange(10)
        if source == 0:
            argv.append(rng.choice(["/dev/zero", str(tmp), "/nonexistent", "....", "/".join(CORNER), "#"]))
        else:
            path = tmp / f"input-{n}"
            path.write_bytes(_file_bytes(rng, command))
            argv.append(str(path))
    if command in ("place", "next"):
        flag = "--patch"
        for _ in range(1 if command == "next" else rng.randrange(1, 5)):
            argv += [flag, _patch(rng)]
        if command == "next":
            for _ in range(rng.randrange(3)):
                argv += ["--upcoming", _patch(rng)]
            if rng.random() < 0.3:
                argv += ["--top", rng.choice(["1", "3", "3", "0", "-4", "x", "99999"])]
    if command == "puzzle":
        for _ in range(rng.randrange(1, 6)):
            argv += ["--piece", _patch(rng)]
        if rng.random() < 0.3:
            argv.append("--count")
        if rng.random() < 0.2:
            argv.append("--allow-unused")
    if command == "move":
        argv += ["--iterations", "20" if rng.random() < 0.9 else rng.choice(["0", "abc", "300000"])]
    if command in ("place", "next", "puzzle"):
        argv += ["--time-limit", "0.2" if rng.random() < 0.9 else rng.choice(["0", "nan", "-1", "1e9", "x"])]
    if rng.random() < 0.5:
        argv.append("--json")
    if rng.random() < 0.1:
        argv += ["--svg", str(rng.choice([tmp / f"out-{n}.svg", tmp, tmp / "missing" / "x.svg"]))]
    if rng.random() < 0.05:
        argv.append(rng.choice(["--frobnicate", "--tls", "--ca", "--token-file=/dev/zero"]))
    rng.shuffle(argv[1:]) if rng.random() < 0.05 else None
    return argv


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_fuzz_suggest(tmp_path, seed):
    rng = random.Random(seed)
    for n in range(CASES_PER_SEED):
        argv = _argv(rng, tmp_path, n)
        r = run_cli(*argv)
        where = f"seed {seed} case {n}: suggest {' '.join(a[:60] for a in argv)}\n{r.err[-2000:]}"
        assert r.code in (0, 1, 2), where
        assert "Traceback" not in r.err and "Traceback" not in r.out, where
        if r.code == 2:
            assert r.out == "" and len(r.err.strip().splitlines()) == 1, where
            if "--json" in argv:
                assert json.loads(r.err)["code"] == 2, where
        elif "--json" in argv:
            json.loads(r.out)


SUGGEST = Path(sys.executable).parent / "suggest"


@pytest.mark.parametrize("data", [
    bytes(range(256)),                                      # binary on stdin
    b"\xef\xbb\xbf" + "\n".join(CORNER).encode(),           # a BOM on stdin
    b"\xff\xfe" + "\n".join(CORNER).encode("utf-16-le"),    # UTF-16
])
def test_real_stdin_bytes(data):
    cmd = [str(SUGGEST)] if SUGGEST.exists() else [sys.executable, "-m", "quiltsolve.clients.cli"]
    r = subprocess.run(cmd + ["place", "-", "--patch", "1"], input=data, capture_output=True, timeout=60)
    assert r.returncode in (0, 2), r.stderr
    assert b"Traceback" not in r.stderr
    if r.returncode == 2:
        assert len(r.stderr.strip().splitlines()) == 1
