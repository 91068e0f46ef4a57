"""dccsim: a datacenter congestion-control simulator (Rust engine, Python front)."""

from __future__ import annotations

from .errors import ScenarioError

try:
    from importlib.metadata import PackageNotFoundError, version as _dist_version

    try:
        __version__ = _dist_version("dccsim")
    except PackageNotFoundError:
        __version__ = "0.0.0+unknown"
except ImportError:  # pragma: no cover
    __version__ = "0.0.0+unknown"

__all__ = ["ScenarioError", "__version__"]
