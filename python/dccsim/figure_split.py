"""One figure drawn by two processes, each rendering the panels on its side of a vertical cut.

Drawing a wide figure of many panels (the incast figure: 7 panels, each with a twin axis) costs
more than anything else in a short run, and it is single-threaded. The figure worker
(figure_worker.py) therefore forks a second process after importing matplotlib; both build the
same figure with the analysis's own `figure()`, and `plots.save` hands it here:

* the cut is a pixel column between two columns of panels (no axes straddles it), chosen so that
  the left process, which also composes and encodes the PNG, gets a little less than half;
* each process hides the axes of the other side and renders the figure to RGBA (`savefig` in
  the raw format, so facecolor, dpi and the rest are those of an ordinary save);
* each also renders the figure with every axes hidden (figure-level artists only: background,
  suptitle) and checks that its own render equals that one beyond the cut, i.e. nothing of its
  panels (tick labels, axis labels, text) reaches across; if either check fails, or the figure
  has no such cut, the left process draws the whole figure itself;
* the left process joins its columns with the right one's and writes the PNG exactly as
  `savefig` would (`matplotlib.image.imsave` with the same arguments).

Every pixel of an Agg render comes from the artists drawn over it, so the composed image equals
one full render byte for byte (tests/python/test_fast_front.py checks it). Only `plots.save`
is split; an analysis opts in with `PARALLEL_FIGURE = True` (figures of one or two panels gain
nothing from it).
"""

from __future__ import annotations

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


class Half:
    """This process's part in drawing one figure with a peer process (see module docstring).

    `side` is "left" (composes and writes the file) or "right" (sends its columns to the left
    one through `peer`, a multiprocessing Connection, and writes nothing)."""

    def __init__(self, side: str, peer) -> None:
        self.side = side
        self.peer = peer
        self.used = False

    def save(self, fig, path, dpi: int, metadata: dict) -> None:
        first, self.used = not self.used, True
        if self.side == "right":
            if first:  # later figures of the same call are the left process's alone
                try:
                    got = render_side(fig, dpi, "right")
                except BaseException:
                    self.peer.send(None)
                    raise
                self.peer.send(None if got is None or not got[2] else (got[0], got[1]))
            return
        got = render_side(fig, dpi, "left") if first else None
        theirs = None
        if got is not None:
            try:
                theirs = self.peer.recv()
            except (EOFError, OSError):  # the right process died: draw the figure alone
                pass
        if got is not None and got[2] and theirs is not None and theirs[0] == got[0]:
            write_png(path, np.concatenate([got[1], theirs[1]], axis=1), dpi, metadata)
        else:
            fig.savefig(path, dpi=dpi, metadata=metadata)

    def finish(self) -> None:
        """After the analysis's figure(): a right half that was never asked to save tells the
        left one so (it then draws alone)."""
        if self.side == "right" and not self.used:
            self.peer.send(None)


_active: Half | None = None


def active() -> Half | None:
    return _active


def activate(half: Half | None) -> None:
    global _active
    _active = half
