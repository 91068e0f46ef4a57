"""Draw a run's figure in a forked process that imports matplotlib while the parent runs the
engine and writes the tables, when this process may use a second core.

Importing matplotlib costs about as much as a small run's whole engine and writing time; done in
a second process it overlaps with them (docs/benchmarks.md). The CLI forks the worker before it
imports anything heavy (`prestart`, for `dccsim run` with figures), so that the child's imports
also overlap with the parent's (numpy, the scenario code); `runner.run` takes that worker
or starts one. The child gets the figure's inputs through a pipe, draws with the analysis's own
`figure()` and answers "ok" with the matplotlib version it drew with, or the exception. Where fork
is not available, or the process may run on one core only (`taskset -c 0`: cores.usable()), the
figure is drawn in-process, with the same bytes: on one core the two processes would only take
turns, and the child would import numpy and the scenario code a second time (≈ 0.4 s of CPU
on the incast run, loaded machine; docs/benchmarks.md).

A figure of many panels (its analysis has `PARALLEL_FIGURE = True`) is rendered half by this
child and half by a grandchild forked once the figure is built, when a core is free for it
(figure_split.py), with the same bytes.
"""

from __future__ import annotations

import os
import sys

from . import cores


def _serve(conn, split, parent_end=None) -> None:
    if parent_end is not None:
        # the fork copied the parent's end of the pipe: closed here, so that recv() sees EOF as
        # soon as the parent closes its end or dies (else this child would wait for ever)
        parent_end.close()
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's handler: stop() ends it at once
    import gc

    gc.disable()  # this process draws one figure and exits: its cyclic garbage is bounded
    try:
        from . import plots

        plots.import_matplotlib(lean=True)  # the slow part, overlapped with the parent
        import matplotlib

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
    figure allows it, False never. fork: None (default) forks when this process may use more
    than one core, True whenever fork is available, False never (drawn in-process)."""

    def __init__(self, split: bool | None = None, fork: bool | None = None, lean: bool = False) -> None:
        self._proc = None
        self._lean = lean  # in-process: plots.import_matplotlib(lean) (this process is the CLI's)
        self.matplotlib_version = None  # set once a figure is drawn
        if fork is None:
            fork = cores.usable() > 1
        if not (fork and sys.platform.startswith("linux")):
            return
        import multiprocessing

        if "fork" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child, split, self._conn), daemon=True)
            self._proc.start()
            child.close()

    def draw(self, analysis: str, scn, series: dict, path) -> None:
        """Draw ANALYSES[analysis].figure(scn, series, path); returns when the file is written."""
        if self._proc is None:
            import gc

            from . import plots
            from .analysis import ANALYSES

            if ANALYSES[analysis].NATIVE_FIGURE:  # no matplotlib (chart.py)
                ANALYSES[analysis].figure(scn, series, path)
                return

            # the runs' objects (scenario, tables, engine results) are not garbage: kept out of
            # the collector's full passes while matplotlib allocates (gc.freeze), put back after.
            # In the command's own process (lean) no collection at all until the figure is
            # written: one figure's cyclic garbage is bounded, and the passes cost ≈ 5 % of the run
            gc.freeze()
            enabled = gc.isenabled()
            if self._lean:
                gc.disable()
            try:
                plots.import_matplotlib(lean=self._lean)
                import matplotlib

                ANALYSES[analysis].figure(scn, series, path)
            finally:
                if enabled:
                    gc.enable()
                gc.unfreeze()
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
    """Called by the CLI (`dccsim run` with figures) before its heavy imports: fork the worker
    now when there is a second core for it; on one core the figure is drawn in-process after
    the runs. Either way the process is the command's own, so matplotlib is imported lean
    (plots.import_matplotlib)."""
    global _prestarted
    if _prestarted is None:
        _prestarted = FigureWorker(fork=cores.usable() > 1, lean=True)


def take(native: bool = False) -> FigureWorker:
    """The prestarted worker if there is one, else a new one. `native`: the analysis draws its
    figure without matplotlib (chart.py): in this process, and a prestarted child is stopped."""
    global _prestarted
    if native:
        discard_prestarted()
        return FigureWorker(fork=False)
    worker, _prestarted = _prestarted, None
    return worker if worker is not None else FigureWorker()


def discard_prestarted() -> None:
    """Stop a prestarted worker that this run does not need (no analysis, or --no-figures)."""
    global _prestarted
    if _prestarted is not None:
        _prestarted.stop()
        _prestarted = None
