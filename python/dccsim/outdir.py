"""Output directories: where a run writes, and how it never clobbers, mixes or half-writes results.

The rules (docs/results.md, "Output directory"):

* The default directory is ``runs/<stem>-seed<N>``, ``<stem>`` being the scenario *file's* name
  (or the catalog experiment's name), never the ``name`` written inside the file.
* A run is written into a staging directory beside the target, ``.<out>.staging-<pid>``, and renamed
  into place only at the end (:func:`commit`): a killed run leaves only the hidden staging
  directory, never something that looks like a result. The next run into the same target removes
  staging directories whose process is gone.
* A target that already holds something is refused (:func:`prepare`) unless it is a run of the
  same scenario (same ``scenario.toml`` text: a rerun, replaced at commit) or ``force`` is given
  (then it is replaced at commit; until then the old results stay intact).
* A lock file beside the target, ``.<out>.lock`` (holding the writer's pid), keeps two runs from
  writing the same target at once; a lock whose process is gone is taken over.

Every OS problem becomes an :class:`~dccsim.errors.OutputError` (one line, field ``out``).

API for callers that write runs (``dccsim run``, sweeps — one call pair per sweep point)::

    staging = outdir.prepare(out, force=False, scenario_text=dump_toml(scn))  # before simulating
    try:
        ... write files into `staging` ...
        outdir.commit(staging, out)          # rename into place, release the lock
    except BaseException:
        outdir.discard(staging, out)         # remove staging, release the lock, old `out` intact
        raise
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Optional

from .errors import OutputError

RUNS_ROOT = Path("runs")
RUN_MARKERS = ("summary.json", "scenario.toml")  # files that make a directory a dccsim run


def default_dir(stem: str, seed: int, root: Path = RUNS_ROOT) -> Path:
    """``root/<stem>-seed<seed>``; `stem` must be a plain name (no separators, not . or ..)."""
    check_name(stem, "out")
    return Path(root) / f"{stem}-seed{seed}"


def check_name(name: str, field: str) -> str:
    """A name used as one path component: non-empty, no path separator, no NUL, not . or ..;
    raises OutputError naming `field` otherwise."""
    bad = [c for c in ("/", "\\", "\0") if c in name]
    if not name or name.strip() != name or name in (".", "..") or bad:
        raise OutputError(
            field,
            f"{name!r} cannot name a directory: use a non-empty name without '/', '\\\\', NUL, "
            "leading/trailing spaces, and not '.' or '..'",
        )
    return name


def _lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def _staging_path(out: Path, pid: int) -> Path:
    return out.parent / f".{out.name}.staging-{pid}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, belongs to someone else
        return True
    return True


def os_error(e: OSError, what: str) -> OutputError:
    reason = e.strerror or str(e)
    if e.errno == errno.ENOSPC:
        reason = "no space left on device"
    return OutputError("out", f"{what}: {reason}")


def lock(out, what: str = "run") -> None:
    """Take the lock of `out` (``.<out>.lock`` beside it, holding this pid) or raise OutputError
    naming the process that holds it; `what` names the writer ("run", "sweep") in that message.
    A lock whose process is gone is taken over. release(out) gives it back."""
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise os_error(e, f"cannot create {str(Path(out).parent)!r}") from None
    _acquire(Path(out), what)


def _acquire(out: Path, what: str = "run") -> None:
    lock = _lock_path(out)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or "0")
            except (OSError, ValueError):
                pid = 0
            if pid and pid != os.getpid() and _alive(pid):
                raise OutputError(
                    "out",
                    f"another dccsim {what} (pid {pid}) is writing {str(out)!r}; wait for it or choose --out",
                ) from None
            lock.unlink(missing_ok=True)  # stale: its process is gone
            continue
        except OSError as e:
            raise os_error(e, f"cannot create the lock {str(lock)!r}") from None
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid()}\n")
        return
    raise OutputError("out", f"cannot take the lock {str(lock)!r}")


def release(out) -> None:
    """Remove the lock of `out` if this process holds it."""
    lock = _lock_path(Path(out))
    try:
        if int(lock.read_text().strip() or "0") == os.getpid():
            lock.unlink()
    except (OSError, ValueError):
        pass


def clean_stale(out) -> None:
    """Remove what dead writers of `out` left beside it (staging directories, a lock): a sweep
    does this for the points whose worker it stopped."""
    out = Path(out)
    _remove_stale_staging(out)
    lock = _lock_path(out)
    try:
        pid = int(lock.read_text().strip() or "0")
    except (OSError, ValueError):
        return
    if not _alive(pid):
        lock.unlink(missing_ok=True)


def _remove_stale_staging(out: Path) -> None:
    for p in out.parent.glob(f".{out.name}.staging-*"):
        pid = p.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def _holds_other_content(out: Path, scenario_text: Optional[str]) -> Optional[str]:
    """Why `out` may not be replaced without --force (None = it may)."""
    entries = list(out.iterdir())
    if not entries:
        return None
    if not any((out / m).is_file() for m in RUN_MARKERS):
        return "is not empty and does not hold a dccsim run"
    try:
        old = (out / "scenario.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        old = None
    if scenario_text is None or old != scenario_text:
        return "holds the results of another scenario or seed"
    return None


def prepare(out, force: bool = False, scenario_text: Optional[str] = None) -> Path:
    """Check `out`, take its lock and create a fresh staging directory; returns the staging path.

    Raises OutputError (nothing written, lock not held) when `out` is a file, cannot be created
    or written, is being written by another run, or holds other content and `force` is false.
    `scenario_text` (the run's scenario.toml) lets a rerun of the same scenario replace its own
    earlier results without --force.
    """
    out = Path(out)
    if out.name in ("", ".", ".."):
        raise OutputError("out", f"{str(out)!r} cannot be an output directory: name a directory")
    if out.exists() and not out.is_dir():
        raise OutputError("out", f"{str(out)!r} exists and is not a directory")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError("out", f"{str(out.parent)!r} exists and is not a directory") from None
    except OSError as e:
        raise os_error(e, f"cannot create {str(out.parent)!r}") from None
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise OutputError("out", f"cannot write in {str(out.parent)!r}: permission denied")
    if out.is_dir() and not force:
        try:
            why = _holds_other_content(out, scenario_text)
        except OSError as e:
            raise os_error(e, f"cannot read {str(out)!r}") from None
        if why:
            raise OutputError(
                "out", f"{str(out)!r} {why}; choose another --out or pass --force to replace it"
            )
    _acquire(out)
    try:
        _remove_stale_staging(out)
        staging = _staging_path(out, os.getpid())
        if staging.exists():
            shutil.rmtree(staging)
        staging.mkdir()
    except OSError as e:
        release(out)
        raise os_error(e, f"cannot create a staging directory beside {str(out)!r}") from None
    return staging


def commit(staging, out) -> None:
    """Move the finished `staging` directory to `out` (replacing what was there) and unlock."""
    staging, out = Path(staging), Path(out)
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    try:
        if out.exists():
            if old.exists():
                shutil.rmtree(old)
            os.replace(out, old)
        os.replace(staging, out)
    except OSError as e:
        if old.exists() and not out.exists():
            os.replace(old, out)  # put the previous results back
        discard(staging, out)
        raise os_error(e, f"cannot move the results into {str(out)!r}") from None
    shutil.rmtree(old, ignore_errors=True)
    release(out)


def discard(staging, out) -> None:
    """Remove `staging` and release the lock; `out` stays as it was before the run."""
    shutil.rmtree(Path(staging), ignore_errors=True)
    release(out)
