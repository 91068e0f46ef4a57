"""Figures without pyplot: `matplotlib.figure.Figure` on an Agg canvas (pyplot's import and its
global figure manager cost more than the drawing), saved reproducibly, plus decimation of long
series to the figure's resolution.
"""

from __future__ import annotations

import numpy as np

DPI = 120


def import_matplotlib(lean: bool = False) -> None:
    """Import what new_figure and save use (the Figure, the Agg canvas).

    lean: for a process of the `dccsim` command that only writes PNGs (the figure worker, or the
    run itself on one core), import matplotlib without two things no PNG needs (≈ 30 % of the
    instructions of importing it, 713 of 1 920 M under callgrind; docs/benchmarks.md):

    * the docstrings matplotlib writes at import for every Artist subclass's ``set()`` (its
      ``Artist.__init_subclass__`` calls ``kwdoc``, which runs ``inspect.getdoc`` on every setter
      of every class, ≈ 7 700 calls): ``inspect.getdoc`` answers None while matplotlib is being
      imported, so those docstrings say "unknown" and ``set()``'s signature lists the aliases;
      what an artist draws does not depend on either;
    * the 3-D toolkit (``matplotlib.projections`` imports ``mpl_toolkits.mplot3d`` to register
      the "3d" projection, inside a try that warns when it fails): it is made unimportable for
      that moment and the warning is silenced, so no "3d" projection exists in this process.

    Only when matplotlib is not imported yet (never changes a matplotlib someone else uses); the
    PNG's bytes are the same (tests/python/test_fast_front.py)."""
    import sys

    if not lean or "matplotlib" in sys.modules:
        import matplotlib.backends.backend_agg  # noqa: F401
        import matplotlib.figure  # noqa: F401

        return
    import inspect
    import warnings

    getdoc = inspect.getdoc
    no_3d = "mpl_toolkits.mplot3d" not in sys.modules
    inspect.getdoc = _no_docstring
    if no_3d:
        sys.modules["mpl_toolkits.mplot3d"] = None  # an ImportError for matplotlib.projections
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Unable to import Axes3D")
            import matplotlib.backends.backend_agg  # noqa: F401
            import matplotlib.figure  # noqa: F401
    finally:
        inspect.getdoc = getdoc
        if no_3d and sys.modules.get("mpl_toolkits.mplot3d", 0) is None:
            del sys.modules["mpl_toolkits.mplot3d"]


def _no_docstring(_obj):
    return None


def new_figure(
    nrows: int = 1, ncols: int = 1, figsize=(6.4, 4.8), squeeze: bool = True, fixed_titles: bool = False, **kw
):
    """(figure, axes) like pyplot.subplots, on a FigureCanvasAgg.

    `fixed_titles`: the panels' titles sit at the top of their axes (y = 1.0) instead of matplotlib
    searching, at every draw, for top tick labels or an offset text of the panel and its twins to
    move them above (`Axes._update_title_position`: it lays out every y tick label; 0.25 of the
    incast figure's 0.64 s draw under cProfile, ≈ 10 % of its time unprofiled). Only for figures
    with no top ticks and no offset text, where the search finds nothing and the pixels are the
    same (test_fast_front.py checks the incast figure)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=DPI)
    FigureCanvasAgg(fig)
    # an axes reads axes.titley when it is created; a set title keeps the position
    with matplotlib.rc_context({"axes.titley": 1.0} if fixed_titles else {}):
        axes = fig.subplots(nrows, ncols, squeeze=squeeze, **kw)
    return fig, axes


def save(fig, path) -> None:
    """PNG at 120 dpi with no timestamp or software tag (byte-identical on rerun). In the figure
    worker a figure may be drawn half by each of two processes, with the same bytes
    (figure_split.py)."""
    from . import figure_split

    half = figure_split.active()
    if half is not None:
        half.save(fig, path, DPI, {"Software": None})
    else:
        fig.savefig(path, dpi=DPI, metadata={"Software": None})


def margins(fig, left: float, right: float, bottom: float, top: float, gap: float = 0.0) -> None:
    """Fixed margins in inches (and `gap` between columns of panels): what tight_layout would
    compute for a known layout, without measuring every tick label twice."""
    w, h = fig.get_size_inches()
    ncols = fig.axes[0].get_subplotspec().get_gridspec().ncols if fig.axes else 1
    panel = (w - left - right - gap * (ncols - 1)) / ncols
    fig.subplots_adjust(
        left=left / w, right=1 - right / w, bottom=bottom / h, top=1 - top / h, wspace=gap / panel
    )


def decimate(x, y, max_points: int):
    """At most 2·max_points points of (x, y): each of max_points buckets keeps its minimum and
    maximum (in time order), so every peak and dip visible at the figure's resolution stays.
    Series already short enough come back unchanged."""
    x = np.asarray(x)
    y = np.asarray(y)
    n = len(x)
    if n <= 2 * max_points:
        return x, y
    edges = np.linspace(0, n, max_points + 1).astype(np.int64)
    bucket = np.repeat(np.arange(max_points), np.diff(edges))
    # index of each bucket's min and max: sort by (bucket, value) once
    order = np.lexsort((y, bucket))
    first = edges[:-1]
    last = edges[1:] - 1
    # sorted and without repeats, as np.unique — which imports numpy.ma (≈ 2 % of the main job's
    # instructions) for nothing here
    keep = np.sort(np.concatenate([order[first], order[last]]))
    keep = keep[np.concatenate(([True], keep[1:] != keep[:-1]))]
    return x[keep], y[keep]
