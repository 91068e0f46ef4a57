"""Writing a figure file whole or not at all: drawn under a temporary name, then renamed (as every
other file of a run or sweep), so an interrupted draw never leaves a truncated PNG."""

from __future__ import annotations

import os
from pathlib import Path


def write_figure(fig_path: Path, draw) -> None:
    """draw(path) saves a PNG at `path`; it becomes `fig_path` only once complete."""
    fig_path = Path(fig_path)
    tmp = fig_path.with_name(fig_path.stem + ".tmp.png")
    draw(tmp)
    os.replace(tmp, fig_path)
