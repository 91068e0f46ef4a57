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
