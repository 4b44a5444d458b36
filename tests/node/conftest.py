"""The Node.js client test's closing line when it could not run (no node/npm, or npm could not install)."""

from __future__ import annotations

NODE_SKIPS: list[str] = []


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    for reason in NODE_SKIPS:
        terminalreporter.write_line(f"Node.js client test did not run: {reason}")
