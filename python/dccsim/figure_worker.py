"""Draw a run's figure in a forked process that imports matplotlib while the parent runs the
engine and writes the tables.

Importing matplotlib costs about as much as a small run's whole engine and writing time; done in
a second process it overlaps with them (docs/benchmarks.md). The CLI forks the worker before it
imports anything heavy (`prestart`, for `dccsim run` with figures), so that the child's imports
also overlap with the parent's (numpy, the scenario code); `runner.run` takes that worker
or starts one. The child gets the figure's inputs through a pipe, draws with the analysis's own
`figure()` and answers "ok" with the matplotlib version it drew with, or the exception. Where fork
is not available the figure is drawn in-process, with the same bytes.

On a machine with two or more cores the child forks a second one once matplotlib is imported
(so it is imported once); the parent sends both the figure's inputs, and an analysis with
`PARALLEL_FIGURE = True` has its figure drawn half by each (figure_split.py), still with the
same bytes. For other analyses the second child is told to exit.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys


def free_core(loadavg: str | None = None, cores: int | None = None) -> bool:
    """Whether a second drawing process would get a core of its own now: the runnable tasks at
    this instant (/proc/loadavg's 4th field, this process included) are at most the cores. On a
    busy machine drawing in two processes only adds the work both do twice (building the figure),
    so the figure is then drawn in one, with the same bytes. A run at real-time priority
    (`chrt -f`) preempts every ordinary task, so a core is free for it whatever their number."""
    if loadavg is None and _realtime():
        return True
    try:
        if loadavg is None:
            with open("/proc/loadavg") as f:
                loadavg = f.read()
        runnable = int(loadavg.split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return True
    return runnable <= (cores or os.cpu_count() or 1)


def _realtime() -> bool:
    try:
        return os.sched_getscheduler(0) in (os.SCHED_FIFO, os.SCHED_RR)
    except (AttributeError, OSError):
        return False


def _serve(conn, parent_ends, right_conn, split_always: bool) -> None:
    """The worker: import matplotlib, fork the right half (when asked for one), draw one figure."""
    for c in parent_ends:  # the parent's ends, copied by fork: closed so that EOF can be seen
        c.close()
    try:
        import matplotlib  # the slow part, overlapped with the parent
        import matplotlib.backends.backend_agg  # noqa: F401
        import matplotlib.figure  # noqa: F401

        from . import figure_split
        from .analysis import ANALYSES
    except KeyboardInterrupt:
        return
    peer, pid = None, None
    if right_conn is not None and not (split_always or free_core()):
        right_conn.close()  # no second process: the parent's send to it fails, and it sends no more
        right_conn = None
    if right_conn is not None:
        # the second process is forked only now, with matplotlib imported once for both
        mine, theirs = multiprocessing.Pipe()
        pid = os.fork()
        if pid == 0:
            conn.close()
            mine.close()
            try:
                _serve_right(right_conn, theirs)
            finally:
                os._exit(0)
        theirs.close()
        right_conn.close()
        peer = mine
    try:
        analysis, scn, series, path = pickle.loads(conn.recv_bytes())
    except (EOFError, OSError, KeyboardInterrupt):
        return
    try:
        if peer is not None and getattr(ANALYSES[analysis], "PARALLEL_FIGURE", False):
            figure_split.activate(figure_split.Half("left", peer))
        ANALYSES[analysis].figure(scn, series, path)
        conn.send(("ok", matplotlib.__version__))
    except BaseException as e:  # reported to the parent, which raises it
        conn.send(("error", e))
    finally:
        if pid is not None:
            peer.close()
            os.waitpid(pid, 0)


def _serve_right(conn, peer) -> None:
    """The right half (figure_split.py): the same figure, this side's panels, sent to the left."""
    from . import figure_split
    from .analysis import ANALYSES

    try:
        raw = conn.recv_bytes()
    except (EOFError, OSError, KeyboardInterrupt):
        return
    if not raw:  # this figure is drawn by the left process alone
        return
    analysis, scn, series, _ = pickle.loads(raw)
    half = figure_split.Half("right", peer)
    figure_split.activate(half)
    try:
        ANALYSES[analysis].figure(scn, series, os.devnull)  # writes nothing: the left one does
    except BaseException:  # noqa: BLE001  (the left process draws the figure alone and reports)
        pass
    finally:
        try:
            half.finish()
        except OSError:
            pass


class FigureWorker:
    """One figure, drawn in a child process started now (see module docstring); with
    `split` the child forks a second process after its imports, and figures of analyses with
    PARALLEL_FIGURE are drawn half by each (figure_split.py). split=None (the default): on two or
    more cores, when a core is free once matplotlib is imported (free_core); True: always;
    False: never."""

    def __init__(self, split: bool | None = None) -> None:
        self._proc = None
        self._right = None
        self.matplotlib_version = None  # set once a figure is drawn
        split_always = split is True
        if split is None:
            split = (os.cpu_count() or 1) >= 2
        if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe()
            ends, right_child = [self._conn], None
            if split:
                self._right, right_child = ctx.Pipe()
                ends.append(self._right)
            self._proc = ctx.Process(
                target=_serve, args=(child, ends, right_child, split_always), daemon=True
            )
            self._proc.start()
            child.close()
            if right_child is not None:
                right_child.close()

    def draw(self, analysis: str, scn, series: dict, path) -> None:
        """Draw ANALYSES[analysis].figure(scn, series, path); returns when the file is written."""
        if self._proc is None:
            import matplotlib

            from .analysis import ANALYSES

            ANALYSES[analysis].figure(scn, series, path)
            self.matplotlib_version = matplotlib.__version__
            return
        from .analysis import ANALYSES

        payload = pickle.dumps(
            (analysis, scn, series, os.path.abspath(path))
        )  # the child may predate a chdir
        self._conn.send_bytes(payload)
        if self._right is not None:
            split = getattr(ANALYSES[analysis], "PARALLEL_FIGURE", False)
            try:
                self._right.send_bytes(payload if split else b"")
            except OSError:  # the child chose to draw alone (no free core) and closed this pipe
                pass
        status, answer = self._conn.recv()
        self.close()
        if status != "ok":
            raise answer
        self.matplotlib_version = answer

    def _close_right(self) -> None:
        if self._right is not None:
            self._right.close()  # the right half sees EOF and exits
            self._right = None

    def close(self) -> None:
        self._close_right()
        if self._proc is not None:
            self._conn.close()  # an idle child sees EOF and exits
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
            self._proc = None

    def stop(self) -> None:
        """End the child at once, even mid-import (close() would wait for its imports)."""
        self._close_right()
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
