"""Shared fixtures. Tests marked `engine` need the compiled extension dccsim._engine.

They are never skipped silently: without the extension they fail with the build hint. To run only
the pure-Python set on a machine without a build, deselect them explicitly: `pytest -m "not engine"`.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

# A small but complete scenario (as parsed TOML) that tests mutate to provoke one error at a time.
BASE = {
    "name": "t",
    "seed": 3,
    "duration": "1ms",
    "topology": {"kind": "star", "hosts": 4, "host_rate": "10Gbps", "host_delay": "1us"},
    "cc": {"algorithm": "powertcp", "gamma": 0.9},
    "flows": [{"src": [1, 2], "dst": 0, "size": "100KB", "start": "10us"}],
    "metrics": {"interval": "1us", "ports": ["sw0->h0"], "flows": True},
}


@pytest.fixture
def base():
    return copy.deepcopy(BASE)


def pytest_runtest_setup(item):
    if item.get_closest_marker("engine") is not None:
        from dccsim import engine

        if not engine.available():
            pytest.fail(
                "integration test needs the compiled engine dccsim._engine; build it with "
                "`maturin develop --release`, or deselect with -m 'not engine'",
                pytrace=False,
            )


@pytest.fixture(autouse=True, scope="session")
def _private_results_catalog(tmp_path_factory):
    """Runs started by tests register in a catalog of their own, not in ./runs/."""
    import os

    old = os.environ.get("DCCSIM_CATALOG")
    os.environ["DCCSIM_CATALOG"] = str(tmp_path_factory.mktemp("catalog") / "catalog.duckdb")
    yield
    if old is None:
        os.environ.pop("DCCSIM_CATALOG", None)
    else:
        os.environ["DCCSIM_CATALOG"] = old
