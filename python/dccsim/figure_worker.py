"""Draw a run's figure in a forked process that imports matplotlib while the parent runs the
engine and writes the tables.

Importing matplotlib costs about as much as a small run's whole engine and writing time; done in
a second process it overlaps with them (docs/benchmarks.md). The child gets the figure's inputs
through a pipe, draws with the analysis's own `figure()` and answers "ok" or the exception. Where
fork is not available the figure is drawn in-process, with the same bytes.
"""

from __future__ import annotations

import multiprocessing
import sys


def _serve(conn) -> None:
    import matplotlib.backends.backend_agg  # noqa: F401  (the slow part, overlapped)
    import matplotlib.figure  # noqa: F401

    try:
        analysis, scn, series, path = conn.recv()
    except (EOFError, KeyboardInterrupt):
        return
    try:
        from .analysis import ANALYSES

        ANALYSES[analysis].figure(scn, series, path)
        conn.send(("ok", None))
    except BaseException as e:  # reported to the parent, which raises it
        conn.send(("error", e))


class FigureWorker:
    """One figure, drawn in a child process started now (see module docstring)."""

    def __init__(self) -> None:
        self._proc = None
        if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child,), daemon=True)
            self._proc.start()
            child.close()

    def draw(self, analysis: str, scn, series: dict, path) -> None:
        """Draw ANALYSES[analysis].figure(scn, series, path); returns when the file is written."""
        if self._proc is None:
            from .analysis import ANALYSES

            ANALYSES[analysis].figure(scn, series, path)
            return
        self._conn.send((analysis, scn, series, str(path)))
        status, err = self._conn.recv()
        self.close()
        if status != "ok":
            raise err

    def close(self) -> None:
        if self._proc is not None:
            self._conn.close()  # an idle child sees EOF and exits
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
            self._proc = None
