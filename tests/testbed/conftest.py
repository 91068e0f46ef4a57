import pytest

import tb_helpers  # noqa: F401  (puts python/ on the path)


@pytest.fixture
def clean_testbed():
    """Start and end with no testbed state, and fail if a test left some behind."""
    from dccsim.testbed import bpfctl, topology

    topology.cleanup_all()
    yield
    left = topology.leftover_namespaces() + [n for n in bpfctl.registered() if n.startswith("dccsim_")]
    topology.cleanup_all()
    assert not left, f"testbed state left behind: {left}"


def pytest_terminal_summary(terminalreporter):
    """Say how many testbed tests were skipped and why (issue 13: never silently)."""
    from collections import Counter

    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "testbed" in r.nodeid]
    if not skipped:
        return
    reasons = Counter(r.longrepr[2] if isinstance(r.longrepr, tuple) else str(r.longrepr) for r in skipped)
    why = "; ".join(f"{n} × {reason.removeprefix('Skipped: ')}" for reason, n in reasons.most_common())
    terminalreporter.write_line(f"testbed: {len(skipped)} test(s) skipped — {why}", yellow=True, bold=True)
