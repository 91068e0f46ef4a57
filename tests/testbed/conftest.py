import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture
def clean_testbed():
    """Start and end with no testbed state, and fail if a test left some behind."""
    from dccsim.testbed import topology
    topology.cleanup_all()
    yield
    from dccsim.testbed import bpfctl
    left = topology.leftover_namespaces() + [n for n in bpfctl.registered() if n.startswith("dccsim_")]
    topology.cleanup_all()
    assert not left, f"testbed state left behind: {left}"
