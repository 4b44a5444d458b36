"""What the deployment tests share: the Dockerfile's instructions, the server's
effective configuration for a container spec, Kubernetes quantities, a
.dockerignore matcher."""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import shlex
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]
KUBERNETES = REPO / "deploy" / "kubernetes"
BASE = KUBERNETES / "base"
PRODUCTION = KUBERNETES / "overlays" / "production"
INGRESS_TLS = KUBERNETES / "overlays" / "ingress-tls"
HEALTHZ = "/api/v1/healthz"  # the web face's health endpoint (web/app.py), the pods' readiness probe


# ---------------------------------------------------------------- Dockerfile

@dataclass
class Instruction:
    keyword: str
    args: str
    stage: int  # index of the FROM it belongs to

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form ENTRYPOINT / CMD / HEALTHCHECK CMD (ValueError if shell form)."""
        text = self.args
        if self.keyword == "HEALTHCHECK":
            text = text[text.index(" CMD ") + len(" CMD "):].strip()
        value = json.loads(text)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{self.keyword} is not in exec form: {self.args}")
        return value


@dataclass
class Dockerfile:
    instructions: list[Instruction] = field(default_factory=list)
    args: dict[str, str] = field(default_factory=dict)  # ARGs before the first FROM

    @classmethod
    def parse(cls, path: Path) -> "Dockerfile":
        lines, buf = [], ""
        for raw in path.read_text(encoding="utf-8").splitlines():
            stripped = raw.strip()
            if not buf and (not stripped or stripped.startswith("#")):
                continue
            if buf and stripped.startswith("#"):  # comment inside a continued instruction
                continue
            if stripped.endswith("\\"):
                buf += stripped[:-1] + " "
                continue
            lines.append(buf + stripped)
            buf = ""
        df, stage = cls(), -1
        for line in lines:
            keyword, _, rest = line.partition(" ")
            keyword = keyword.upper()
            if keyword == "FROM":
                stage += 1
            if keyword == "ARG" and stage < 0:
                name, _, default = rest.strip().partition("=")
                df.args[name] = default
            df.instructions.append(Instruction(keyword, " ".join(rest.split()), stage))
        return df

    def all(self, keyword: str, stage: int | None = None) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword and (stage is None or i.stage == stage)]

    def last(self, keyword: str) -> Instruction:
        """The instruction of the final image (the last stage's, else inherited... we require it in the last)."""
        found = self.all(keyword, self.final_stage)
        if not found:
            raise AssertionError(f"the runtime stage has no {keyword}")
        return found[-1]

    @property
    def final_stage(self) -> int:
        return max(i.stage for i in self.instructions)

    def env(self, stage: int | None = None) -> dict[str, str]:
        stage = self.final_stage if stage is None else stage
        out: dict[str, str] = {}
        for ins in self.all("ENV", stage):
            for token in shlex.split(ins.args):
                name, eq, value = token.partition("=")
                if not eq:
                    raise ValueError(f"use ENV NAME=VALUE: {ins.args}")
                out[name] = value
        return out

    def exposed(self) -> set[int]:
        ports = set()
        for ins in self.all("EXPOSE", self.final_stage):
            for p in ins.args.split():
                ports.add(int(p.split("/")[0]))
        return ports


# ---------------------------------------------------------------- Kubernetes

_SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
           "m": 10**-3, "": 1}


def quantity(q: str | int | float) -> float:
    """A Kubernetes resource quantity as a number: '2' -> 2, '500m' -> 0.5, '1Gi' -> 1073741824."""
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(q))
    if not m or m.group(2) not in _SUFFIX:
        raise ValueError(f"not a quantity: {q!r}")
    return float(m.group(1)) * _SUFFIX[m.group(2)]


def one(docs: list[dict], kind: str, name: str | None = None) -> dict:
    """The one resource of ``kind`` (named ``name``, when given)."""
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind}{f' named {name}' if name else ''}, found {len(found)}"
    return found[0]


def server_container(docs: list[dict]) -> dict:
    spec = one(docs, "Deployment")["spec"]["template"]["spec"]
    found = [c for c in spec["containers"] if c["name"] == "server"]
    assert len(found) == 1, "the Deployment needs one container named 'server'"
    return found[0]


def container_env(container: dict) -> dict[str, str]:
    """The container's environment as the kubelet would set it (resourceFieldRef resolved)."""
    out = {}
    for e in container.get("env", []):
        if "value" in e:
            out[e["name"]] = str(e["value"])
            continue
        ref = e.get("valueFrom", {}).get("resourceFieldRef")
        if ref is None:
            raise AssertionError(f"env {e['name']}: only values and resourceFieldRef are resolved here")
        assert ref.get("containerName", container["name"]) == container["name"], e
        kind, _, res = ref["resource"].partition(".")
        amount = quantity(container["resources"][kind][res]) / quantity(ref.get("divisor", "1"))
        out[e["name"]] = str(math.ceil(amount))  # the kubelet rounds up
    return out


@contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """Only ``env``'s QUILTSOLVE_* variables set while the server's parser reads its defaults."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("QUILTSOLVE_")}
    for k in saved:
        del os.environ[k]
    os.environ.update({k: v for k, v in env.items() if k.startswith("QUILTSOLVE_")})
    try:
        yield
    finally:
        for k in [k for k in os.environ if k.startswith("QUILTSOLVE_")]:
            del os.environ[k]
        os.environ.update(saved)


def effective_args(container: dict, image_env: dict[str, str]) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The parsed flags of the image's program (quiltsolve-web: the server's flags plus
    --http-port / --no-http) for this container: image ENV, then the pod's env, then args."""
    from quiltsolve.web.__main__ import build_web_parser

    env = {**image_env, **container_env(container)}
    with environment(env):
        parser = build_web_parser()
        ns = parser.parse_args(container.get("args", []))
    return parser, ns


def flag_names(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def env_names_read(*paths: Path) -> set[str]:
    """QUILTSOLVE_* names that appear in these sources (what the programs read)."""
    names: set[str] = set()
    for p in paths:
        names |= set(re.findall(r"QUILTSOLVE_[A-Z_]+", p.read_text(encoding="utf-8")))
    return names


# ---------------------------------------------------------------- .dockerignore

def dockerignore_patterns(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.strip().startswith("#")]


def _pattern_regex(pat: str) -> re.Pattern:
    """Docker's (Go filepath.Match) glob: ``*`` and ``?`` stay within one path segment, ``**`` spans any."""
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pat[i])
            i += 1
    return re.compile(out + r"\Z")


def ignored(rel: str, patterns: list[str]) -> bool:
    """Whether the build context leaves out ``rel`` (a path relative to the context), by Docker's
    rules: the last matching pattern decides, ``!`` re-includes, and a directory's exclusion
    covers everything inside it."""
    parts = rel.strip("/").split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    result = False
    for pat in patterns:
        negate = pat.startswith("!")
        rx = _pattern_regex((pat[1:] if negate else pat).strip("/"))
        if any(rx.match(p) for p in prefixes):
            result = not negate
    return result


# ---------------------------------------------------------------- calls

def long_move_request(seconds: float):
    """A SuggestMove that thinks for ``seconds`` (a call that is still in flight when a drain starts)."""
    from quiltsolve import engine
    from google.protobuf import duration_pb2
    from quiltsolve.patchwork.v1 import placement_pb2 as pb

    state = engine.new_game(7)
    return pb.SuggestMoveRequest(state_json=json.dumps(state.to_json()), top=3, seed=0,
                                 time_limit=duration_pb2.Duration(seconds=int(seconds),
                                                                  nanos=int(seconds % 1 * 1e9)))
