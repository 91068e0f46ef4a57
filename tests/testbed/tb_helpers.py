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
