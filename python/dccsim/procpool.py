"""Local worker processes for `dccsim sweep` (one process per point) and `dccsim run --jobs N`
(one process per variant): results are yielded as jobs finish.

Workers are spawned (they import dccsim once each; no fork of a process that runs a progress
thread). When the consumer stops early (Ctrl-C, an error in one job, the generator closed), the
workers still running are terminated before this returns, so no worker keeps writing into an
output directory that is being discarded or committed.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional


def run_unordered(
    fn: Callable,
    jobs: list[tuple[Any, tuple]],
    n: int,
    started: Optional[Callable[[Any], None]] = None,
) -> Iterable[tuple[Any, Any]]:
    """Run fn(*args) for every (key, args) of `jobs` in at most n worker processes, starting them
    in list order; yield (key, result) as each finishes. An exception of fn is raised from
    future.result() here, in the caller's process, after the other workers were stopped."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(
        max_workers=max(1, n), mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init
    )
    clean = False
    try:
        pending = list(jobs)
        running = {}
        while pending or running:
            while pending and len(running) < n:
                key, args = pending.pop(0)
                running[pool.submit(fn, *args)] = key
                if started is not None:
                    started(key)
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in [f for f in running if f in done]:  # in the order they were started
                key = running.pop(f)
                yield key, f.result()
        clean = True
    finally:
        if not clean:
            stop(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (a terminal sends SIGINT to the whole
    process group; without this every worker would print its own traceback), and die with the
    parent (a killed `dccsim run` leaves no worker writing into its staging directory)."""
    import os
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    try:  # Linux: the kernel kills this worker when its parent dies
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass

    def watch() -> None:  # elsewhere (and as a second guard): poll the parent
        import time

        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def stop(pool) -> None:
    """Terminate the pool's worker processes (the executor has no public call for it): SIGTERM,
    which ends a worker at once (it installs no handler), and SIGKILL for one still alive after
    STOP_GRACE_S, so that Ctrl-C keeps its 1 s promise (docs/python-front.md)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        if p.is_alive():
            p.terminate()
    import time

    deadline = time.monotonic() + STOP_GRACE_S
    for p in procs:
        p.join(timeout=max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join()


STOP_GRACE_S = 0.5
