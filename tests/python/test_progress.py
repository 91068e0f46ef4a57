"""Progress inside a run: on a terminal, the variants' bar shows the simulated time of the
duration, events/s and the time left, from the engine's own poll (engine.run's `progress`)."""

import os
import pty
import sys
from pathlib import Path

import pytest

from dccsim import engine

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[2]


def _on_a_terminal(args: list) -> str:
    """What `dccsim ARGS` writes to a 200-column pseudo-terminal."""
    out = bytearray()

    def read(fd):
        data = os.read(fd, 4096)
        out.extend(data)
        return data

    cmd = " ".join([sys.executable, "-m", "dccsim.cli", *args])
    env_path = f"PYTHONPATH={ROOT / 'python'}"
    pty.spawn(["sh", "-c", f"stty cols 200 rows 50; {env_path} exec {cmd}"], read)
    return out.decode("utf-8", "replace").replace("\r", "\n")


def test_a_run_on_a_terminal_shows_simulated_time_events_per_second_and_time_left(tmp_path):
    text = _on_a_terminal(["run", "bench-fattree-perm", "--out", str(tmp_path / "o"), "--no-figures"])
    lines = [x for x in text.splitlines() if "simulated" in x]
    assert lines, text[-2000:]
    assert "of 10 ms simulated" in lines[-1] and "M events/s" in lines[-1] and "s left" in lines[-1]


def _short_fattree():
    """bench-fattree-perm's first millisecond: a few million events, a fraction of a second."""
    import dataclasses

    from dccsim.experiments import get

    return dataclasses.replace(get("bench-fattree-perm"), duration_ps=10**9)


def test_the_engine_reports_simulated_time_every_poll_interval():
    scn = _short_fattree()
    seen = []
    res = engine.run(scn.to_engine_config("powertcp"), seen.append)
    events = res["summary"]["events"]
    assert len(seen) == events // engine.poll_events()  # one call per POLL_EVENTS events
    assert seen == sorted(seen) and 0 < seen[-1] <= scn.duration_ps


def test_an_exception_in_the_progress_callback_stops_the_run_and_reaches_the_caller():
    def boom(_now):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        engine.run(_short_fattree().to_engine_config("powertcp"), boom)
