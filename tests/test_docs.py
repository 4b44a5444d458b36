"""The docs hold: every relative link of README.md and docs/*.md resolves
(the file, and for ``#anchor`` the heading), and every runnable shell
example of README.md and docs/cli.md runs as shown (the scheme is in
docs/cli.md, "Examples that run")."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE_DOCS = [ROOT / "README.md", ROOT / "docs" / "cli.md"]
# The scratch folder's board.txt: the board of the README's first example.
BOARD = "#########/####.####/####.####/...#.###./......###/......###/......###/.......##/........#"

FENCE = re.compile(r"^(```+|~~~+)(.*)$")
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans."""
    out, fence = [], None
    for line in text.splitlines():
        m = FENCE.match(line.strip())
        if m and (fence is None or m.group(1)[0] * 3 in line and line.strip().startswith(fence)):
            fence = m.group(1) if fence is None else None
            continue
        if fence is None:
            out.append(re.sub(r"`+[^`]*`+", "", line))
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fence = not fence
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and not fence:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def _links() -> list[tuple[Path, str]]:
    out = []
    for doc in DOCS:
        for target in LINK.findall(_prose(doc.read_text(encoding="utf-8"))):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):   # http:, mailto:, ...
                out.append((doc, target))
    return out


def test_slugs():
    assert slug("Running the server") == "running-the-server"
    assert slug("`--json` shapes") == "--json-shapes"
    assert slug("Pictures (`--svg`)") == "pictures---svg"


def test_the_docs_have_links():
    assert len(_links()) >= 10


@pytest.mark.parametrize("doc, target", _links(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_relative_link_resolves(doc, target):
    path, _, anchor = target.partition("#")
    dest = (doc.parent / path).resolve() if path else doc
    assert dest.exists(), f"{doc.name}: link to {target}: no such file"
    if anchor:
        assert dest.suffix == ".md", f"{doc.name}: anchor into a non-Markdown file {target}"
        assert anchor in anchors(dest), f"{doc.name}: link to {target}: no such heading in {dest.name}"


def test_every_doc_is_linked_from_somewhere():
    linked = {(doc.parent / t.partition("#")[0]).resolve() for doc, t in _links() if t.partition("#")[0]}
    for doc in DOCS[1:]:
        assert doc.resolve() in linked, f"{doc.relative_to(ROOT)} is linked from nowhere"


# ------------------------------------------------------- runnable examples
RUN_PREFIXES = ("suggest ", ".venv/bin/suggest ", ".venv/bin/python -m quiltsolve.engine state ")


def examples(doc: Path) -> list[tuple[str, int, list[str], int]]:
    """The runnable commands of ``doc``: (command, expected exit code, output
    lines shown under it, line number)."""
    out: list[tuple[str, int, list[str], int]] = []
    block, lang = None, ""
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line.strip())
        if m:
            if block is None:
                block, lang = [], m.group(2).strip()
            else:
                if lang in ("sh", "console", "shell"):
                    out.extend(_commands(block))
                block = None
            i += 1
            continue
        if block is not None:
            block.append((i + 1, line))
        i += 1
    return out


def _commands(block: list[tuple[int, str]]) -> list[tuple[str, int, list[str], int]]:
    out: list[tuple[str, int, list[str], int]] = []
    shown: list[str] | None = None
    i = 0
    while i < len(block):
        number, line = block[i]
        i += 1
        if not line.startswith("$ "):
            if shown is not None and line.strip():
                shown.append(line.rstrip())
            continue
        command = line[2:]
        while command.rstrip().endswith("\\") and i < len(block):   # continued on the next line
            command = command.rstrip()[:-1] + " " + block[i][1].strip()
            i += 1
        m = re.search(r"#\s*exit\s+(\d+)", command)
        code = int(m.group(1)) if m else 0
        shown = None
        if command.startswith(RUN_PREFIXES) and "--server" not in command:
            shown = []
            out.append((command, code, shown, number))
    return out


def test_the_runnable_docs_have_examples():
    for doc in RUNNABLE_DOCS:
        assert len(examples(doc)) >= 3, doc.name


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("docs")
    (d / "board.txt").write_text("\n".join(BOARD.split("/")) + "\n")
    os.symlink(sys.prefix, d / ".venv")
    return d


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize("doc", RUNNABLE_DOCS, ids=lambda d: d.name)
def test_shell_examples_run(doc, scratch):
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "suggest").exists():
        pytest.skip("the suggest console script is not installed next to this python")
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", COLUMNS="100",
               NO_COLOR="1", TERM="dumb")
    for command, code, shown, number in examples(doc):
        r = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, capture_output=True, text=True,
                           timeout=300)
        where = f"{doc.name}:{number}: $ {command}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
        assert r.returncode == code, where
        assert "Traceback" not in r.stderr, where
        actual = [line.rstrip() for line in r.stdout.splitlines()]
        pos = 0
        for want in shown:
            if want.strip() in ("...", "…"):
                continue
            # "..." inside a line stands for text left out (timings, long lists).
            pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")))
            while pos < len(actual) and not pattern.fullmatch(actual[pos]):
                pos += 1
            assert pos < len(actual), f"{where}\n--- missing, in this order: {want!r}"
            pos += 1
