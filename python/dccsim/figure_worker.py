"""Draw a run's figure in a forked process that imports matplotlib while the parent runs the
engine and writes the tables.

Importing matplotlib costs about as much as a small run's whole engine and writing time; done in
a second process it overlaps with them (docs/benchmarks.md). The CLI forks the worker before it
imports anything heavy (`prestart`, for `dccsim run` with figures), so that the child's imports
also overlap with the parent's (numpy, the scenario code); `runner.run` takes that worker
or starts one. The child gets the figure's inputs through a pipe, draws with the analysis's own
`figure()` and answers "ok" with the matplotlib version it drew with, or the exception. Where fork
is not available the figure is drawn in-process, with the same bytes.

A figure of many panels (its analysis has `PARALLEL_FIGURE = True`) is rendered half by this
child and half by a grandchild forked once the figure is built, when a core is free for it
(figure_split.py), with the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys


def _serve(conn, split, parent_end=None) -> None:
    if parent_end is not None:
        # the fork copied the parent's end of the pipe: closed here, so that recv() sees EOF as
        # soon as the parent closes its end or dies (else this child would wait for ever)
        parent_end.close()
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's handler: stop() ends it at once
    try:
        import matplotlib  # the slow part, overlapped with the parent
        import matplotlib.backends.backend_agg  # noqa: F401
        import matplotlib.figure  # noqa: F401

        from . import figure_split
        from .analysis import ANALYSES
    except KeyboardInterrupt:
        return
    try:
        analysis, scn, series, path = conn.recv()
    except (EOFError, KeyboardInterrupt):
        return
    try:
        if split is not False and ANALYSES[analysis].PARALLEL_FIGURE:
            figure_split.activate(figure_split.Split(always=split is True))
        ANALYSES[analysis].figure(scn, series, path)
        conn.send(("ok", matplotlib.__version__))
    except BaseException as e:  # reported to the parent, which raises it
        conn.send(("error", e))


class FigureWorker:
    """One figure, drawn in a child process started now (see module docstring). split: None
    (default) renders a PARALLEL_FIGURE in two processes when a core is free, True whenever the
    figure allows it, False never."""

    def __init__(self, split: bool | None = None) -> None:
        self._proc = None
        self.matplotlib_version = None  # set once a figure is drawn
        if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child, split, self._conn), daemon=True)
            self._proc.start()
            child.close()

    def draw(self, analysis: str, scn, series: dict, path) -> None:
        """Draw ANALYSES[analysis].figure(scn, series, path); returns when the file is written."""
        if self._proc is None:
            import matplotlib

            from .analysis import ANALYSES

            ANALYSES[analysis].figure(scn, series, path)
            self.matplotlib_version = matplotlib.__version__
            return
        self._conn.send((analysis, scn, series, os.path.abspath(path)))  # the child may predate a chdir
        status, answer = self._conn.recv()
        self.close()
        if status != "ok":
            raise answer
        self.matplotlib_version = answer

    def close(self) -> None:
        if self._proc is not None:
            self._conn.close()  # an idle child sees EOF and exits
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
            self._proc = None

    def stop(self) -> None:
        """End the child at once, even mid-import (close() would wait for its imports)."""
        if self._proc is not None:
            self._conn.close()
            self._proc.terminate()
            self._proc.join()
            self._proc = None


_prestarted: FigureWorker | None = None


def prestart() -> None:
    """Fork the worker now, before the caller's heavy imports (the CLI, for `dccsim run`)."""
    global _prestarted
    if _prestarted is None:
        _prestarted = FigureWorker()


def take() -> FigureWorker:
    """The prestarted worker if there is one, else a new one."""
    global _prestarted
    worker, _prestarted = _prestarted, None
    return worker if worker is not None else FigureWorker()


def discard_prestarted() -> None:
    """Stop a prestarted worker that this run does not need (no analysis, or --no-figures)."""
    global _prestarted
    if _prestarted is not None:
        _prestarted.stop()
        _prestarted = None
