"""Headless Debian Chromium for the report tests: load a page from disk with the network
blocked, collect console messages, the DOM after scripts ran, and a screenshot."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # every host name fails to resolve: the page must work without any network
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=8000",
]


def require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        msg = "Debian's chromium is not installed (apt-get install chromium; .ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(msg)  # CI must run the browser tests
        pytest.skip(msg)


def _chromium(args: list, page: Path) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=180,
        )


def console_lines(stderr: str) -> list:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def load(page: Path):
    """(DOM after the scripts ran, console messages)."""
    p = _chromium(["--dump-dom"], page)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout, console_lines(p.stderr)


def screenshot(page: Path, png: Path, size=(1300, 2200)) -> list:
    p = _chromium([f"--screenshot={png}", f"--window-size={size[0]},{size[1]}"], page)
    assert p.returncode == 0 and png.is_file(), p.stderr[-2000:]
    return console_lines(p.stderr)
