"""How many cores this process may run on: its CPU affinity (`taskset -c 0` gives one), not the
machine's count. A second process only helps a short run when it gets a core of its own."""

from __future__ import annotations

import os


def usable() -> int:
    """Cores this process may be scheduled on (os.sched_getaffinity; os.cpu_count where the
    platform has no affinity)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
