"""One figure rendered by two processes, each drawing the panels on its side of a vertical cut.

Drawing a figure of many panels (the fairness grid: 10 panels; the incast figure had 7 with
twin axes before it became an overlay) costs more than anything else in a short run, and it is
single-threaded. In the figure worker
(figure_worker.py) `plots.save` hands such a figure (its analysis has `PARALLEL_FIGURE = True`)
to `Split.save`, which, the figure being built:

* finds the cut, a pixel column between two columns of panels (no axes straddles it), chosen so
  that this process, which also composes and encodes the PNG, gets a little less than half;
* forks: the child renders the figure with only the right panels visible, this process with only
  the left ones (`savefig` in the raw RGBA format, so facecolor, dpi and the rest are those of an
  ordinary save); the figure is built once, before the fork;
* each also renders the figure with every axes hidden (figure-level artists only: background,
  suptitle) and checks that its own render equals that one beyond the cut, i.e. nothing of its
  panels (tick labels, axis labels, text) reaches across;
* the child sends its columns and exits; this process joins them with its own and writes the PNG
  exactly as `savefig` would (`matplotlib.image.imsave` with the same arguments).

Every pixel of an Agg render comes from the artists drawn over it, so the composed image equals
one full render byte for byte (tests/python/test_fast_front.py checks it). When the figure has
no such cut, a check fails, the child dies, or no core is free for it (`free_core`: on a busy
machine the second process only adds work), the figure is drawn whole by this process.
"""

from __future__ import annotations

import os

import numpy as np

LEFT_SHARE = 0.45  # of the panels drawn by the left process, which also writes the PNG


def cut_column(fig) -> tuple[int, list, list] | None:
    """(pixel column, axes left of it, axes right of it), or None when no column of the figure
    separates its panels."""
    width = fig.get_figwidth() * fig.dpi
    spans = sorted(
        (ax.get_position().x0 * width, ax.get_position().x1 * width, i) for i, ax in enumerate(fig.axes)
    )
    if len(spans) < 2:
        return None
    best = None
    reach = spans[0][1]
    for k in range(1, len(spans)):
        if spans[k][0] > reach:  # a gap between the panels before k and those from k on
            left = spans[:k]
            score = abs(len(left) - LEFT_SHARE * len(spans))
            if best is None or score < best[0]:
                best = (score, (reach + spans[k][0]) / 2, k)
        reach = max(reach, spans[k][1])
    if best is None:
        return None
    _, x, k = best
    left = [fig.axes[i] for _, _, i in spans[:k]]
    right = [fig.axes[i] for _, _, i in spans[k:]]
    return int(round(x)), left, right


def render(fig, dpi: int, visible) -> np.ndarray:
    """The figure as an (height, width, 4) uint8 array with only the axes in `visible` shown."""
    import io

    shown = {id(ax) for ax in visible}
    before = [ax.get_visible() for ax in fig.axes]
    for ax in fig.axes:
        ax.set_visible(id(ax) in shown and ax.get_visible())
    try:
        fig.savefig(io.BytesIO(), format="rgba", dpi=dpi)
        buf = fig.canvas.buffer_rgba()
        return np.array(buf, dtype=np.uint8, copy=True)
    finally:
        for ax, v in zip(fig.axes, before):
            ax.set_visible(v)


def render_side(fig, dpi: int, side: str):
    """(cut, this side's columns of the image, whether nothing of this side's panels crosses
    the cut), or None when the figure cannot be split."""
    found = cut_column(fig)
    if found is None:
        return None
    cut, left, right = found
    mine = left if side == "left" else right
    img = render(fig, dpi, mine)
    empty = render(fig, dpi, [])
    if side == "left":
        return cut, img[:, :cut], bool(np.array_equal(img[:, cut:], empty[:, cut:]))
    return cut, img[:, cut:], bool(np.array_equal(img[:, :cut], empty[:, :cut]))


def write_png(path, image: np.ndarray, dpi: int, metadata: dict) -> None:
    """`image` (RGBA) as the PNG `fig.savefig(path, dpi=dpi, metadata=metadata)` would write."""
    import matplotlib.image

    matplotlib.image.imsave(path, image, format="png", origin="upper", dpi=dpi, metadata=metadata)


def _realtime() -> bool:
    try:
        return os.sched_getscheduler(0) in (os.SCHED_FIFO, os.SCHED_RR)
    except (AttributeError, OSError):
        return False


def free_core(loadavg: str | None = None, cores: int | None = None) -> bool:
    """Whether a second drawing process would get a core of its own now: this process may run on
    more than one core (its affinity: `taskset -c 0` allows one; cores.usable()) and the runnable
    tasks at this instant (/proc/loadavg's 4th field, this process included) are fewer than those
    cores. On a busy machine the figure is drawn by one process, with the same bytes. A process
    at real-time priority (`chrt -f`) preempts every ordinary task, so a core is free for it
    whatever their number, if it may use two."""
    from .cores import usable

    n = cores or usable()
    if n < 2:
        return False
    if loadavg is None and _realtime():
        return True
    try:
        if loadavg is None:
            with open("/proc/loadavg") as f:
                loadavg = f.read()
        runnable = int(loadavg.split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return True
    return runnable < n


class Split:
    """`plots.save` in the figure worker: the first figure saved is rendered half by a forked
    child (see module docstring). always=True splits whenever the figure has a cut (tests);
    otherwise only when free_core(). `forked` tells whether the last save used a child."""

    def __init__(self, always: bool = False) -> None:
        self.always = always
        self.forked = False

    def save(self, fig, path, dpi: int, metadata: dict) -> None:
        found = cut_column(fig)
        self.forked = False
        if found is None or not (self.always or free_core()):
            fig.savefig(path, dpi=dpi, metadata=metadata)
            return
        import multiprocessing

        mine, theirs = multiprocessing.Pipe()
        pid = os.fork()
        if pid == 0:  # the child: the right panels, sent to the parent; nothing else
            try:
                mine.close()
                got = render_side(fig, dpi, "right")
                theirs.send(None if got is None or not got[2] else (got[0], got[1]))
            finally:
                os._exit(0)
        self.forked = True
        theirs.close()
        try:
            got = render_side(fig, dpi, "left")
            try:
                other = mine.recv()
            except (EOFError, OSError):  # the child died: draw the figure alone
                other = None
        finally:
            mine.close()
            os.waitpid(pid, 0)
        if got is not None and got[2] and other is not None and other[0] == got[0]:
            write_png(path, np.concatenate([got[1], other[1]], axis=1), dpi, metadata)
        else:
            fig.savefig(path, dpi=dpi, metadata=metadata)


_active: Split | None = None


def active() -> Split | None:
    return _active


def activate(split: Split | None) -> None:
    global _active
    _active = split
