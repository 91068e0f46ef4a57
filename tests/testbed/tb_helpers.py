"""Shared helpers of the testbed tests (a module name of its own: tests/python has a conftest)."""

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

TOOLS = ("ip", "tc", "bpftool", "clang", "make", "nsenter", "ethtool")


def testbed_missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    for t in TOOLS:
        if shutil.which(t) is None:
            return f"missing {t} (.ci/testbed-deps.sh)"
    if not Path("/sys/kernel/btf/vmlinux").exists():
        return "kernel without BTF"
    return None


needs_testbed = pytest.mark.skipif(testbed_missing() is not None, reason=str(testbed_missing()))


# the CLI run as a user would, and the simulator for the --compare side
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}


def _engine_missing():
    try:
        from dccsim import engine

        engine.require()
    except Exception as e:  # noqa: BLE001
        return f"simulator engine not built: {e}"
    return None


needs_engine = pytest.mark.skipif(_engine_missing() is not None, reason=str(_engine_missing()))
