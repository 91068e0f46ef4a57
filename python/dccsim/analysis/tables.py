"""The tables an analysis receives: {column: numpy array} per table (as `dccsim.runner.frames`
builds them from the engine), or pandas DataFrames (tests, notebooks). Column access through
`column()` works on both; an analysis that wants pandas operations calls `as_frames()` first
and pays for importing pandas only then.
"""

from __future__ import annotations

import numpy as np


def column(table, name: str, dtype=None) -> np.ndarray:
    return np.asarray(table[name], dtype=dtype)


def as_frames(tables: dict) -> dict:
    """The same tables as pandas DataFrames (DataFrames pass through unchanged)."""
    import pandas as pd

    return {k: v if isinstance(v, pd.DataFrame) else pd.DataFrame(dict(v)) for k, v in tables.items()}


def as_frame(table):
    return as_frames({"t": table})["t"]
