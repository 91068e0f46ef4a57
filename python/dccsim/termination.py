"""SIGTERM handled as Ctrl-C (docs/python-front.md, "Signals").

`kill PID`, a job scheduler's time limit, `timeout`, `docker stop`: the CLI raises KeyboardInterrupt
in its main thread, so a run keeps its finished variants (``complete: false``), removes its
staging directory and lock, stops its worker processes, and a sweep writes ``sweep.json`` saying
incomplete — exactly as on Ctrl-C. The exit status says which signal it was: 130 after SIGINT,
143 (128 + 15) after SIGTERM. A second SIGTERM during that cleanup is ignored (it takes well
under a second); SIGKILL cannot be handled (a later run cleans what a killed one left).
"""

from __future__ import annotations

import signal
import threading
from typing import Callable

EXIT_SIGINT = 130
EXIT_SIGTERM = 143

_received = False


def received() -> bool:
    """Whether SIGTERM arrived since install()."""
    return _received


def exit_status() -> int:
    return EXIT_SIGTERM if _received else EXIT_SIGINT


def _on_sigterm(signum, frame) -> None:
    global _received
    if _received:
        return  # already stopping
    _received = True
    raise KeyboardInterrupt


def install() -> Callable[[], None]:
    """Handle SIGTERM as Ctrl-C from now on; returns the function that restores the old handler
    (a no-op outside the main thread, where Python cannot install handlers)."""
    global _received
    _received = False
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = signal.signal(signal.SIGTERM, _on_sigterm)

    def restore() -> None:
        signal.signal(signal.SIGTERM, old)

    return restore
