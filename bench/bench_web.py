"""The web app in headless Chromium: page load, engine answers, hints, what the browser downloads.

Starts ``python -m quiltsolve.web`` on 127.0.0.1 (ephemeral ports) in its own process
and drives the Play page with Playwright on Debian's Chromium:

* page load to interactive: navigation start → a new game dealt and drawn
  (``body[data-ready=play]``, the status line idle), on a fresh context
  (cold cache) each time;
* a human move → the engine's answer drawn: the key press (``a``:
  advance) → the page idle again with the engine's move on its quilt, per
  engine strength;
* hint latency: the ``h`` key → the ranked list and the drawn hint (the
  default hint: SuggestMove with 300 iterations);
* bytes: every response of a page load (HTML, CSS, JS modules, API
  answers), as sent (gzip for static files) and decoded;
* the analysis board: a move played (the engine's first choice, clicked)
  → the new position's evaluation drawn (suggest-move, top 3, at the
  board's default budget, ``DEFAULT_BUDGET`` in ``analysis.js``; target:
  p90 ≤ 300 ms on 2 cores), p50 / p90 / max over many new positions.
* a review streamed to the page: a 40-move record pasted on the Review page
  (normal depth, 200 iterations a move) → the click on Review → the first
  point of the plot drawn (target ≤ 1 s, issue 20), and → all 40 drawn.

Without Chromium it prints the API-side latencies only.

    python -m bench web [--runs N] [--workers W]
"""

from __future__ import annotations

from bench import print_measures

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parent.parent


def _start(workers: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "quiltsolve.web", "--port", "0", "--http-port", "0", "--workers",
                             str(workers)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "web app on " not in line:
        proc.kill()
        raise SystemExit(f"bench_web: the server did not start: {line!r}")
    return proc, line.rsplit(" ", 1)[1].strip().rstrip("/")


def _budget() -> int:
    """The analysis board's default budget (iterations), read from the page's module."""
    text = (ROOT / "src" / "quiltsolve" / "web" / "static" / "js" / "analysis.js").read_text()
    return int(re.search(r"DEFAULT_BUDGET = (\d+)", text).group(1))


def _percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    v = sorted(values)
    at = lambda q: v[min(len(v) - 1, round(q * (len(v) - 1)))] * 1000  # noqa: E731
    return f"{at(0.5):,.0f} / {at(0.9):,.0f} / {v[-1] * 1000:,.0f}"


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    values = sorted(values)
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    return f"{statistics.median(values) * 1000:,.0f} / {p90 * 1000:,.0f}"


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def _wait(page, js: str, timeout: float = 120.0, every: float = 0.005) -> None:
    t0 = time.perf_counter()
    while not page.evaluate(js):
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(js)
        time.sleep(every)


SETTLED = ("(() => { const d = document.getElementById('page-analysis').dataset; "
           "return d.busy === '0' && !!d.notation && d.evaluated === d.notation && d.path === %r; })()")
IDLE = ("(() => { const d = document.getElementById('page-play').dataset; "
        "return d.busy === '0' && (d.turn === 'human' || d.turn === 'over') && Number(d.plies) > %d; })()")


def _browser_rows(url: str, runs: int) -> list[tuple[str, str, str]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox", "--disable-gpu"])
        loads, sent, decoded, files, external = [], 0, 0, 0, 0
        for i in range(runs):
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            page.goto(f"{url}/#play")
            page.wait_for_selector("body[data-ready=play]", state="attached", timeout=60_000)
            _wait(page, IDLE % -1)
            loads.append(page.evaluate("performance.now()") / 1000)
            if i == 0:
                entries = page.evaluate("""() => [performance.getEntriesByType('navigation')[0],
                    ...performance.getEntriesByType('resource')].map(e => [e.name, e.encodedBodySize, e.decodedBodySize])""")
                files = len(entries)
                sent = sum(e[1] for e in entries)
                decoded = sum(e[2] for e in entries)
                external = sum(1 for e in entries if not e[0].startswith(url))
            ctx.close()
        rows.append(("page load to interactive (ms, p50 / p90)", _ms(loads), f"{runs} cold loads, new game drawn"))
        rows.append(("bytes downloaded per load", f"{sent / 1024:,.1f} KiB",
                     f"{decoded / 1024:,.1f} KiB decoded, {files} responses, {external} from elsewhere"))
        for strength in ("greedy", "search:0.5"):
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            page.goto(f"{url}/#play")
            page.wait_for_selector("body[data-ready=play]", state="attached", timeout=60_000)
            page.select_option("#play-strength", strength)
            page.fill("#play-seed", "3")
            page.click("#play-new")
            _wait(page, IDLE % -1)
            times = []
            for _ in range(runs):
                plies = page.evaluate("Number(document.getElementById('page-play').dataset.plies)")
                if page.evaluate("document.getElementById('page-play').dataset.turn") == "over":
                    break
                t0 = time.perf_counter()
                page.keyboard.press("a")
                _wait(page, IDLE % plies)
                times.append(time.perf_counter() - t0)
            rows.append((f"human move → engine's answer drawn, {strength} (ms)", _ms(times),
                         f"{len(times)} advances"))
            if strength == "greedy":
                hints = []
                for _ in range(max(1, runs // 2)):
                    page.evaluate("document.getElementById('play-hint-list').textContent = ''")
                    t0 = time.perf_counter()
                    page.keyboard.press("h")
                    page.wait_for_selector("#play-hint-list li", timeout=60_000)
                    hints.append(time.perf_counter() - t0)
                    page.keyboard.press("Escape")
                rows.append(("hint latency (ms, p50 / p90)", _ms(hints), "SuggestMove, 300 iterations"))
            ctx.close()
        rows.append(_analysis_row(browser, url, max(20, 3 * runs)))
        rows += _review_rows(browser, url, runs)
        browser.close()
    return rows


def _analysis_row(browser, url: str, runs: int) -> tuple[str, str, str]:
    """New positions on the analysis board, each evaluated and drawn: the engine's first choice clicked."""
    times = []
    seed = 3
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    while len(times) < runs:
        notation = httpx.post(f"{url}/api/v1/game/new", json={"seed": seed}).json()["view"]["notation"]
        seed += 1
        page.goto(f"{url}/#analysis?pos={quote(notation, safe='')}")
        page.wait_for_selector("body[data-ready=analysis]", state="attached", timeout=60_000)
        _wait(page, "(() => { const d = document.getElementById('page-analysis').dataset; "
                    "return d.busy === '0' && d.evaluated === d.notation && d.notation === %s && d.line === ''; })()"
              % repr(notation))
        for ply in range(1, 16):
            if len(times) >= runs or page.evaluate("document.getElementById('page-analysis').dataset.turn") == "over":
                break
            # Timed inside the page: from the click to the new position's evaluation first drawn.
            t0 = page.evaluate("() => { const t = performance.now(); "
                               "document.querySelector('#an-best li').click(); return t; }")
            # Polled slowly (the time is the page's own): the poll would otherwise take CPU from what it times.
            _wait(page, SETTLED % ".".join(["0"] * ply), every=0.05)
            drawn = float(page.evaluate("document.getElementById('page-analysis').dataset.evaluatedAt"))
            times.append((drawn - t0) / 1000)
    ctx.close()
    return ("analysis: move → evaluation drawn (ms, p50 / p90 / max)", _percentiles(times),
            f"{len(times)} new positions, {_budget()} iterations (the default), target p90 <= 300")


def _review_record(moves: int = 40) -> str:
    """A greedy-vs-greedy game's first ``moves`` moves as an (unfinished) engine record."""
    import json

    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

    state = engine.new_game(3)
    start, greedy, actions = state.clone(), GreedyPlayer(), []
    for _ in range(moves):
        a = greedy.choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    rec = engine.make_record(start, actions, state, 3)
    del rec["result"]
    return json.dumps(rec)


def _review_rows(browser, url: str, runs: int) -> list[tuple[str, str, str]]:
    """The Review page: click → first point drawn, click → every point drawn, for a 40-move record."""
    text = _review_record(40)
    first, whole = [], []
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(f"{url}/#review")
    page.wait_for_selector("body[data-ready=review]", state="attached", timeout=60_000)
    for i in range(max(1, runs // 3)):
        page.fill("#review-text", text)
        page.select_option("#review-depth", "it:200")
        page.evaluate("document.getElementById('review-plot').textContent = ''")
        t0 = time.perf_counter()
        page.click("#review-go")
        page.wait_for_selector("#review-plot circle.pt", state="attached", timeout=60_000)
        first.append(time.perf_counter() - t0)
        _wait(page, "document.getElementById('page-review').dataset.reviewed === '40'")
        whole.append(time.perf_counter() - t0)
    ctx.close()
    best = min(first)
    return [("review, 40 moves: click → first point drawn (ms, p50 / p90)", _ms(first),
             f"target ≤ 1,000 ms: {'met' if statistics.median(first) <= 1.0 else 'NOT met'} "
             f"(best {best * 1000:,.0f})"),
            ("review, 40 moves: click → all 40 drawn (ms, p50 / p90)", _ms(whole), "200 iterations a move")]


def _api_rows(url: str, runs: int) -> list[tuple[str, str, str]]:
    with httpx.Client(base_url=url, timeout=60) as c:
        g = c.post("/api/v1/game/new", json={"seed": 3}).json()
        t = []
        for _ in range(runs):
            t0 = time.perf_counter()
            c.post("/api/v1/game/engine-move", json={"state": g["state"], "strength": "greedy"}).raise_for_status()
            t.append(time.perf_counter() - t0)
        a = []
        for _ in range(max(1, runs // 2)):
            t0 = time.perf_counter()
            c.post("/api/v1/suggest-move", json={"state": g["state"], "top": 3, "iterations": _budget(),
                                                 "seed": 0}).raise_for_status()
            a.append(time.perf_counter() - t0)
        h = []
        for _ in range(max(1, runs // 2)):
            t0 = time.perf_counter()
            c.post("/api/v1/suggest-move", json={"state": g["state"], "top": 5, "iterations": 300}).raise_for_status()
            h.append(time.perf_counter() - t0)
        page = c.get("/")
    return [("API engine-move greedy (ms, p50 / p90)", _ms(t), "HTTP round trip"),
            ("API suggest-move, 300 iterations (ms)", _ms(h), "the hint's request"),
            (f"API suggest-move, top 3, {_budget()} iterations (ms)", _ms(a), "the analysis board's request"),
            ("index.html bytes", f"{len(page.content):,}", "")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_web", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="samples per measure (default 10)")
    ap.add_argument("--workers", type=int, default=2, help="server worker processes (default 2)")
    args = ap.parse_args(argv or [])
    proc, url = _start(args.workers)
    try:
        rows = _api_rows(url, args.runs)
        try:
            import playwright  # noqa: F401
            have = _chromium() is not None
        except ImportError:
            have = False
        if have:
            rows = _browser_rows(url, args.runs) + rows
        else:
            print("no Chromium or Playwright here: API latencies only (apt-get install chromium)")
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        proc.stdout.close()
    print_measures(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
